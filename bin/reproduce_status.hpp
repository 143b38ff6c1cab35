// `fedbench reproduce --status`: each experiment's recorded verdicts (results/verdicts/NAME.json)
// and whether they are current for the running code; with --markdown, docs/catalog/verdicts.md,
// the document the README's verdict table is cut from (scripts/catalogs.sh).
#pragma once
#include <string>
#include <vector>

#include "experiment/experiment.hpp"

namespace fedbench::cli {

//! Prints one line per experiment (recorded tallies, current or stale and why, or none
//! recorded); returns the exit status: 0.
int print_verdict_status(const std::vector<suite::ListedExperiment>& experiments, const std::string& verdicts_dir);

//! Prints docs/catalog/verdicts.md: a summary table between `<!-- verdicts-summary -->` markers, then
//! every experiment's claims with their verdicts and evidence, all from the recorded files.
int print_verdict_markdown(const std::vector<suite::ListedExperiment>& experiments, const std::string& verdicts_dir);

//! A recorded duration as the status and the catalog print it: "45 s", "12.3 min", "3.25 h".
std::string duration_text(double seconds);

}  // namespace fedbench::cli
