// ProxSkip-L-SVRGDA-FL: ProxSkip-VIP-FL with a loopless-SVRG estimator on every client.
// S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, "Communication-Efficient Gradient
// Descent-Accent Methods for Distributed Variational Inequalities: Unified Analysis and Local
// Updates", ICLR 2024, Appendix C, Algorithm 4. The round itself is in proxskip_fl.hpp.
//
// Symbols: q = ref_prob, w_i = State::w, f_i(w_i) = State::f_w (cached: it changes only when
// the reference is refreshed). Estimator: g_i = F_ij(x_i) - F_ij(w_i) + f_i(w_i).
// Resolved: the refresh coin zeta_t is ONE coin per iteration shared by all clients (the
// paper's "server: zeta_t ~ Bern(q); broadcast"): clients read it from the public-coin stream,
// so it costs no communication, as the paper counts it. w refreshes to x_t (before the step)
// and g uses the old w (Alg. 4 order). w_{i,0} = x_{i,0} = z0, and f_i(w_{i,0}) is a full local
// pass made at set-up (counted).
// Theory (Appendix G, "Table G"; Theorem 4.4 / Corollary 3.9): gamma = min(1/mu,
// 1/(6 max_ij ell_ij)), p = sqrt(gamma mu), q = 2 gamma mu.
#include <algorithm>
#include <cmath>

#include "solvers/minimax/proxskip_fl.hpp"

namespace fedbench::solvers {

struct LsvrgEstimator {
  struct Params {
    double step_size;
    double comm_prob;
    double op_scale;
    double ref_prob;
    int batch_size;
  };
  static void declare(Schema<Params>& s) {
    declare_step_and_comm_prob(s, "min(1/mu, 1/(6 max_ij ell_ij)) (Cor. 3.9)");
    s.real("ref_prob", &Params::ref_prob, kTheory, {.gt = 0, .le = 1},
              "q, chance of refreshing the reference point w; theory 2 gamma mu", true)
        .integer("batch_size", &Params::batch_size, "1", {.ge = 1},
                 "samples j per estimator call, with replacement");
  }
  static void resolve(Params& p, const SolverSetup& s) {
    if (!is_unset(p.step_size) && !is_unset(p.comm_prob) && !is_unset(p.ref_prob)) return;
    const double mu = s.constant(Constant::mu);
    if (is_unset(p.step_size))
      p.step_size = std::min(1.0 / mu, 1.0 / (6.0 * s.constant(Constant::cocoercivity_sample_max)));
    if (is_unset(p.comm_prob)) p.comm_prob = std::min(1.0, std::sqrt(p.step_size * mu));
    if (is_unset(p.ref_prob)) p.ref_prob = std::min(1.0, 2.0 * p.step_size * mu);
  }

  struct State {
    Vec w, f_w, g_w;
  };
  static void init(ClientCtx& c, State& st, const Params&) {
    st.w = c.initial_point();
    c.oracle().op(st.w, st.f_w, 0);
  }
  //! w_i and f_i(w_i) of Alg. 4 line 5.
  static void states(const State& st, StateVisitor& v) {
    v.visit("reference_point_w", st.w);
    v.visit("operator_at_reference_f_w", st.f_w);
  }
  static void estimate(ClientCtx& c, State& st, const Params& p, const Vec& x, Vec& g,
                       std::int64_t iteration) {
    const auto j = c.oracle().draw(p.batch_size);
    c.oracle().op_on(j, x, g);
    c.oracle().op_on(j, st.w, st.g_w);
    g += st.f_w - st.g_w;  // uses the old reference w_t
    if (c.shared_stream("refresh-coin", iteration).bernoulli(p.ref_prob)) {
      st.w = x;  // w_{t+1} = x_t
      c.oracle().op(st.w, st.f_w, 0);
    }
  }
};

using ProxSkipLSvrgdaFl = ProxSkipFl<LsvrgEstimator>;

FEDBENCH_REGISTER_SOLVER(ProxSkipLSvrgdaFl, "proxskip-l-svrgda-fl",
                         "ProxSkip-VIP-FL with loopless-SVRG variance reduction per client",
                         "Zhang, Choudhury, Stich, Loizou, ICLR 2024, Alg. 4");

}  // namespace fedbench::solvers
