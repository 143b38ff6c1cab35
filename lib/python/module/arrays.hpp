// Conversions between numpy arrays and the engine's Eigen vectors.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "core/types.hpp"

namespace fedbench::python {

namespace py = pybind11;

//! Copies a 1-D array-like of numbers into `out` (resized only when the length differs, so a
//! round reuses its buffers). `what` names the value in errors.
void to_vec(py::handle value, Vec& out, const char* what);
//! A new float64 array holding a copy of `v`.
py::array_t<double> copy_of(const Vec& v);
//! An array over v's memory (no copy), valid while v is; read-only unless `writable`.
py::array_t<double> view_of(Vec& v, py::handle base, bool writable);
//! Component indices: None or an empty sequence is the full local batch.
void to_indices(py::handle samples, std::vector<Index>& out);

}  // namespace fedbench::python
