// The registries from Python: listing and describing solvers and problems, loading plug-ins.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "engine/solver.hpp"
#include "plugin/plugin_loader.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::python {

namespace {

template <class Product>
py::dict describe(const RegistryEntry<Product>& e) {
  py::dict params;
  for (const auto& s : e.params) {
    if (s.type == ParamType::alias) continue;
    params[py::str(s.name)] = py::dict(py::arg("type") = s.type_name(), py::arg("default") = e.default_of(s),
                                       py::arg("doc") = s.doc, py::arg("constraint") = s.constraint_text());
  }
  return py::dict(py::arg("name") = e.name, py::arg("summary") = e.summary, py::arg("citation") = e.citation,
                  py::arg("family") = e.family, py::arg("params") = params,
                  py::arg("plugin") = e.plugin ? e.plugin->describe() : std::string());
}

}  // namespace

void bind_registries(py::module_& m) {
  m.def("load_plugin", [](const std::string& path) { load_plugin(path); }, py::arg("path"),
        "load a plug-in (a Python solver file or a .so) into this process's registries");
  m.def("list_solvers", [] { return solver_registry().names(); });
  m.def("list_problems", [] { return problem_registry().names(); });
  m.def("describe_solver", [](const std::string& name) { return describe(solver_registry().get(name)); }, py::arg("name"));
  m.def("describe_problem", [](const std::string& name) { return describe(problem_registry().get(name)); }, py::arg("name"));
}

}  // namespace fedbench::python
