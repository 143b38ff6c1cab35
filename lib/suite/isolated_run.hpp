// A suite's runs of code fedbench does not own (a plug-in solver or problem: a shared library or
// a Python file) run in a child process, `fedbench __run-one`, which writes the run's file
// itself. A plug-in that segfaults, aborts, calls exit() or hangs then costs its own run only:
// the suite records it with status "crashed" (and how the process ended) or "timeout" (killed
// after its per-run time limit), and goes on. Built-in solvers run in the suite's process,
// where the time limit is checked between rounds (engine.hpp).
//
// The child gets the run's identity text (the resolved configuration its id hashes: it rebuilds
// the request from it and checks the id), the results directory and the plug-ins to load; it
// reports over a pipe on descriptor 3, one line each: `row ROUND` per recorded row (the progress
// line), `end STATUS\tMETRIC\tVALUE\tDIRECTION\tMESSAGE` once the run file is written, or
// `write-error MESSAGE` when it could not be.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/runner.hpp"
#include "results/results_store.hpp"
#include "suite/suite.hpp"

namespace fedbench::suite {

//! The hidden subcommand a child runs.
inline constexpr const char* kRunOneSubcommand = "__run-one";

//! Whether the solver or the problem comes from a plug-in (a suite runs such runs in a child).
bool runs_in_child(const std::string& problem, const std::string& solver);

//! How a run in a child ended, as the progress line and the suite's counts need it.
struct ChildOutcome {
  std::string status;   //!< "ok", "diverged", "error", "timeout", "crashed"
  std::string message;  //!< why, for anything but "ok"
  std::string metric;   //!< the primary metric's name, "" when the run recorded none
  double value = 0;     //!< its last value (NaN when none)
  Direction direction = Direction::min;
};

struct ChildSettings {
  std::string executable = "/proc/self/exe";
  int threads = 1;
  EvaluationOverlap overlap = EvaluationOverlap::automatic;
  std::optional<double> run_timeout;  //!< seconds; the child is killed a grace period after it
  std::string command_line;           //!< recorded in the run file
  std::atomic<std::int64_t>* rounds_done = nullptr;  //!< the progress line's counter (may be null)
};

//! Runs `run` (prepared here: its header is written here when the child leaves no run file)
//! in a child process and waits for it. The run's file is in `store` afterwards, whatever the
//! child did. Throws WriteError when the child could not write it (the suite stops, as for
//! its own runs) and Interrupted on SIGINT / SIGTERM (the child is stopped first).
ChildOutcome run_in_child(const SuiteRun& run, PreparedRun& prepared, const ResultsStore& store,
                          const ChildSettings& settings);

//! The child's side: runs the run `identity_text` describes (its id must be `id`) into the
//! results directory `results_dir`, reporting on descriptor 3. Returns the exit code.
int serve_run_in_child(const std::vector<std::string>& args);

//! Seconds a child may run past its time limit (it checks the limit itself between rounds)
//! before it is killed.
inline constexpr double kChildGraceSeconds = 5;

}  // namespace fedbench::suite
