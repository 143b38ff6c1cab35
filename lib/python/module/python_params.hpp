// A Python solver's parameters, declared by its class attribute `params`
// ({"local_steps": 20, "step_size": {"default": "theory", "type": "real", "gt": 0}, ...}),
// turned into the ParamSpecs every registry entry has, and parsed and canonicalised by the
// same rules as a C++ Schema (core/params.hpp): `describe`, -s, suite grids and run identities
// treat them alike.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "core/params.hpp"

namespace fedbench::python {

namespace py = pybind11;

struct PythonParams {
  std::vector<ParamSpec> specs;

  //! Reads the class attribute (GIL held); throws UserError naming `owner` and the parameter.
  static PythonParams declared(py::handle params, const std::string& owner);
  //! Canonical text of every parameter: defaults, then an alias's `defaults`, then `given`.
  ParamMap resolve(const std::string& owner, const ParamMap& given, const ParamMap& defaults) const;
  //! The values as Python objects in a types.SimpleNamespace (`theory` is None).
  py::object namespace_of(const ParamMap& canonical) const;
  //! Canonical text of the values in `ns` (after the solver's resolve filled in theory ones).
  ParamMap canonical_of(const std::string& owner, py::handle ns) const;
};

//! A Python value as the text -s / -p take (floats at full precision, bools true/false).
std::string param_text(py::handle value);
//! A dict of Python values (or None: empty) as such texts.
ParamMap param_texts(py::handle values);

}  // namespace fedbench::python
