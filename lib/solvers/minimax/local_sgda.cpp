// Local SGDA / Local GDA: K local (stochastic) gradient descent-ascent steps from the server
// model, then averaging.
// Y. Deng, M. Mahdavi, "Local Stochastic Gradient Descent Ascent: Convergence Analysis and
// Communication Efficiency", AISTATS 2021, Algorithm 1; as run as a baseline by S. Zhang,
// S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024, Section 5 and Appendix G (Fig. 1; Local GDA
// in Fig. 1(a)).
//
// Symbols: K = local_steps, gamma_t = step size at local iteration t, a = decay_offset.
// Schedule "decay": gamma_t = step_size * a / (t + a), i.e. 8 / (mu (t + a))
// with the theory values step_size = 8 / (mu a) and a = 2048 K kappa^2, kappa = L / mu
// (L = max_i ||M_i||, mu = min_i mu_i): the rule of Zhang et al.'s code
// (github.com/isayantan/ProxSkipVIP), not stated in their text. Schedule "constant":
// gamma_t = step_size (the tuned variant of Zhang et al. 2024, Appendix H.1; no theory value,
// so it must be given).
// Resolved (our choice): t = r K + k (k = 1..K) is the same for every client, so all clients
// take the same step at the same iteration; the authors' notebooks' counter shared across
// clients (it advances with every client's step) is not reproduced.
#include <cmath>

#include "engine/solver.hpp"
#include "engine/model_averaging.hpp"

namespace fedbench::solvers {

struct LocalSgda : ModelAveraging {
  struct Params {
    int local_steps;
    int batch_size;
    enum class Schedule { decay, constant };
    Schedule schedule;
    double step_size;
    double decay_offset;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "20", {.ge = 1}, "K, local steps per round")
        .integer("batch_size", &Params::batch_size, "1", {.ge = 0},
                 "samples per oracle call, with replacement; 0 = full local batch (Local GDA)")
        .choice("schedule", &Params::schedule, "decay", {{"decay", Params::Schedule::decay}, {"constant", Params::Schedule::constant}},
                "decay: gamma_t = step_size a/(t+a) (Deng & Mahdavi); constant: gamma_t = step_size")
        .real("step_size", &Params::step_size, kTheory, {.gt = 0},
              "gamma_0, the first step; theory 8/(mu a) for the decay schedule", true)
        .real("decay_offset", &Params::decay_offset, kTheory, {.ge = 0},
              "a in gamma_t = step_size a/(t+a); theory 2048 K kappa^2; unused when constant",
              true);
  }
  static void resolve(Params& p, const SolverSetup& s) {
    if (p.schedule == Params::Schedule::constant) {
      if (is_unset(p.step_size))
        s.reject("schedule=constant has no theory step size; give -s step_size=VALUE");
      if (is_unset(p.decay_offset)) p.decay_offset = 0;
      return;
    }
    if (!is_unset(p.step_size) && !is_unset(p.decay_offset)) {
      if (p.decay_offset <= 0) s.reject("decay_offset must be > 0 for schedule=decay");
      return;  // fully explicit: no constants needed
    }
    const double mu = s.constant(Constant::mu);
    const double kappa = s.constant(Constant::lipschitz_client_max) / mu;
    if (is_unset(p.decay_offset)) p.decay_offset = 2048.0 * p.local_steps * kappa * kappa;
    if (p.decay_offset <= 0) s.reject("decay_offset must be > 0 for schedule=decay");
    if (is_unset(p.step_size)) p.step_size = 8.0 / (mu * p.decay_offset);
  }

  Params p;
  struct Client {
    Vec x, g;
  };
  static constexpr bool kScratchClient = true;  // every field is rewritten each turn

  double step_at(std::int64_t t) const {
    if (p.schedule == Params::Schedule::constant) return p.step_size;
    return p.step_size * p.decay_offset / (static_cast<double>(t) + p.decay_offset);
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    st.x = d.model;
    for (int k = 1; k <= p.local_steps; ++k) {
      c.oracle().op(st.x, st.g, p.batch_size);
      st.x -= step_at(c.round() * p.local_steps + k) * st.g;
    }
    up.model = st.x;
  }
};

FEDBENCH_REGISTER_SOLVER(LocalSgda, "local-sgda",
                         "K local SGDA steps from the server model, then averaging",
                         "Deng & Mahdavi, AISTATS 2021, Alg. 1");
FEDBENCH_REGISTER_SOLVER_ALIAS("local-gda", "local-sgda", "Local SGDA with full-batch oracles",
                               {"batch_size", "0"});

}  // namespace fedbench::solvers
