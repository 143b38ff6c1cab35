// The type-erased face of a configured solver, and its registry. A solver file defines a
// plain struct (see lib/solvers/proxskip_vip_fl.cpp and docs/adding-a-solver.md) and ends
// with FEDBENCH_REGISTER_SOLVER(Type, "name", "summary", "citation"); the adapter here
// turns it into a SolverRunner whose run() instantiates the engine's round loop for that type.
#pragma once
#include <memory>
#include <string>

#include "core/registry.hpp"
#include "engine/run_config.hpp"
#include "engine/trajectory.hpp"
#include "problem/problem.hpp"

namespace fedbench {

class SolverRunner {
 public:
  virtual ~SolverRunner() = default;
  //! Computes theory values from the problem's constants and checks that the solver can run
  //! this problem under these settings. Throws UserError naming what is wrong.
  virtual void prepare(const Problem& problem, const RunConfig& config) = 0;
  //! Canonical parameters (after prepare: theory values filled in).
  virtual ParamMap resolved_params() const = 0;
  //! Runs to a stop condition, streaming rows to `sink`. Never throws for numerical failure:
  //! divergence and solver exceptions end the run with that status.
  virtual RunSummary run(const Problem& problem, const RunConfig& config, int threads,
                         TrajectorySink& sink, const std::string& command_line) = 0;
};

Registry<SolverRunner>& solver_registry();

}  // namespace fedbench
