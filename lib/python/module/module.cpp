// The `fedbench` Python module: problems and their counted oracles, the registries, and the
// solver-file loader through which Python solver classes run in fedbench's engine
// (docs/python.md). It links libfedbench.so, so that inside the fedbench executable it shares
// the executable's registries.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"

PYBIND11_MODULE(fedbench, m) {
  namespace py = pybind11;
  m.doc() = "fedbench: federated minimax and bilevel problems, and Python solvers run by fedbench's engine";
  py::register_exception<fedbench::UserError>(m, "UserError", PyExc_ValueError);
  m.attr("__version__") = fedbench::fedbench_version();
  // numpy's C API, set up now, on the importing thread: pybind11 does it on first use inside a
  // function-local static whose initialisation imports numpy, which lets go of the GIL; a
  // second thread (another run of a suite) then takes the GIL and waits on the static forever.
  (void)py::array_t<double>(0);
  fedbench::python::bind_streams(m);
  fedbench::python::bind_contexts(m);
  fedbench::python::bind_setup(m);
  fedbench::python::bind_problems(m);
  fedbench::python::bind_registries(m);
  fedbench::python::bind_run(m);
  fedbench::python::install_plugin_loader();
}
