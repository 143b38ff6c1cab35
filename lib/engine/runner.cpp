#include "engine/runner.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "problem/problem_registry.hpp"

namespace fedbench {

PreparedRun prepare_run(const RunRequest& request, std::shared_ptr<const Problem> problem) {
  const auto start = std::chrono::steady_clock::now();
  if (request.budget.rounds < 0) throw UserError("rounds must be >= 0");
  if (request.eval.every < 1) throw UserError("eval-every must be >= 1");
  if (!(request.budget.divergence_factor > 1))
    throw UserError("divergence factor must be > 1");

  PreparedRun run;
  const auto& solver_entry = solver_registry().get(request.solver);
  run.solver = solver_entry.create(request.solver_params);  // parses: fails before problem work
  const auto& problem_entry = problem_registry().get(request.problem);
  run.config.problem = request.problem;
  run.config.problem_params = problem_entry.resolved(request.problem_params);
  run.problem = problem ? std::move(problem)
                        : std::shared_ptr<const Problem>(
                              problem_entry.create(request.problem_params));

  const auto& part = request.participation;
  if (part.draws_distinct() && part.clients_per_round > run.problem->num_clients())
    throw UserError("participation " + part.to_text() +
                    " asks for more clients per round than problem " + request.problem +
                    " has (" + std::to_string(run.problem->num_clients()) + ")");
  run.config.solver = request.solver;
  run.config.participation = request.participation;
  run.config.seed = request.seed;
  run.config.budget = request.budget;
  run.config.eval = request.eval;
  run.solver->prepare(*run.problem, run.config);
  run.config.solver_params = run.solver->resolved_params();
  run.setup_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

RunSummary execute(PreparedRun& run, int threads, TrajectorySink& sink,
                   const std::string& command_line) {
  if (threads < 1) throw UserError("threads must be >= 1");
  if (threads > kMaxThreads)
    throw UserError("--threads " + std::to_string(threads) + " is more than " + std::to_string(kMaxThreads) +
                    " threads per run; use at most the machine's cores (" +
                    std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " here)");
  return run.solver->run(*run.problem, run.config, threads, sink,
                         RunMeta{command_line, run.identity, run.solver->constants_read(), run.setup_time, run.mpi_ranks,
                                 run.core_share, run.rounds_done, run.overlap, {}, run.run_timeout});
}

}  // namespace fedbench
