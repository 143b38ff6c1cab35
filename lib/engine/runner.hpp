// From a request (names, raw parameters, federation settings) to a finished run. Everything
// is validated in prepare_run before any round starts: unknown names, unknown or invalid
// parameters, solver/problem/participation compatibility, theory values that cannot be
// computed. The CLI, tests and benchmarks all go through here.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "engine/run_config.hpp"
#include "engine/solver.hpp"
#include "engine/trajectory.hpp"
#include "problem/problem.hpp"

namespace fedbench {

struct RunRequest {
  std::string problem;
  ParamMap problem_params;
  std::string solver;
  ParamMap solver_params;
  Participation participation;
  std::uint64_t seed = 0;
  Budget budget;
  EvalSchedule eval;
};

struct PreparedRun {
  std::shared_ptr<const Problem> problem;
  std::unique_ptr<SolverRunner> solver;
  RunConfig config;  //!< fully resolved: what the output file records
  double setup_time = 0;  //!< seconds prepare_run took (building the instance, if it did)
  int mpi_ranks = 1;      //!< ranks of the process group running it (recorded only)
  std::string identity;   //!< the suite's identity text of the run (recorded; "" outside suites)
  CoreShare* core_share = nullptr;  //!< a suite's spare cores the run may grow into (not owned)
  std::atomic<std::int64_t>* rounds_done = nullptr;  //!< for a progress line (not owned)
  EvaluationOverlap overlap = EvaluationOverlap::automatic;  //!< evaluations beside the rounds
  std::optional<double> run_timeout;  //!< wall-clock seconds before status "timeout" (RunMeta)
};

//! Validates and resolves a request. Pass `problem` to reuse an instance built from the same
//! problem name and parameters (tests and grids build it once). Throws UserError.
PreparedRun prepare_run(const RunRequest& request,
                        std::shared_ptr<const Problem> problem = nullptr);

//! The most client threads a run may ask for (more is refused, not attempted).
inline constexpr int kMaxThreads = 1024;

//! Runs a prepared run with `threads` threads (results do not depend on it).
RunSummary execute(PreparedRun& run, int threads, TrajectorySink& sink,
                   const std::string& command_line = {});

}  // namespace fedbench
