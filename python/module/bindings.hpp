// The parts of the `fedbench` module, each bound by its own file (module.cpp calls them).
#pragma once
#include <pybind11/pybind11.h>

namespace fedbench::python {

namespace py = pybind11;

void bind_streams(py::module_& m);   // streams.cpp: Stream
void bind_contexts(py::module_& m);  // contexts.cpp: what solver hooks receive
void bind_problems(py::module_& m);  // problems.cpp: problems and their counted oracles
void bind_plugins(py::module_& m);   // plugin_file.cpp: loading solver files, listing the registries
void bind_run(py::module_& m);      // run.cpp: fedbench.run(...)
void bind_setup(py::module_& m);     // python_runner.cpp: what a solver's resolve() reads

}  // namespace fedbench::python
