// What a Python solver's hooks receive: `client` and `server`, thin views of the engine's
// ClientCtx and ServerCtx. A view is valid during the hook it was passed to; the engine
// detaches it afterwards, so a view kept past its hook raises instead of reading freed state.
#pragma once
#include <pybind11/pybind11.h>

#include <vector>

#include "engine/context.hpp"

namespace fedbench::python {

namespace py = pybind11;

struct ClientView {
  ClientCtx* ctx = nullptr;
  ProblemKind kind = ProblemKind::minimax;  // the solver's family: which oracles it may call
  Vec z, v, out;              // scratch of the oracle calls
  std::vector<Index> samples;  // scratch of the *_on calls

  ClientCtx& get() const;
};

struct ServerView {
  ServerCtx* ctx = nullptr;
  ServerCtx& get() const;
};

//! A new view of `ctx` (call with the GIL held); detach it with `detach` after the hook.
py::object client_view(ClientCtx& ctx, ProblemKind kind);
py::object server_view(ServerCtx& ctx);
void detach(py::handle view);

}  // namespace fedbench::python
