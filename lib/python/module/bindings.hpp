// The parts of the `fedbench` module, each bound by its own file (module.cpp calls them).
#pragma once
#include <pybind11/pybind11.h>

namespace fedbench::python {

namespace py = pybind11;

void bind_streams(py::module_& m);     // streams.cpp: Stream
void bind_contexts(py::module_& m);    // contexts.cpp: what solver hooks receive
void bind_problems(py::module_& m);    // problems.cpp: problems and their counted oracles
void bind_registries(py::module_& m);  // registries.cpp: list, describe, load_plugin
void bind_run(py::module_& m);         // run.cpp: fedbench.run(...)
void bind_setup(py::module_& m);       // python_runner.cpp: what a solver's resolve() reads

//! plugin_file.cpp: makes the core load .py plug-ins through this module.
void install_plugin_loader();

}  // namespace fedbench::python
