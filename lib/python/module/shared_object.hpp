// Python objects held by C++ code that runs without the GIL (registry entries, engine-owned
// client state, a run's solver instance): the last owner takes the GIL to let go of the
// object. Once the interpreter is gone (a plain python3 exiting before the core's static
// registries are destroyed) the reference is left behind instead.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>

namespace fedbench::python {

namespace py = pybind11;

using SharedObject = std::shared_ptr<py::object>;

//! Takes `object` over (call with the GIL held).
inline SharedObject share(py::object object) {
  return SharedObject(new py::object(std::move(object)), [](py::object* o) {
    if (Py_IsInitialized()) {
      const py::gil_scoped_acquire gil;
      delete o;
    } else {
      o->release();
      delete o;
    }
  });
}

}  // namespace fedbench::python
