#include "problem/problem_registry.hpp"

namespace fedbench {

Registry<MinimaxProblem>& problem_registry() {
  static Registry<MinimaxProblem> registry("problem");
  return registry;
}

std::unique_ptr<MinimaxProblem> make_problem(const std::string& name, const ParamMap& given) {
  return problem_registry().get(name).create(given);
}

ParamMap resolve_problem_params(const std::string& name, const ParamMap& given) {
  return problem_registry().get(name).resolved(given);
}

}  // namespace fedbench
