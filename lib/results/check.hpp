// `fedbench check SUITE.yaml --reference DIR`: CI regression of convergence curves. Each run
// of the suite, freshly computed, is compared with the stored reference run of the same id:
// exactly (every column but wall_time, bit for bit, and the status) or, for the metrics named
// in `tolerances`, within a band in log10 space (counters stay exact).
#pragma once
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "io/trajectory_file.hpp"
#include "suite/suite.hpp"

namespace fedbench::suite {

//! metric -> allowed |log10(a) - log10(b)|; the key "*" applies to every metric.
using Tolerances = std::map<std::string, double>;

//! Parses "rel_error=0.1" / "*=0.05" items; throws UserError.
Tolerances parse_tolerances(const std::vector<std::string>& items);

//! Why two runs differ (first difference found), or nullopt when they agree.
std::optional<std::string> compare_runs(const io::StoredRun& fresh, const io::StoredRun& reference,
                                        const Tolerances& tolerances);

struct CheckTotals {
  int passed = 0, failed = 0;
};

//! Compares every run of `suite` found in `fresh_dir` with `reference_dir`; one line per
//! failure, then "N passed, N failed".
CheckTotals check_against_reference(const Suite& suite, const std::string& fresh_dir,
                                    const std::string& reference_dir, const Tolerances& tolerances,
                                    std::ostream& out);

//! Run files in `reference_dir` that are not runs of `suite` (renamed parameters, removed
//! solvers, or another suite's references).
std::vector<std::string> foreign_references(const Suite& suite, const std::string& reference_dir);

//! Replaces the references of the suite's runs by the fresh files (each copy atomic); with
//! `prune`, also removes the foreign references (only then: they may be another suite's).
int update_references(const Suite& suite, const std::string& fresh_dir,
                      const std::string& reference_dir, bool prune);

}  // namespace fedbench::suite
