#include "problem/problem_registry.hpp"

namespace fedbench {

Registry<Problem>& problem_registry() {
  static Registry<Problem> registry("problem");
  return registry;
}

std::unique_ptr<Problem> make_problem(const std::string& name, const ParamMap& given) {
  return problem_registry().get(name).create(given);
}

ParamMap resolve_problem_params(const std::string& name, const ParamMap& given) {
  return problem_registry().get(name).resolved(given);
}

}  // namespace fedbench
