// Verdicts as data: one small JSON document per experiment (results/verdicts/NAME.json when
// `fedbench reproduce NAME --record DIR` writes it), holding every claim's verdict with its
// numbers (per-seed values, interval, n), the seeds, and what made it: the code fingerprints of
// every solver and problem its runs used, the shared numerics, the verdict logic, the data files'
// SHA-256, the experiment's own files' SHA-256, the fedbench version and the machine. The README's
// table and docs/catalog/verdicts.md are generated from these files, and `fedbench reproduce --status`
// says whether each is current for the running code.
#pragma once
#include <string>
#include <vector>

#include "core/json.hpp"
#include "experiment/reproduce.hpp"

namespace fedbench::suite {

inline constexpr const char* kVerdictFormat = "fedbench-verdicts";
inline constexpr int kVerdictFormatVersion = 1;

//! One claim's verdict and evidence as JSON (also `reproduce --json`'s claims).
Json claim_json(const Claim& claim, const ClaimResult& result);

//! The whole verdict document of a finished `reproduce` (reads the report runs' provenance).
Json verdict_document(const Experiment& e, const ReproduceOutcome& outcome);

//! Why a recorded verdict document would not be made the same way now ("" when current): the
//! experiment's files, a solver's or problem's code, the shared numerics, the verdict logic.
//! `e` is the experiment as its file reads now.
std::string verdict_staleness(const Json& document, const Experiment& e);

//! Now, in UTC, as the verdict documents write dates: 2026-11-29T04:19:26Z.
std::string utc_now();

//! Reads NAME.json of `dir`; UserError naming the file when it is not a verdict document.
Json read_verdict_document(const std::string& path);

}  // namespace fedbench::suite
