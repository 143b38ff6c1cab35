// Helpers for tests that run solvers: build a registered problem once, run any registered
// solver on it through the same path as the CLI (prepare_run / execute), in memory.
#pragma once
#include <memory>
#include <stdexcept>
#include <vector>
#include <string>

#include "engine/conformance.hpp"
#include "engine/runner.hpp"
#include "engine/solver.hpp"
#include "problem/bilevel_problem.hpp"
#include "problem/minimax_problem.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::testing {

//! make_problem for a minimax problem (throws if `name` is of another kind).
inline std::unique_ptr<MinimaxProblem> make_minimax(const std::string& name, const ParamMap& params = {}) {
  auto p = make_problem(name, params);
  auto* m = dynamic_cast<MinimaxProblem*>(p.get());
  if (!m) throw std::logic_error(name + " is not a minimax problem");
  p.release();
  return std::unique_ptr<MinimaxProblem>(m);
}

//! A registered minimax problem (throws if `name` is of another kind).
inline std::shared_ptr<const MinimaxProblem> problem(const std::string& name,
                                                     const ParamMap& params = {}) {
  auto p = std::dynamic_pointer_cast<const MinimaxProblem>(
      std::shared_ptr<const Problem>(make_problem(name, params)));
  if (!p) throw std::logic_error(name + " is not a minimax problem");
  return p;
}
//! A registered bilevel problem (throws if `name` is of another kind).
inline std::shared_ptr<const BilevelProblem> bilevel_problem(const std::string& name,
                                                            const ParamMap& params = {}) {
  auto p = std::dynamic_pointer_cast<const BilevelProblem>(
      std::shared_ptr<const Problem>(make_problem(name, params)));
  if (!p) throw std::logic_error(name + " is not a bilevel problem");
  return p;
}

//! Registered solver names of one family ("minimax" or "bilevel").
inline std::vector<std::string> solvers_of(const std::string& family) {
  std::vector<std::string> out;
  for (const auto& name : solver_registry().names())
    if (solver_registry().get(name).family == family) out.push_back(name);
  return out;
}

struct RunSpec {
  std::string solver;
  ParamMap solver_params;
  std::int64_t rounds = 20;
  int threads = 1;
  std::string participation = "full";
  std::uint64_t seed = 7;
  std::int64_t eval_every = 1;
  bool scratch_per_client = false;  //!< RunConfig::scratch_per_client
  CoreShare* core_share = nullptr;  //!< spare cores the run may grow into, as in a suite
  TrajectorySink* also = nullptr;   //!< sees the rows too, before they are kept
};

//! Prepares and executes a request (any budget, target included) on one thread.
inline MemoryTrajectory run_request(const RunRequest& req, const std::shared_ptr<const Problem>& p) {
  return run_in_memory(req, p);
}

inline MemoryTrajectory run(const std::shared_ptr<const Problem>& p,
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
  return run_in_memory(req, p, {spec.threads, spec.scratch_per_client, spec.core_share, spec.also});
}

}  // namespace fedbench::testing
