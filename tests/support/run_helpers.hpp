// Helpers for tests that run solvers: build a registered problem once, run any registered
// solver on it through the same path as the CLI (prepare_run / execute), in memory.
#pragma once
#include <memory>
#include <string>

#include "engine/runner.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::testing {

inline std::shared_ptr<const MinimaxProblem> problem(const std::string& name,
                                                     const ParamMap& params = {}) {
  return std::shared_ptr<const MinimaxProblem>(make_problem(name, params));
}

struct RunSpec {
  std::string solver;
  ParamMap solver_params;
  std::int64_t rounds = 20;
  int threads = 1;
  std::string participation = "full";
  std::uint64_t seed = 7;
  std::int64_t eval_every = 1;
};

inline MemoryTrajectory run(const std::shared_ptr<const MinimaxProblem>& p,
                            const std::string& problem_name, const ParamMap& problem_params,
                            const RunSpec& spec) {
  RunRequest req;
  req.problem = problem_name;
  req.problem_params = problem_params;
  req.solver = spec.solver;
  req.solver_params = spec.solver_params;
  req.participation = Participation::parse(spec.participation);
  req.seed = spec.seed;
  req.budget.rounds = spec.rounds;
  req.eval.every = spec.eval_every;
  PreparedRun prepared = prepare_run(req, p);
  MemoryTrajectory t;
  execute(prepared, spec.threads, t);
  return t;
}

}  // namespace fedbench::testing
