#include "arrays.hpp"

#include <cstring>
#include <string>

namespace fedbench::python {

void to_vec(py::handle value, Vec& out, const char* what) {
  using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
  Array a = Array::ensure(value);
  if (!a) {
    PyErr_Clear();
    throw py::type_error(std::string(what) + " must be a 1-D array of numbers");
  }
  if (a.ndim() != 1)
    throw py::value_error(std::string(what) + " must be 1-D, got " + std::to_string(a.ndim()) + " dimensions");
  const auto n = static_cast<Index>(a.shape(0));
  if (out.size() != n) out.resize(n);
  if (n > 0) std::memcpy(out.data(), a.data(), static_cast<std::size_t>(n) * sizeof(double));
}

py::array_t<double> copy_of(const Vec& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  if (v.size() > 0) std::memcpy(a.mutable_data(), v.data(), static_cast<std::size_t>(v.size()) * sizeof(double));
  return a;
}

py::array_t<double> view_of(Vec& v, py::handle base, bool writable) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(double))},
                        v.data(), base);
  if (!writable) py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

void to_indices(py::handle samples, std::vector<Index>& out) {
  out.clear();
  if (samples.is_none()) return;
  using Array = py::array_t<long long, py::array::c_style | py::array::forcecast>;
  Array a = Array::ensure(samples);
  if (!a || a.ndim() != 1) {
    PyErr_Clear();
    throw py::type_error("samples must be None or a 1-D sequence of component indices");
  }
  out.assign(a.data(), a.data() + a.shape(0));
}

}  // namespace fedbench::python
