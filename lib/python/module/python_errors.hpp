// Python exceptions as one line of text: "TypeError: message (solver.py:12)". A hook's
// exception becomes a std::runtime_error holding that line, so that nothing Python-owned
// crosses into engine threads that do not hold the GIL.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

namespace fedbench::python {

//! The exception's type, message and innermost file:line (GIL held).
std::string one_line(pybind11::error_already_set& e);

}  // namespace fedbench::python
