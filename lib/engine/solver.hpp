// How a solver struct becomes a runnable, registered solver. A solver file defines a plain
// struct that satisfies the contract of engine/solver_contract.hpp (see
// docs/adding-a-solver.md; lib/solvers/minimax/local_seg.cpp is the shortest example) and
// ends with FEDBENCH_REGISTER_SOLVER(Type, "name", "summary", "citation"). The adapter here
// turns it into a SolverRunner whose run() instantiates the engine's round loop for that type.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/code_fingerprint.hpp"
#include "core/registry.hpp"
#include "engine/engine.hpp"
#include "engine/run_config.hpp"
#include "engine/solver_contract.hpp"
#include "engine/trajectory.hpp"
#include "problem/problem.hpp"

namespace fedbench {

//! The type-erased face of a configured solver.
class SolverRunner {
 public:
  virtual ~SolverRunner() = default;
  //! Computes theory values from the problem's constants and checks that the solver can run
  //! this problem under these settings. Throws UserError naming what is wrong.
  virtual void prepare(const Problem& problem, const RunConfig& config) = 0;
  //! Canonical parameters (after prepare: theory values filled in).
  virtual ParamMap resolved_params() const = 0;
  //! The problem constants the theory presets read during prepare, in the order asked.
  virtual const std::vector<Constant>& constants_read() const = 0;
  //! Runs to a stop condition, streaming rows to `sink`. Never throws for numerical failure:
  //! divergence and solver exceptions end the run with that status.
  virtual RunSummary run(const Problem& problem, const RunConfig& config, int threads,
                         TrajectorySink& sink, const RunMeta& meta) = 0;
};

Registry<SolverRunner>& solver_registry();

//! Turns a solver struct into a SolverRunner.
template <class S>
class SolverAdapter final : public SolverRunner {
  static_assert(check_solver_contract<S>());

 public:
  SolverAdapter(std::string name, Schema<typename S::Params> schema, typename S::Params params)
      : name_(std::move(name)), schema_(std::move(schema)), params_(std::move(params)) {}

  void prepare(const Problem& problem, const RunConfig& config) override {
    if (problem.kind() != solver_problem_kind<S>())
      throw UserError("solver " + name_ + " needs a " + kind_name(solver_problem_kind<S>()) +
                      " problem, but " + config.problem + " is " + kind_name(problem.kind()) +
                      "; see the kinds in `fedbench list problems`");
    SolverSetup setup{problem, config, "solver " + name_, &constants_read_};
    if constexpr (contract::declares_supports<S>) S::supports(params_, setup);
    if constexpr (contract::declares_resolve<S>) S::resolve(params_, setup);
    for (const auto& [key, value] : schema_.to_map(params_))
      if (value == kTheory)
        throw InternalError("solver " + name_ + " left '" + key + "' without a theory value");
  }
  ParamMap resolved_params() const override { return schema_.to_map(params_); }
  const std::vector<Constant>& constants_read() const override { return constants_read_; }
  RunSummary run(const Problem& problem, const RunConfig& config, int threads,
                 TrajectorySink& sink, const RunMeta& meta) override {
    S solver{};
    solver.p = params_;
    if constexpr (contract::declares_diagnostics<S>) {
      RunMeta with_diagnostics = meta;
      with_diagnostics.diagnostics = S::diagnostics(params_);
      return run_rounds(solver, problem, config, threads, sink, with_diagnostics);
    }
    return run_rounds(solver, problem, config, threads, sink, meta);
  }
  const typename S::Params& params() const { return params_; }

 private:
  std::string name_;
  Schema<typename S::Params> schema_;
  typename S::Params params_;
  std::vector<Constant> constants_read_;
};

template <class S>
struct SolverRegistrar {
  static_assert(check_solver_contract<S>());

  SolverRegistrar(const char* name, const char* summary, const char* citation, const char* file = nullptr) {
    // Not a structured binding: lambdas cannot capture one under clang 14.
    auto described = describe_entry<SolverRunner, S>("solver", name, summary, citation);
    RegistryEntry<SolverRunner>& e = described.first;
    e.source = source_key(file);
    const Schema<typename S::Params> schema = described.second;
    e.family = kind_name(solver_problem_kind<S>());
    e.make = [schema](const std::string& as, const ParamMap& given, const ParamMap& defaults) {
      Schema<typename S::Params> own = schema;
      own.set_owner("solver " + as);
      return std::unique_ptr<SolverRunner>(
          new SolverAdapter<S>(as, own, own.parse(given, defaults)));
    };
    e.resolve = [schema](const std::string& as, const ParamMap& given, const ParamMap& defaults) {
      Schema<typename S::Params> own = schema;
      own.set_owner("solver " + as);
      return own.to_map(own.parse(given, defaults));
    };
    solver_registry().add(std::move(e));
  }
};

struct SolverAliasRegistrar {
  SolverAliasRegistrar(const char* alias, const char* base, ParamMap defaults, const char* summary) {
    solver_registry().add_alias(alias, base, std::move(defaults), summary);
  }
};

}  // namespace fedbench

#define FEDBENCH_SOLVER_CONCAT_(a, b) a##b
#define FEDBENCH_SOLVER_CONCAT(a, b) FEDBENCH_SOLVER_CONCAT_(a, b)
//! Registers solver struct `Type` under `name`; the contract is checked at compile time.
#define FEDBENCH_REGISTER_SOLVER(Type, name, summary, citation)                    \
  static const ::fedbench::SolverRegistrar<Type> FEDBENCH_SOLVER_CONCAT(           \
      fedbench_solver_registrar_, __LINE__)(name, summary, citation, __FILE__)
//! A registered name for `base` with some defaults changed (e.g. the deterministic variant).
//! Usage: FEDBENCH_REGISTER_SOLVER_ALIAS("local-gda", "local-sgda", "summary", {"batch_size", "0"});
#define FEDBENCH_REGISTER_SOLVER_ALIAS(alias, base, summary, ...)                  \
  static const ::fedbench::SolverAliasRegistrar FEDBENCH_SOLVER_CONCAT(            \
      fedbench_solver_alias_, __LINE__)(alias, base, ::fedbench::ParamMap{__VA_ARGS__}, summary)
