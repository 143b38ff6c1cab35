// Must not compile: init_client takes the client state by value of the wrong type, so the
// engine would skip it silently; the contract names the hook and its expected signature.
#include "engine/model_averaging.hpp"
#include "engine/solver.hpp"

namespace fedbench::contract_test {

struct BadHookSolver : ModelAveraging {
  struct Params {
    double step_size;
  };
  static void declare(Schema<Params>& s) {
    s.real("step_size", &Params::step_size, "0.1", {.gt = 0}, "gamma");
  }
  Params p;
  struct Client {
    Vec z;
  };
  void init_client(ClientCtx&, Vec&) {}  // wrong: the state is Client&
  void client_round(ClientCtx&, Client& st, const Down& d, Up& up) const {
    st.z = d.model;
    up.model = st.z;
  }
};

FEDBENCH_REGISTER_SOLVER(BadHookSolver, "contract-bad-hook", "mis-typed hook", "none");

}  // namespace fedbench::contract_test
