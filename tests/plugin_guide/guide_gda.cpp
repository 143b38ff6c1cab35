// Guide GDA: the solver written by following docs/adding-a-solver.md literally (the test that
// does so copies this file to lib/solvers/minimax/guide_gda.cpp of a temporary tree). Every
// round each client uploads its full-batch operator at the server model and the server steps
// with their mean: distributed GDA, the full-batch form of
// A. Fallah, A. Ozdaglar, S. Pattathil, "An Optimal Multistage Stochastic Gradient Method for
// Minimax Problems", CDC 2020 (the non-local GDA row of Table 1 of Zhang et al., ICLR 2024).
// Symbols: gamma = step_size, z <- z - gamma mean_i F_i(z).
// Theory: gamma = 1/(2 ell), ell the cocoercivity of F.
// Resolved: one step for both blocks (the registered `gda` has a second, dual step; with it
// equal to the first the two are the same arithmetic, which the test checks bit for bit).
#include "engine/solver.hpp"

namespace fedbench::solvers {

struct GuideGda {
  struct Params {
    double step_size;
  };
  static void declare(Schema<Params>& s) {
    s.real("step_size", &Params::step_size, kTheory, {.gt = 0}, "gamma, step; theory 1/(2 ell)",
           true);
  }
  static void resolve(Params& p, const SolverSetup& s) {
    if (is_unset(p.step_size)) p.step_size = 1.0 / (2.0 * s.constant(Constant::cocoercivity));
  }

  Params p;
  struct Down {
    Vec model;
    auto fields() const { return std::tie(model); }
  };
  struct Up {
    Vec grad;
    auto fields() const { return std::tie(grad); }
  };
  struct Client {};
  Vec mean_;

  void server_begin(ServerCtx& s, Down& d) const { d.model = s.model(); }
  void client_round(ClientCtx& c, Client&, const Down& d, Up& up) const {
    c.oracle().op(d.model, up.grad, 0);
  }
  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    mean_into(uploads, &Up::grad, mean_);
    const Index dx = s.dim_x(), dy = mean_.size() - dx;
    s.model().head(dx) -= p.step_size * mean_.head(dx);
    s.model().tail(dy) -= p.step_size * mean_.tail(dy);  // F's y block is -grad_y: an ascent step
  }
};

FEDBENCH_REGISTER_SOLVER(GuideGda, "guide-gda",
                         "distributed full-batch GDA, one step for both blocks (guide example)",
                         "Fallah, Ozdaglar, Pattathil, CDC 2020");

}  // namespace fedbench::solvers
