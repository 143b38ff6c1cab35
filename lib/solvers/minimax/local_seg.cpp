// Local SEG / Local EG: K local stochastic extragradient steps from the server model, then
// averaging.
// A. Beznosikov, V. Samokhin, A. Gasnikov, "Distributed Saddle-Point Problems: Lower Bounds,
// Optimal and Robust Algorithms" (Local SGD with an extra step), arXiv 2010.13112, 2020 (an
// earlier version is titled "... Optimal Algorithms and Federated GANs"); as run as a baseline
// by S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024, Section 5 and Appendix G
// (Fig. 1(b); Local EG in Fig. 1(a)).
//
// Symbols: gamma_1 = extra_step_size (extrapolation), gamma_2 = step_size (update),
// K = local_steps: u = x - gamma_1 g(x; j1), x <- x - gamma_2 g(u; j2).
// Resolved: j1 and j2 are independent draws (with replacement), as in Zhang et al.'s code
// (github.com/isayantan/ProxSkipVIP); `same_batch` uses one draw for both, `sampling =
// reshuffle` draws by random reshuffling.
// Extra Step Local SGD as run by J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian, arXiv 2105.14216,
// 2021 (CD-MAGE), Section 5 and Appendix B.1 (one step size eta_l for both), is the alias
// extra-step-local-sgd: reshuffled minibatches, two per local step (from their code; the paper
// does not say), one step size for both.
// Theory: gamma_1 = gamma_2 = 1/(21 K L_max), L_max = max_i ||M_i||_2 (the value in Zhang et
// al.'s code; their text gives no formula).
#include "engine/solver.hpp"
#include "engine/model_averaging.hpp"

namespace fedbench::solvers {

struct LocalSeg : ModelAveraging {
  struct Params {
    int local_steps;
    int batch_size;
    double step_size;
    double extra_step_size;
    enum class Sampling { replacement, reshuffle };
    Sampling sampling;
    bool same_batch;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "20", {.ge = 1}, "K, local steps per round")
        .integer("batch_size", &Params::batch_size, "1", {.ge = 0},
                 "samples per oracle call, with replacement; 0 = full local batch (Local EG)")
        .real("step_size", &Params::step_size, kTheory, {.gt = 0},
              "gamma_2, update step; theory 1/(21 K L_max)", true)
        .real("extra_step_size", &Params::extra_step_size, kTheory, {.gt = 0},
              "gamma_1, extrapolation step; theory 1/(21 K L_max)", true)
        .choice("sampling", &Params::sampling, "replacement", {{"replacement", Params::Sampling::replacement},
                 {"reshuffle", Params::Sampling::reshuffle}},
                "minibatches drawn with replacement, or by random reshuffling (Xie et al. 2021, Sec. 4.3)")
        .boolean("same_batch", &Params::same_batch, "false",
                 "extrapolation and update on one minibatch (false: two fresh ones, as both authors' codes do)");
  }
  static void resolve(Params& p, const SolverSetup& s) {
    if (!is_unset(p.step_size) && !is_unset(p.extra_step_size)) return;  // no constants needed
    const double theory = 1.0 / (21.0 * p.local_steps * s.constant(Constant::lipschitz_client_max));
    if (is_unset(p.step_size)) p.step_size = theory;
    if (is_unset(p.extra_step_size)) p.extra_step_size = theory;
  }

  Params p;
  struct Client {
    Vec x, u, g;
  };
  static constexpr bool kScratchClient = true;  // every field is rewritten each turn

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    auto next_batch = [&] {
      return p.sampling == Params::Sampling::reshuffle ? c.oracle().next_reshuffled(p.batch_size)
                                       : c.oracle().draw(p.batch_size);
    };
    st.x = d.model;
    for (int k = 0; k < p.local_steps; ++k) {
      auto batch = next_batch();
      c.oracle().op_on(batch, st.x, st.g);
      st.u = st.x - p.extra_step_size * st.g;
      if (!p.same_batch) batch = next_batch();
      c.oracle().op_on(batch, st.u, st.g);
      st.x -= p.step_size * st.g;
    }
    up.model = st.x;
  }
};

FEDBENCH_REGISTER_SOLVER(LocalSeg, "local-seg",
                         "K local stochastic extragradient steps, then averaging",
                         "Beznosikov, Samokhin, Gasnikov, arXiv 2020 (2010.13112)");
FEDBENCH_REGISTER_SOLVER_ALIAS("local-eg", "local-seg", "Local SEG with full-batch oracles",
                               {"batch_size", "0"});
FEDBENCH_REGISTER_SOLVER_ALIAS("extra-step-local-sgd", "local-seg",
                               "Extra Step Local SGD as run by Xie et al. (arXiv 2021, 2105.14216, "
                               "Sec. 5): reshuffled minibatches",
                               {"sampling", "reshuffle"}, {"batch_size", "10"});

}  // namespace fedbench::solvers
