// Positive control for the contract tests: a minimal solver with every optional hook written
// as the contract expects must compile (so the failing cases fail for the reason they name).
#include "engine/model_averaging.hpp"
#include "engine/solver.hpp"

namespace fedbench::contract_test {

struct GoodSolver : ModelAveraging {
  struct Params {
    double step_size;
  };
  static void declare(Schema<Params>& s) {
    s.real("step_size", &Params::step_size, "0.1", {.gt = 0}, "gamma");
  }
  static void supports(const Params&, const SolverSetup&) {}
  static void resolve(Params&, const SolverSetup&) {}
  static constexpr int version = 2;
  Params p;
  struct Client {
    Vec z;
  };
  void init(ServerCtx&) {}
  void init_client(ClientCtx&, Client&) {}
  int phases() const { return 1; }
  bool same_clients_every_phase() const { return false; }
  void server_states(StateVisitor&) const {}
  void client_states(const Client& st, StateVisitor& v) const { v.visit("z", st.z); }
  void client_round(ClientCtx&, Client& st, const Down& d, Up& up) const {
    st.z = d.model;
    up.model = st.z;
  }
};

FEDBENCH_REGISTER_SOLVER(GoodSolver, "contract-good", "positive control", "none");

}  // namespace fedbench::contract_test
