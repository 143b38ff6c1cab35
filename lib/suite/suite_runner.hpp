// Runs a suite: validates every run before the first starts, skips finished runs (unless
// forced), runs the rest longest first on a pool of `jobs` workers (and, under mpirun, spread
// over the ranks), writes one file per run and the manifest. A run that diverges or throws is
// stored with its status and the suite goes on. Each run is claimed first (run_claim.hpp), so
// processes sharing a results directory never write the same run; a refused write (disk
// full, read-only) stops the suite after the runs in progress. Runs of plug-in solvers and
// problems run in a child process each (isolated_run.hpp): a crash or a hang costs that run.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/trajectory.hpp"
#include "suite/suite.hpp"

namespace fedbench::suite {

struct SuiteOptions {
  int jobs = 0;          //!< parallel runs per process; 0 = all cores
  int threads = 0;       //!< client threads per run, fixed; 0 = this node's cores / jobs, growing into the cores of finished jobs
  bool force = false;    //!< rerun finished runs
  //! Keep finished runs made by other code or from other data (stale) instead of rerunning
  //! them; the manifest marks them.
  bool reuse_stale = false;
  //! Other results directories (another experiment's tuning on the same suite file, an
  //! earlier grid): a run finished there for this configuration and this code is copied,
  //! not run again. Missing directories are skipped; --force ignores them.
  std::vector<std::string> share_from;
  bool quiet = false;
  std::string command_line;
  EvaluationOverlap overlap = EvaluationOverlap::automatic;  //!< evaluations beside the rounds
  //! Seconds of wall clock per run before it ends with status "timeout" (--run-timeout; unset:
  //! the suite file's run_timeout, else none).
  std::optional<double> run_timeout;
};

struct SuiteTotals {
  long long total = 0, cached = 0, finished = 0, diverged = 0, failed = 0;
  long long shared = 0;  //!< of the cached: copied from a share_from directory
  long long stale_rerun = 0, stale_kept = 0;  //!< stale runs found (each rank's own plan summed)
  std::string write_error;       //!< this process's first refused write ("" if none)
  long long write_failures = 0;  //!< processes (ranks) whose writes were refused
};

//! Checks every run (names, parameters, compatibility, theory constants) without running it.
void validate_suite(const Suite& suite);
SuiteTotals run_suite(const Suite& suite, const SuiteOptions& options);

}  // namespace fedbench::suite
