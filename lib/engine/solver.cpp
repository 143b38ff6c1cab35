#include "engine/solver.hpp"

namespace fedbench {

Registry<SolverRunner>& solver_registry() {
  static Registry<SolverRunner> registry("solver");
  return registry;
}

}  // namespace fedbench
