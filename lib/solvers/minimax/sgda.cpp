// Distributed (minibatch) SGDA / GDA: every round each sampled client uploads one (stochastic)
// operator evaluation at the server model, and the server takes one step with their mean.
// A. Fallah, A. Ozdaglar, S. Pattathil, "An Optimal Multistage Stochastic Gradient Method for
// Minimax Problems", CDC 2020 (the non-local GDA/SGDA row of Table 1 of S. Zhang,
// S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024, Section 1.1): one communication per
// iteration.
//
// Symbols: eta = step_size (x), gamma = dual_step_size (y):
// x <- x - eta mean_i g_{i,x}, y <- y + gamma mean_i g_{i,y}.
// Theory: eta = 1/(2 ell) with ell the cocoercivity of F (full batch) or the largest
// per-sample cocoercivity (stochastic oracles), and gamma = eta (one step for the operator).
// Parallel SGDA (T. Lin, C. Jin, M. I. Jordan, "On Gradient Descent Ascent for Nonconvex-
// Concave Minimax Problems", ICML 2020) as run as a baseline by J. Xie, C. Zhang, Z. Shen,
// W. Liu, H. Qian, arXiv 2105.14216, 2021 (CD-MAGE), Section 5 and Appendix B.1 (constant
// eta and gamma), is the alias parallel-sgda: the full local gradient (from their code),
// separate primal and dual steps, only the gradient exchange counted.
#include "engine/solver.hpp"

namespace fedbench::solvers {

struct Sgda {
  struct Params {
    double step_size, dual_step_size;
    int batch_size;
  };
  static void declare(Schema<Params>& s) {
    s.real("step_size", &Params::step_size, kTheory, {.gt = 0},
           "eta, primal step; theory 1/(2 ell)", true)
        .real("dual_step_size", &Params::dual_step_size, kTheory, {.gt = 0},
              "gamma, dual step; theory = the primal step", true)
        .integer("batch_size", &Params::batch_size, "1", {.ge = 0},
                 "samples per oracle call, with replacement; 0 = full local batch (GDA)");
  }
  static void resolve(Params& p, const SolverSetup& s) {
    if (is_unset(p.step_size))
      p.step_size = 1.0 / (2.0 * s.constant(p.batch_size == 0 ? Constant::cocoercivity
                                                               : Constant::cocoercivity_sample_max));
    if (is_unset(p.dual_step_size)) p.dual_step_size = p.step_size;
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
  Vec mean_grad_;

  void server_begin(ServerCtx& s, Down& d) const { d.model = s.model(); }
  void client_round(ClientCtx& c, Client&, const Down& d, Up& up) const {
    c.oracle().op(d.model, up.grad, p.batch_size);
  }
  void server_end(ServerCtx& s, std::span<const Up> up) {
    mean_into(up, &Up::grad, mean_grad_);
    const Index dx = s.dim_x(), dy = mean_grad_.size() - dx;
    s.model().head(dx) -= p.step_size * mean_grad_.head(dx);
    s.model().tail(dy) -= p.dual_step_size * mean_grad_.tail(dy);  // -grad_y: an ascent step
  }
};

FEDBENCH_REGISTER_SOLVER(Sgda, "sgda",
                         "distributed minibatch SGDA: one averaged step per communication",
                         "Fallah, Ozdaglar, Pattathil, CDC 2020");
FEDBENCH_REGISTER_SOLVER_ALIAS("gda", "sgda", "distributed GDA with full-batch oracles",
                               {"batch_size", "0"});
FEDBENCH_REGISTER_SOLVER_ALIAS("parallel-sgda", "sgda",
                               "Parallel SGDA (Lin, Jin, Jordan, ICML 2020) as run by Xie et al. "
                               "(arXiv 2021, Sec. 5): full local gradients, eta and gamma",
                               {"batch_size", "0"});

}  // namespace fedbench::solvers
