// Must not compile: phases() returns a count of the wrong type (and is not const).
#include "engine/model_averaging.hpp"
#include "engine/solver.hpp"

namespace fedbench::contract_test {

struct BadPhasesSolver : ModelAveraging {
  struct Params {
    double step_size;
  };
  static void declare(Schema<Params>& s) {
    s.real("step_size", &Params::step_size, "0.1", {.gt = 0}, "gamma");
  }
  Params p;
  struct Client {};
  std::size_t phases() { return 2; }  // wrong: `int phases() const`
  void client_round(ClientCtx&, Client&, const Down& d, Up& up) const { up.model = d.model; }
};

FEDBENCH_REGISTER_SOLVER(BadPhasesSolver, "contract-bad-phases", "mis-typed hook", "none");

}  // namespace fedbench::contract_test
