// The registry entry of a Python solver class: its SolverRunner checks the problem family,
// runs the class's optional `resolve` (theory values from problem constants), and runs
// PythonSolver through the engine's round loop, as SolverAdapter does for C++ solvers.
#pragma once
#include <memory>

#include "engine/solver.hpp"
#include "python_solver.hpp"

namespace fedbench::python {

//! The entry for `cls` (plugin origin: the one loading now).
RegistryEntry<SolverRunner> solver_entry(std::shared_ptr<const PythonSolverClass> cls, const std::string& summary,
                                         const std::string& citation, int version);

}  // namespace fedbench::python
