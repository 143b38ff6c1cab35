// Suite files: many runs described once (problems, solvers, federation settings, budgets,
// evaluation schedule, seeds), grids expanded, every run given an identity.
//
//   name: fig1-small                 # results go to results/<name> unless `results:` says
//   seeds: [1, 2, 3]                 # or one seed, or range(0, 10)
//   rounds: 200
//   participation: full              # or a list: full, uniform:5, bernoulli:0.5
//   eval: {every: 1}                 # or {log: 10}
//   budget: {max_samples: 1e6, max_bytes: 1e9, time_limit: 60, target: "rel_error<=1e-12",
//            divergence_factor: 1e10}
//   problems:
//     - name: quadratic-game
//       params: {clients: 5, dim: [3, 5]}
//   solvers:
//     - name: proxskip-gda-fl
//       params: {step_size: logspace(-2, 0, 3)}
//     - name: local-sgda
//       params: {zip: {step_size: [0.1, 0.01], local_steps: [5, 10]}}
//       participation: uniform:10    # this solver's own (replaces the suite's)
//
// Every combination of problem point x solver point x participation x seed is one run.
// A run's id hashes its canonical configuration (parameters with defaults filled in and
// numbers canonical, `theory` kept as asked) and the implementation versions of its solver and
// problem, so the same run asked twice, in any suite, has the same id.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/runner.hpp"

namespace fedbench::suite {

struct SuiteRun {
  RunRequest request;
  std::string id;             //!< 16 hex digits
  std::string identity_text;  //!< what the id hashes
  double cost = 1;            //!< relative work estimate, for longest-first scheduling
  std::string problem_where, solver_where;  //!< "FILE:LINE: " of the entries it came from
};

struct Suite {
  std::string path, name, results_dir;
  std::vector<SuiteRun> runs;
  //! Only some of the file's entries (--problem / --solver): not the suite's whole set of runs.
  bool partial = false;
};

//! Grid items given on the command line; they replace the file's values of the same key.
struct SuiteOverrides {
  std::vector<std::string> solver_params, problem_params;  //!< "key=v1,v2" or "key=logspace(..)"
  std::string results_dir;                                  //!< empty: from the file
  //! Only the entries with these names (empty: all); a name the suite lacks is an error.
  std::vector<std::string> only_problems, only_solvers;
  //! Replace the file's seeds and rounds (experiments: report seeds, quick budgets).
  std::vector<std::uint64_t> seeds;
  std::optional<std::int64_t> rounds;
};

//! Reads, expands and checks names and parameter values; throws UserError "FILE:LINE: ...".
Suite load_suite(const std::string& path, const SuiteOverrides& overrides = {});

//! The identity text and id of a request (also used by `select` to group runs).
std::string identity_text(const RunRequest& request);
std::string run_id(const std::string& identity_text);

}  // namespace fedbench::suite
