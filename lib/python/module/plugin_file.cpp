// Loading a Python solver file: import it, read its `fedbench_plugin` declaration and each
// solver class's declarations, and register the classes under the file's plug-in origin
// (core/plugin_origin.hpp), so that run files record the file and fingerprint it.
#include <pybind11/stl.h>

#include <cctype>
#include <filesystem>

#include "bindings.hpp"
#include "engine/solver.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/python_plugin.hpp"
#include "python_errors.hpp"
#include "python_runner.hpp"

namespace fedbench::python {

namespace {

std::string text_attr(py::handle obj, const char* name, const std::string& fallback, const std::string& who) {
  if (!py::hasattr(obj, name)) {
    if (fallback.empty()) throw UserError(who + " has no `" + name + "`");
    return fallback;
  }
  const py::object v = obj.attr(name);
  if (!py::isinstance<py::str>(v)) throw UserError(who + ": `" + name + "` must be a string");
  return v.cast<std::string>();
}

std::vector<std::string> fields_attr(py::handle cls, const char* name, const std::string& who) {
  if (!py::hasattr(cls, name)) return {"model"};
  std::vector<std::string> out;
  const py::object v = cls.attr(name);
  if (py::isinstance<py::str>(v)) throw UserError(who + ": `" + name + "` must be a tuple of field names, e.g. (\"model\",)");
  for (const auto& f : v) {
    if (!py::isinstance<py::str>(f)) throw UserError(who + ": `" + name + "` must list field names (strings)");
    out.push_back(f.cast<std::string>());
  }
  return out;
}

bool callable_attr(py::handle cls, const char* name) {
  return py::hasattr(cls, name) && PyCallable_Check(cls.attr(name).ptr());
}

// One solver class's declarations; `where` is "plug-in PATH".
std::pair<std::shared_ptr<PythonSolverClass>, RegistryEntry<SolverRunner>> read_class(py::handle cls,
                                                                                      const std::string& where) {
  if (!PyType_Check(cls.ptr())) throw UserError(where + ": `solvers` must list classes");
  const std::string who = where + ", class " + std::string(py::str(cls.attr("__name__")));
  auto c = std::make_shared<PythonSolverClass>();
  c->name = text_attr(cls, "name", "", who);
  if (c->name.empty() || std::any_of(c->name.begin(), c->name.end(), [](unsigned char ch) { return std::isspace(ch); }))
    throw UserError(who + ": `name` must be a registry name without spaces");
  const std::string family = text_attr(cls, "family", "minimax", who);
  if (family != "minimax" && family != "bilevel") throw UserError(who + ": `family` must be \"minimax\" or \"bilevel\"");
  c->kind = family == "bilevel" ? ProblemKind::bilevel : ProblemKind::minimax;
  c->params = PythonParams::declared(py::getattr(cls, "params", py::none()), "solver " + c->name);
  c->down = fields_attr(cls, "down", who);
  c->up = fields_attr(cls, "up", who);
  for (const char* hook : {"server_begin", "client_round", "server_end"})
    if (!callable_attr(cls, hook)) throw UserError(who + " has no method `" + hook + "`");
  c->has_init = callable_attr(cls, "init");
  c->has_init_client = callable_attr(cls, "init_client");
  c->has_resolve = callable_attr(cls, "resolve");
  c->phases = py::getattr(cls, "phases", py::int_(1)).cast<int>();
  if (c->phases < 1) throw UserError(who + ": `phases` must be >= 1");
  c->same_clients_every_phase = py::getattr(cls, "same_clients_every_phase", py::bool_(false)).cast<bool>();
  const int version = py::getattr(cls, "version", py::int_(1)).cast<int>();
  c->cls = share(py::reinterpret_borrow<py::object>(cls));
  auto entry = solver_entry(c, text_attr(cls, "summary", "", who), text_attr(cls, "citation", "-", who), version);
  return {c, std::move(entry)};
}

// A module name of its own for each file (two files named solver.py may both be loaded).
std::string module_name(const std::string& path) {
  std::string name = "fedbench_plugin_";
  for (unsigned char ch : std::filesystem::path(path).stem().string()) name += std::isalnum(ch) ? static_cast<char>(ch) : '_';
  const py::dict modules = py::module_::import("sys").attr("modules");
  std::string unique = name;
  for (int k = 2; modules.contains(unique); ++k) unique = name + "_" + std::to_string(k);
  return unique;
}

py::object import_file(const std::string& path) {
  const py::module_ util = py::module_::import("importlib.util");
  const std::string name = module_name(path);
  const py::object spec = util.attr("spec_from_file_location")(name, path);
  if (spec.is_none()) throw UserError("plug-in " + path + ": Python cannot import it; give a .py file");
  py::object module = util.attr("module_from_spec")(spec);
  const py::dict modules = py::module_::import("sys").attr("modules");
  modules[py::str(name)] = module;  // while it runs: dataclasses and pickling look it up there
  // Helper modules beside the file import as in a script run from there (after the standard
  // library and installed packages, so that they cannot shadow those).
  const std::string dir = std::filesystem::path(path).parent_path().string();
  py::list sys_path = py::module_::import("sys").attr("path");
  if (!sys_path.contains(dir)) sys_path.append(dir);
  try {
    spec.attr("loader").attr("exec_module")(module);
  } catch (...) {
    PyDict_DelItemString(modules.ptr(), name.c_str());
    throw;
  }
  return module;
}

void load(const PluginOrigin& file) {
  const std::string where = "plug-in " + file.path;
  const py::object module = import_file(file.path);
  const py::object declared = py::getattr(module, "fedbench_plugin", py::none());
  if (!py::isinstance<py::dict>(declared))
    throw UserError(where + ": not a fedbench solver file (it defines no fedbench_plugin = {\"name\": ..., "
                    "\"version\": ..., \"solvers\": [...]}; see docs/python.md)");
  const py::dict d = declared;
  auto origin = std::make_shared<PluginOrigin>(file);
  origin->name = d.contains("name") ? std::string(py::str(d["name"])) : std::filesystem::path(file.path).stem().string();
  origin->version = d.contains("version") ? std::string(py::str(d["version"])) : "0";
  if (!d.contains("solvers") || py::len(d["solvers"]) == 0)
    throw UserError(where + ": fedbench_plugin lists no \"solvers\"");
  const LoadingPluginScope scope(origin);
  std::vector<RegistryEntry<SolverRunner>> entries;
  std::vector<std::string> names;
  for (const auto& cls : d["solvers"]) {
    auto [c, entry] = read_class(cls, where);
    if (std::find(names.begin(), names.end(), c->name) != names.end())
      throw UserError(where + ": two classes are named '" + c->name + "'");
    if (solver_registry().contains(c->name)) {
      const auto& other = solver_registry().get(c->name).plugin;
      throw UserError(where + ": solver '" + c->name + "' is already registered by " +
                      (other ? "plug-in " + other->describe() : std::string("fedbench")) + "; rename it in the plug-in");
    }
    names.push_back(c->name);
    entries.push_back(std::move(entry));
  }
  for (auto& e : entries) solver_registry().add(std::move(e));
  note_loaded_plugin(origin);
}

// The loader the core calls for a .py plug-in (plugin/python_plugin.hpp).
std::string load_file(const PluginOrigin& origin) {
  const py::gil_scoped_acquire gil;
  try {
    load(origin);
    return "";
  } catch (py::error_already_set& e) {
    return "plug-in " + origin.path + ": " + one_line(e);
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

void install_plugin_loader() { set_python_plugin_loader(&load_file); }

}  // namespace fedbench::python
