#include "python_params.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/text.hpp"

namespace fedbench::python {

namespace {

const std::vector<std::pair<std::string, ParamType>> kTypes = {
    {"int", ParamType::integer}, {"real", ParamType::real}, {"bool", ParamType::boolean},
    {"text", ParamType::text},   {"choice", ParamType::choice}};

// The type a plain default stands for (bool before int: True is an int in Python).
ParamType type_of_default(py::handle value, const std::string& owner, const std::string& name) {
  if (py::isinstance<py::bool_>(value)) return ParamType::boolean;
  if (py::isinstance<py::int_>(value)) return ParamType::integer;
  if (py::isinstance<py::float_>(value)) return ParamType::real;
  if (py::isinstance<py::str>(value)) return ParamType::text;
  throw UserError(owner + ": parameter " + name + " has a default of type " +
                  std::string(py::str(value.get_type().attr("__name__"))) +
                  "; use an int, float, bool or str, or a dict {\"default\": ..., \"type\": ...}");
}

// Checks one value as a C++ Schema does and returns its canonical text.
std::string canonical(const std::string& owner, const ParamSpec& spec, const std::string& text) {
  switch (spec.type) {
    case ParamType::integer:
    case ParamType::real:
      if (spec.accepts_theory && text == kTheory) return text;
      return detail::canonical_number(spec, detail::parse_number(owner, spec, text));
    case ParamType::boolean: return detail::parse_bool(owner, spec, text) ? "true" : "false";
    case ParamType::choice: detail::check_choice(owner, spec, text); return text;
    default: return text;
  }
}

ParamSpec spec_of(const std::string& owner, const std::string& name, py::handle declared) {
  ParamSpec spec;
  spec.name = name;
  if (!py::isinstance<py::dict>(declared)) {
    spec.type = type_of_default(declared, owner, name);
    spec.default_text = canonical(owner, spec, param_text(declared));
    return spec;
  }
  const py::dict d = py::reinterpret_borrow<py::dict>(declared);
  for (const auto& [key, value] : d) {
    const std::string k = py::str(key);
    if (k != "default" && k != "type" && k != "doc" && k != "gt" && k != "ge" && k != "lt" && k != "le" &&
        k != "choices" && k != "theory")
      throw UserError(owner + ": parameter " + name + " has an unknown key '" + k +
                      "'; use default, type, doc, gt, ge, lt, le, choices, theory");
  }
  if (!d.contains("default")) throw UserError(owner + ": parameter " + name + " has no \"default\"");
  const py::handle def = d["default"];
  spec.accepts_theory = d.contains("theory") ? d["theory"].cast<bool>() : param_text(def) == kTheory;
  if (d.contains("choices")) {
    spec.type = ParamType::choice;
    for (const auto& c : d["choices"]) spec.choices.push_back(py::str(c));
  } else if (d.contains("type")) {
    const std::string t = py::str(d["type"]);
    const auto it = std::find_if(kTypes.begin(), kTypes.end(), [&](const auto& p) { return p.first == t; });
    if (it == kTypes.end()) throw UserError(owner + ": parameter " + name + " has type '" + t + "'; use int, real, bool, text or choice");
    spec.type = it->second;
  } else {
    spec.type = type_of_default(def, owner, name);
  }
  if (spec.accepts_theory && spec.type != ParamType::integer && spec.type != ParamType::real)
    throw UserError(owner + ": parameter " + name + " accepts 'theory' but is not an int or a real");
  if (d.contains("doc")) spec.doc = py::str(d["doc"]);
  auto bound = [&](const char* key) -> std::optional<double> {
    if (!d.contains(key)) return std::nullopt;
    return d[key].cast<double>();
  };
  spec.bounds = Bounds{bound("gt"), bound("ge"), bound("lt"), bound("le")};
  spec.default_text = canonical(owner, spec, param_text(def));
  return spec;
}

}  // namespace

std::string param_text(py::handle value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::float_>(value)) return format_real(value.cast<double>());
  return py::str(value);
}

ParamMap param_texts(py::handle values) {
  ParamMap out;
  if (values.is_none()) return out;
  for (const auto& [key, value] : py::cast<py::dict>(values)) out[py::str(key)] = param_text(value);
  return out;
}

PythonParams PythonParams::declared(py::handle params, const std::string& owner) {
  PythonParams out;
  if (params.is_none()) return out;
  if (!py::isinstance<py::dict>(params))
    throw UserError(owner + ": `params` must be a dict of parameter name -> default");
  for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(params)) {
    if (!py::isinstance<py::str>(key)) throw UserError(owner + ": parameter names must be strings");
    out.specs.push_back(spec_of(owner, key.cast<std::string>(), value));
  }
  return out;
}

ParamMap PythonParams::resolve(const std::string& owner, const ParamMap& given, const ParamMap& defaults) const {
  for (const auto& [key, value] : given)
    if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; }))
      detail::unknown_parameter(owner, key, specs);
  ParamMap out;
  for (const auto& spec : specs) {
    std::string text = spec.default_text;
    if (const auto d = defaults.find(spec.name); d != defaults.end()) text = d->second;
    if (const auto g = given.find(spec.name); g != given.end()) text = g->second;
    out[spec.name] = canonical(owner, spec, text);
  }
  return out;
}

py::object PythonParams::namespace_of(const ParamMap& canonical_values) const {
  py::dict values;
  for (const auto& spec : specs) {
    const std::string& text = canonical_values.at(spec.name);
    py::object v;
    if (text == kTheory && spec.accepts_theory) v = py::none();
    else if (spec.type == ParamType::integer) v = py::int_(std::stoll(text));
    else if (spec.type == ParamType::real) v = py::float_(std::stod(text));
    else if (spec.type == ParamType::boolean) v = py::bool_(text == "true");
    else v = py::str(text);
    values[py::str(spec.name)] = v;
  }
  return py::module_::import("types").attr("SimpleNamespace")(**values);
}

ParamMap PythonParams::canonical_of(const std::string& owner, py::handle ns) const {
  ParamMap out;
  for (const auto& spec : specs) {
    const py::object v = ns.attr(spec.name.c_str());
    out[spec.name] = v.is_none() && spec.accepts_theory ? kTheory : canonical(owner, spec, param_text(v));
  }
  return out;
}

}  // namespace fedbench::python
