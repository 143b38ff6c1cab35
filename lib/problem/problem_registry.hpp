// The problem registry. A problem file ends with
//   FEDBENCH_REGISTER_PROBLEM(QuadraticGame, "quadratic-game", "one-line summary", "citation");
// where QuadraticGame has a nested `Params` struct, `static void declare(Schema<Params>&)`,
// `static constexpr const char* kObjective` (the exact objective, written out) and a
// constructor QuadraticGame(const Params&). A problem whose metrics cost far more than a
// round declares `static constexpr bool kExpensiveMetrics = true;` (bilevel problems do by
// default): runs that choose no evaluation schedule then evaluate at log-spaced rounds.
#pragma once
#include <concepts>
#include <type_traits>

#include "core/code_fingerprint.hpp"
#include "core/data_provenance.hpp"
#include "core/registry.hpp"
#include "problem/bilevel_problem.hpp"
#include "problem/minimax_problem.hpp"

namespace fedbench {

Registry<Problem>& problem_registry();

//! Creates a problem from its name and user-given parameters (throws UserError).
std::unique_ptr<Problem> make_problem(const std::string& name, const ParamMap& given);
//! The canonical resolved parameters of a problem (defaults filled in, canonical numbers).
ParamMap resolve_problem_params(const std::string& name, const ParamMap& given);

//! Compile-time check of a problem class, one message per broken part. Its virtual hooks are
//! checked by the compiler: every override says `override`, and a hook with a wrong
//! signature hides the family's virtual, both errors under the project's flags
//! (-Werror=suggest-override -Werror=overloaded-virtual).
template <class P>
constexpr bool check_problem_contract() {
  static_assert(std::is_base_of_v<MinimaxProblem, P> != std::is_base_of_v<BilevelProblem, P>,
                "problem: derive from exactly one family, MinimaxProblem or BilevelProblem");
  static_assert(requires { typename P::Params; }, "problem: needs a nested `struct Params`");
  if constexpr (requires { typename P::Params; }) {
    static_assert(requires(Schema<typename P::Params>& s) { P::declare(s); },
                  "problem: needs `static void declare(Schema<Params>& s)`");
    static_assert(std::is_constructible_v<P, const typename P::Params&>,
                  "problem: needs a constructor `explicit P(const Params&)`");
  }
  static_assert(!std::is_abstract_v<P>,
                "problem: does not implement every pure virtual hook of its family (the `= 0` "
                "methods of problem/minimax_problem.hpp or problem/bilevel_problem.hpp, and "
                "problem_class)");
  return true;
}

template <class P>
struct ProblemRegistrar {
  static_assert(check_problem_contract<P>());

  ProblemRegistrar(const char* name, const char* summary, const char* citation, const char* file = nullptr) {
    // Not a structured binding: lambdas cannot capture one under clang 14.
    auto described = describe_entry<Problem, P>("problem", name, summary, citation);
    RegistryEntry<Problem>& e = described.first;
    e.source = source_key(file);
    const Schema<typename P::Params> schema = described.second;
    e.family = std::is_base_of_v<BilevelProblem, P> ? "bilevel" : "minimax";
    // Every registered problem states it (a unit test checks that none is missing).
    if constexpr (requires { P::kObjective; }) e.objective = P::kObjective;
    if constexpr (requires { P::kExpensiveMetrics; }) e.expensive_metrics = P::kExpensiveMetrics;
    else e.expensive_metrics = std::is_base_of_v<BilevelProblem, P>;
    e.make = [schema](const std::string&, const ParamMap& given, const ParamMap& defaults) {
      const DataFileScope data;  // the files the instance reads, recorded with every run
      std::unique_ptr<Problem> problem(new P(schema.parse(given, defaults)));
      problem->data_files_ = data.files();
      return problem;
    };
    e.resolve = [schema](const std::string&, const ParamMap& given, const ParamMap& defaults) {
      return schema.to_map(schema.parse(given, defaults));
    };
    problem_registry().add(std::move(e));
  }
};

}  // namespace fedbench

#define FEDBENCH_PROBLEM_CONCAT_(a, b) a##b
#define FEDBENCH_PROBLEM_CONCAT(a, b) FEDBENCH_PROBLEM_CONCAT_(a, b)
#define FEDBENCH_REGISTER_PROBLEM(Type, name, summary, citation)                     \
  static const ::fedbench::ProblemRegistrar<Type> FEDBENCH_PROBLEM_CONCAT(          \
      fedbench_problem_registrar_, __LINE__)(name, summary, citation, __FILE__)
