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
//   run_timeout: 3600                # a run still going after this many seconds: status timeout
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
#include <functional>
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
  //! Wall-clock seconds a run may take before it ends with status "timeout" (`run_timeout:`;
  //! --run-timeout overrides it). Not part of any run's identity.
  std::optional<double> run_timeout;
};

//! Grid items given on the command line; they replace the file's values of the same key.
struct SuiteOverrides {
  std::vector<std::string> solver_params, problem_params;  //!< "key=v1,v2" or "key=logspace(..)"
  std::string results_dir;                                  //!< empty: from the file
  //! Only the entries with these names (empty: all); a name the suite lacks is an error.
  std::vector<std::string> only_problems, only_solvers;
  //! Replace the file's seeds and rounds (experiments: report seeds, quick budgets). Shorter
  //! rounds also evaluate more often where the file asks for `eval: {min_points: N}` and its
  //! `every` would leave fewer than N rows after round 0 (at a divisor of `every`).
  std::vector<std::uint64_t> seeds;
  std::optional<std::int64_t> rounds;
};

//! One problem or solver point of a suite, resolved once for all the runs that share it.
struct SuitePoint {
  std::string name;
  ParamMap params;    //!< as given (file or command line): what a run's request carries
  ParamMap resolved;  //!< defaults filled in, numbers canonical: what a run's identity holds
  std::string where;  //!< "FILE:LINE: " of its entry
};

//! A suite without its runs: the distinct problem points, solver points (one per participation
//! of the solver) and seeds whose product the runs are. A suite of 10^6 runs is typically a
//! few thousand points, so this stays small where the runs would take gigabytes.
struct SuitePlan {
  struct ProblemPoint : SuitePoint {
    EvalSchedule eval;
  };
  struct SolverPoint : SuitePoint {
    Participation participation;
  };

  std::string path, name, results_dir;
  bool partial = false;  //!< as Suite::partial
  std::optional<double> run_timeout;  //!< as Suite::run_timeout
  std::vector<ProblemPoint> problems;
  std::vector<SolverPoint> solvers;
  std::vector<std::uint64_t> seeds;
  Budget budget;

  //! The number of runs (all distinct: equal points and seeds are listed once).
  std::size_t size() const { return problems.size() * solvers.size() * seeds.size(); }
  //! Builds the runs one at a time, in the order and with the ids of load_suite's runs. The
  //! run passed is reused for the next one: copy what must outlive the call.
  void for_each_run(const std::function<void(const SuiteRun&)>& visit) const;
  //! The runs of the first seed only: one per problem point x solver point, in run order.
  //! Runs that differ only in their seed share everything else of their configuration.
  void for_each_configuration(const std::function<void(const SuiteRun&)>& visit) const;
};

//! Reads, expands and checks names and parameter values; throws UserError "FILE:LINE: ...".
SuitePlan load_suite_plan(const std::string& path, const SuiteOverrides& overrides = {});
//! load_suite_plan with every run built (the plan's for_each_run, kept).
Suite load_suite(const std::string& path, const SuiteOverrides& overrides = {});

//! The identity text and id of a request (also used by `select` to group runs).
std::string identity_text(const RunRequest& request);
std::string run_id(const std::string& identity_text);
//! The request an identity text describes (its resolved parameters as given): what a suite's
//! child process runs (isolated_run.hpp). Its identity_text is the same text. InternalError
//! when the text is not an identity.
RunRequest request_from_identity(const std::string& identity_text);

}  // namespace fedbench::suite
