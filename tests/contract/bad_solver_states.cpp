// Must not compile: client_states is not const (it could change the state it shows, and the
// engine calls it between rounds on a const solver), so the contract names the hook and its
// expected signature instead of skipping it.
#include "engine/model_averaging.hpp"
#include "engine/solver.hpp"

namespace fedbench::contract_test {

struct BadStatesSolver : ModelAveraging {
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
  void client_states(const Client& st, StateVisitor& v) { v.visit("z", st.z); }  // wrong: not const
  void client_round(ClientCtx&, Client& st, const Down& d, Up& up) const {
    st.z = d.model;
    up.model = st.z;
  }
};

FEDBENCH_REGISTER_SOLVER(BadStatesSolver, "contract-bad-states", "mis-typed state hook", "none");

}  // namespace fedbench::contract_test
