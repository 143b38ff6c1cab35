// `fedbench select RESULTS --metric NAME --at rounds=R`: the best configuration per solver.
// Runs that differ only in the seed form one configuration; its score is the median over
// its (tuning) seeds of the metric at the budget (the last recorded row within it), or of the
// area under log10(metric) against rounds. The metric's direction (recorded with its column)
// says whether the smallest or the largest median wins; diverged and failed runs score worst.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "problem/metric_names.hpp"

namespace fedbench::suite {

struct SelectCriterion {
  std::string metric = "rel_error";
  enum class Axis { rounds, samples, bytes, auc } axis = Axis::rounds;
  double budget = 0;  //!< unused for auc
  //! Overrides the direction recorded in the files (--maximize / --minimize).
  std::optional<Direction> direction;
  //! "rounds=200", "samples=1e6", "bytes=1e8" or "auc"; throws UserError.
  static SelectCriterion parse(const std::string& metric, const std::string& at);
  std::string describe() const;
};

struct Configuration {
  std::string problem, solver;
  std::string participation;  //!< as the runs recorded it (e.g. "uniform:5")
  ParamMap problem_params, solver_params;
  std::string problem_key;   //!< identifies the problem configuration
  std::string config_text;   //!< of one of its runs (budget, eval, federation)
  std::vector<std::uint64_t> seeds;
  std::vector<double> scores;
  double median = 0;
};

struct Selection {
  Direction direction = Direction::min;  //!< the direction used
  std::vector<Configuration> all;      //!< every configuration, scored
  std::vector<Configuration> winners;  //!< the best per (problem configuration, solver)
};

//! Runs without the criterion's metric (another problem's) are left out; UserError when none
//! has it.
//! Over the runs of the suites last run in results_dir (every run file with `all_runs`).
Selection select_best(const std::string& results_dir, const SelectCriterion& criterion, bool all_runs = false);

//! The primary metric recorded in a results directory's first finished run (`rel_error` for
//! files that predate the attribute): what select minimises when no metric is named.
std::string recorded_primary_metric(const std::string& results_dir, bool all_runs = false);

//! A suite file that reruns the winners of one problem configuration on `seeds`.
std::string winners_suite(const std::vector<Configuration>& winners,
                          const std::vector<std::uint64_t>& seeds, const std::string& name,
                          const std::string& comment);

//! The winners of a selection grouped by problem configuration (in the order of their keys):
//! one suite text per group, rerunning its winners on `seeds` (on their tuning seeds when
//! empty). `select` and `reproduce` both write these.
std::vector<std::string> winners_suites(const Selection& selection, const std::vector<std::uint64_t>& seeds,
                                        const std::string& name, const std::string& comment);

}  // namespace fedbench::suite
