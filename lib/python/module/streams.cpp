// fedbench's counter-based streams (core/random.hpp) in Python: the same draws in the same
// order as a C++ solver gets from ctx.stream(purpose, step).
#include <pybind11/numpy.h>

#include <string>

#include "bindings.hpp"
#include "core/random.hpp"

namespace fedbench::python {

namespace {

// `size` draws of `draw` in stream order, as an array.
template <class Draw>
py::array_t<double> draws(Stream& s, py::ssize_t size, Draw draw) {
  if (size < 0) throw py::value_error("size must be >= 0");
  py::array_t<double> out(size);
  double* data = out.mutable_data();
  for (py::ssize_t k = 0; k < size; ++k) data[k] = draw(s);
  return out;
}

}  // namespace

void bind_streams(py::module_& m) {
  py::class_<Stream>(m, "Stream",
                     "A random stream keyed by (seed, purpose, client, round, step); get one from "
                     "client.stream(purpose, step) or server.stream(purpose, step)")
      .def(py::init([](std::uint64_t seed, const std::string& purpose, std::int64_t client,
                       std::int64_t round, std::int64_t step) { return Stream(seed, purpose, client, round, step); }),
           py::arg("seed"), py::arg("purpose"), py::arg("client") = -1, py::arg("round") = 0, py::arg("step") = 0)
      .def("next_u64", &Stream::next_u64, "the next raw 64-bit value")
      .def("uniform", py::overload_cast<>(&Stream::uniform), "uniform on [0, 1)")
      .def("uniform", py::overload_cast<double, double>(&Stream::uniform), py::arg("lo"), py::arg("hi"),
           "uniform on [lo, hi)")
      .def("uniform_open0", &Stream::uniform_open0, "uniform on (0, 1]")
      .def("below", &Stream::below, py::arg("n"), "uniform integer in [0, n)")
      .def("bernoulli", &Stream::bernoulli, py::arg("p"))
      .def("geometric", &Stream::geometric, py::arg("p"), "trials up to and including the first success")
      .def("normal", &Stream::normal, "standard normal (Box-Muller; two uniforms per draw)")
      .def("uniforms", [](Stream& s, py::ssize_t size) { return draws(s, size, [](Stream& t) { return t.uniform(); }); },
           py::arg("size"), "`size` uniforms on [0, 1), in stream order")
      .def("normals", [](Stream& s, py::ssize_t size) { return draws(s, size, [](Stream& t) { return t.normal(); }); },
           py::arg("size"), "`size` standard normals, in stream order");
}

}  // namespace fedbench::python
