#include "python_solver.hpp"

#include <pybind11/numpy.h>

#include <stdexcept>

#include "arrays.hpp"
#include "contexts.hpp"
#include "engine/solver_contract.hpp"
#include "python_errors.hpp"

namespace fedbench::python {

static_assert(check_solver_contract<PythonSolver>());
// Client state lasts from round to round: the engine keeps one per client.
static_assert(!solver_client_is_scratch<PythonSolver>());

namespace {

// Runs one hook under the GIL; a Python exception ends the run (the engine records status
// "error") with "solver NAME, HOOK: Type: message (file:line)".
template <class Body>
void in_python(const PythonSolverClass& cls, const char* hook, Body body) {
  const py::gil_scoped_acquire gil;
  try {
    body();
  } catch (py::error_already_set& e) {
    throw std::runtime_error("solver " + cls.name + ", " + hook + ": " + one_line(e));
  } catch (const py::builtin_exception& e) {
    throw std::runtime_error("solver " + cls.name + ", " + hook + ": " + e.what());
  }
}

// Detaches a view when its hook ends, also by an exception.
struct Detached {
  py::handle view;
  ~Detached() { detach(view); }
};

bool is_number(py::handle v) {
  if (PyFloat_Check(v.ptr()) || (PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr()))) return true;
  // A handle, never released: a static py::object would be released after the interpreter.
  static const py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
  return py::isinstance(v, generic);
}

// The dict a hook filled in, into `m`; only declared fields may be set, and every one must be
// (None: not sent), so that nothing travels uncounted.
void fill(const py::dict& values, const std::vector<std::string>& fields, Message& m, const char* side) {
  const std::size_t n = fields.size();
  m.vectors.resize(n);
  m.kinds.resize(n);
  m.numbers.clear();
  for (const auto& [key, value] : values) {
    const std::string k = py::str(key);
    if (std::find(fields.begin(), fields.end(), k) == fields.end())
      throw py::key_error(std::string(side) + "['" + k + "'] is not a declared field; add it to the class's `" +
                          side + "` tuple");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::string what = std::string(side) + "['" + fields[i] + "']";
    if (!values.contains(fields[i])) throw py::key_error(what + " was not set (None: not sent)");
    const py::handle v = values[py::str(fields[i])];
    if (v.is_none()) {
      m.kinds[i] = Message::absent;
      m.vectors[i].resize(0);
    } else if (is_number(v)) {
      m.kinds[i] = Message::number;
      m.vectors[i].resize(0);
      m.numbers.push_back(v.cast<double>());
    } else {
      m.kinds[i] = Message::vector;
      to_vec(v, m.vectors[i], what.c_str());
    }
  }
}

// A message as a dict of read-only arrays and floats (valid while the message is).
py::dict view(const Message& m, const std::vector<std::string>& fields) {
  py::dict out;
  std::size_t number = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    py::object v = py::none();
    if (m.kinds[i] == Message::number) v = py::float_(m.numbers[number++]);
    if (m.kinds[i] == Message::vector) v = view_of(const_cast<Vec&>(m.vectors[i]), py::none(), false);
    out[py::str(fields[i])] = v;
  }
  return out;
}

}  // namespace

void PythonSolver::init(ServerCtx& s) {
  const PythonSolverClass& cls = *p.cls;
  in_python(cls, "__init__", [&] {
    py::object instance = (*cls.cls)();
    instance.attr("p") = cls.params.namespace_of(p.values);
    instance_ = share(instance);
  });
  if (cls.has_init)
    in_python(cls, "init", [&] {
      py::object server = server_view(s);
      const Detached d{server};
      instance_->attr("init")(server);
    });
}

void PythonSolver::init_client(ClientCtx& c, Client& st) {
  const PythonSolverClass& cls = *p.cls;
  in_python(cls, "init_client", [&] {
    st.state = share(py::module_::import("types").attr("SimpleNamespace")());
    if (!cls.has_init_client) return;
    py::object client = client_view(c, cls.kind);
    const Detached d{client};
    instance_->attr("init_client")(client, *st.state);
  });
}

void PythonSolver::server_begin(ServerCtx& s, Down& d) {
  const PythonSolverClass& cls = *p.cls;
  in_python(cls, "server_begin", [&] {
    py::object server = server_view(s);
    const Detached detached{server};
    py::dict values;
    instance_->attr("server_begin")(server, values);
    fill(values, cls.down, d, "down");
    // One read-only view for every client of the phase: none can change what another sees.
    down_view_ = share(py::module_::import("types").attr("MappingProxyType")(view(d, cls.down)));
  });
}

void PythonSolver::client_round(ClientCtx& c, Client& st, const Down&, Up& up) const {
  const PythonSolverClass& cls = *p.cls;
  in_python(cls, "client_round", [&] {
    py::object client = client_view(c, cls.kind);
    const Detached detached{client};
    py::dict values;
    instance_->attr("client_round")(client, *st.state, *down_view_, values);
    fill(values, cls.up, up, "up");
  });
}

void PythonSolver::server_end(ServerCtx& s, std::span<const Up> uploads) {
  const PythonSolverClass& cls = *p.cls;
  in_python(cls, "server_end", [&] {
    py::object server = server_view(s);
    const Detached detached{server};
    py::list list;
    for (const Up& u : uploads) list.append(view(u, cls.up));
    instance_->attr("server_end")(server, list);
  });
}

}  // namespace fedbench::python
