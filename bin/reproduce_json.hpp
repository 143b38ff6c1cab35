// `fedbench reproduce` as JSON: the experiment list (--list --json), and one experiment's
// description with its claims' verdicts (experiment.json for the report page, --json).
#pragma once
#include <string>
#include <vector>

#include "core/json.hpp"
#include "experiment/experiment.hpp"
#include "experiment/reproduce.hpp"

namespace fedbench::cli {

//! Every experiment file: name, file, whether it is valid (else its error) and what it reproduces.
Json experiments_json(const std::vector<suite::ListedExperiment>& experiments);

//! What the page says about the experiment: reference, what it reproduces, substitutes, every
//! claim's line and verdict, the diagnosis lines, the counts of passed and failed claims.
Json experiment_json(const suite::Experiment& e, const suite::ReproduceOutcome& outcome, bool quick);

}  // namespace fedbench::cli
