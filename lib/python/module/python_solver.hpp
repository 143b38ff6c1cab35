// A solver class written in Python, run by the engine's round loop like a C++ solver: the
// engine samples, counts oracle calls and message sizes, draws streams, evaluates and writes
// files; PythonSolver only turns each hook into a call of the Python class's method, under the
// GIL. Messages carry the fields the class declares (`down`, `up`): a vector counts its length
// in floats, a number one float, None nothing (engine/message.hpp).
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/params.hpp"
#include "engine/context.hpp"
#include "python_params.hpp"
#include "shared_object.hpp"

namespace fedbench::python {

//! A registered Python solver class: what its declarations said, read once at load time.
struct PythonSolverClass {
  std::string name;
  ProblemKind kind = ProblemKind::minimax;
  PythonParams params;
  std::vector<std::string> down, up;  //!< message fields, in order
  int phases = 1;
  bool same_clients_every_phase = false;
  bool has_init = false, has_init_client = false, has_resolve = false;
  SharedObject cls;
};

//! One message: the declared fields in order. Vectors and numbers are listed by fields(), so
//! the engine counts them; `kinds` is bookkeeping, not sent.
struct Message {
  enum Kind : signed char { absent, vector, number };
  std::vector<Vec> vectors;     //!< one per field (empty unless it is a vector)
  std::vector<double> numbers;  //!< the number fields' values, in field order
  std::vector<Kind> kinds;      //!< per field
  auto fields() const { return std::tie(vectors, numbers); }
};

struct PythonSolver {
  struct Params {
    std::shared_ptr<const PythonSolverClass> cls;
    ParamMap values;  //!< canonical, theory values filled in
  };
  // The parameters are the Python class's (PythonParams); nothing to declare to a Schema.
  static void declare(Schema<Params>&) {}
  Params p;
  using Down = Message;
  using Up = Message;
  // Lasting per-client state (a types.SimpleNamespace): never scratch, kScratchClient stays
  // false (the default).
  struct Client {
    SharedObject state;
  };

  void init(ServerCtx& s);
  void init_client(ClientCtx& c, Client& st);
  int phases() const { return p.cls->phases; }
  bool same_clients_every_phase() const { return p.cls->same_clients_every_phase; }
  void server_begin(ServerCtx& s, Down& d);
  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const;
  void server_end(ServerCtx& s, std::span<const Up> uploads);

 private:
  SharedObject instance_;   //!< the run's instance of the class
  SharedObject down_view_;  //!< this phase's Down as clients see it (read-only)
};

}  // namespace fedbench::python
