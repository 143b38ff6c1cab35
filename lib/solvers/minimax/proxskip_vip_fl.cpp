// ProxSkip-VIP-FL with a plain (minibatch or full-batch) estimator: ProxSkip-SGDA-FL and
// ProxSkip-GDA-FL.
// S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, "Communication-Efficient Gradient
// Descent-Accent Methods for Distributed Variational Inequalities: Unified Analysis and Local
// Updates", ICLR 2024, Section 4, Algorithm 2. The round itself is in proxskip_fl.hpp.
//
// g_i = f_i (batch_size = 0, ProxSkip-GDA-FL, Corollary 3.6) or the mean of batch_size samples
// drawn with replacement (ProxSkip-SGDA-FL, Theorem 4.2; the authors' code uses 1).
// Theory (Appendix G, "Table G"): gamma = 1/(2 max_i ell_i) full batch, 1/(2 max_ij ell_ij)
// stochastic (also used for batch_size > 1: a safe bound); p = sqrt(gamma mu).
#include <algorithm>
#include <cmath>

#include "solvers/minimax/proxskip_fl.hpp"

namespace fedbench::solvers {

struct PlainEstimator {
  struct Params {
    double step_size;
    double comm_prob;
    double op_scale;
    int batch_size;
  };
  static void declare(Schema<Params>& s) {
    declare_step_and_comm_prob(s, "1/(2 ell) (App. G, Table G)");
    s.integer("batch_size", &Params::batch_size, "0", {.ge = 0},
                 "samples per oracle call, with replacement; 0 = full local batch (GDA)");
  }
  static void resolve(Params& p, const SolverSetup& s) {
    if (is_unset(p.step_size))
      p.step_size = 1.0 / (2.0 * s.constant(p.batch_size == 0 ? Constant::cocoercivity_client_max
                                                               : Constant::cocoercivity_sample_max));
    if (is_unset(p.comm_prob))
      p.comm_prob = std::min(1.0, std::sqrt(p.step_size * s.constant(Constant::mu)));
  }

  struct State {};
  static void init(ClientCtx&, State&, const Params&) {}
  static void states(const State&, StateVisitor&) {}
  static void estimate(ClientCtx& c, State&, const Params& p, const Vec& x, Vec& g,
                       std::int64_t) {
    c.oracle().op(x, g, p.batch_size);
  }
};

using ProxSkipVipFl = ProxSkipFl<PlainEstimator>;

FEDBENCH_REGISTER_SOLVER(ProxSkipVipFl, "proxskip-vip-fl",
                         "local (S)GDA with control variates and random communication (ProxSkip)",
                         "Zhang, Choudhury, Stich, Loizou, ICLR 2024, Alg. 2");
FEDBENCH_REGISTER_SOLVER_ALIAS("proxskip-gda-fl", "proxskip-vip-fl",
                               "ProxSkip-GDA-FL: ProxSkip-VIP-FL with full-batch oracles (Alg. 2, "
                               "g_i = f_i)",
                               {"batch_size", "0"});
FEDBENCH_REGISTER_SOLVER_ALIAS("proxskip-sgda-fl", "proxskip-vip-fl",
                               "ProxSkip-SGDA-FL: ProxSkip-VIP-FL with single-sample oracles "
                               "(Alg. 2, single-sample g_i)",
                               {"batch_size", "1"});

}  // namespace fedbench::solvers
