// CD-MAGE, CD-MAGE+ and CD-MA: the cross-device minimax methods of
// J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian, "Efficient Cross-Device Federated Learning
// Algorithms for Minimax Problems", arXiv 2105.14216, 2021: Section 3, Algorithms 1-3 with the
// estimators (2) and (3) and the local direction (4); Appendix A, Algorithm 4 (CD-MA); step
// sizes of Section 4 (Lemma 5, Theorems 1-3); schedules of Appendix B.1.
//
// CD-MAGE (estimator = gradient): phase A, the sampled clients send their full local
// gradients at z_t and the server averages them into w_t = (u_t, -v_t); phase B, the clients
// run K local steps on random-reshuffling minibatches B_k with the corrected direction
//   d = F_i(z^k; B_k) - F_i(z_t; B_k) + w_t                 (eq. 4, same minibatch at both points)
// x -= eta_t d_x, y += gamma_t (ascent part of d), and the server averages the local models.
// CD-MAGE+ (estimator = storm): from round 1 on, phase A sends z_t and z_{t-1} and clients
// return c_i = F_i(z_t) - (1 - alpha_t) F_i(z_{t-1}); w_t = (1 - alpha_t) w_{t-1} + mean c_i
// (eq. 3; round 0 as CD-MAGE).
// CD-MA (estimator = none): phase B alone without correction, i.e. Local SGDA with partial
// participation, separate primal and dual steps and reshuffled minibatches (Alg. 4).
// Schedules (App. B.1): eta_t = c_eta/(t+1)^rho, gamma_t = c_gamma/(t+1)^rho,
// alpha_t = min{1, c_alpha/(t+1)^(2 rho)}; rho = 0 gives the constant steps of CD-MAGE/CD-MA.
// Resolved: Section 3 lets the phase-A and phase-B client sets be "potentially different" and
// the analysis of Section 4 draws every client i.i.d. from D; phase-B clients are the phase-A
// set (`phase2_clients = same`) or a fresh draw (`independent`, the theory). The authors' code
// keeps phase A's candidates and, under its drop-outs (`dropout:M:R` participation), redraws
// which of them respond in phase B: `same-candidates`, the default (without drop-outs it is
// `same`). Minibatches by random reshuffling (Section 4.3, Theorem 3)
// with a fresh iterator every round; last iterate reported. A round whose phase A has no
// responders (possible under `bernoulli:Q`, or `iid`/`independent` phase B) has no w_t: its
// phase-B clients keep the model and the server does not move (ours; the paper samples a
// nonempty S'_t). CD-MAGE+'s recursion starts at the first phase A that had responders.
// Theory preset (c_eta, c_gamma = theory; Section 4.1, Theorem 1 through Lemma 5): gamma =
// 1/(87 L_f K), eta = min{1/(36 L_f K), 1/(4 L_Phi K), mu^2 gamma/(21 L12^2)} with L_f the
// largest client Lipschitz constant, L12 <= L_f, L_Phi = L_f (1 + L_f/mu) and mu the problem's
// strong monotonicity (a lower bound on the strong concavity in y). The T- and sigma-dependent
// terms of Thm 1 are left out: they need the horizon and a variance supremum.
#include <algorithm>
#include <cmath>

#include "engine/solver.hpp"
#include "solvers/common/two_phase_server.hpp"

namespace fedbench::solvers {

struct CdMage {
  struct Params {
    enum class Estimator { gradient, storm, none };
    enum class Phase2Clients { same, same_candidates, independent };
    Estimator estimator;
    Phase2Clients phase2_clients;
    int local_steps, batch_size;
    double c_eta, c_gamma, c_alpha, rho;
  };
  static void declare(Schema<Params>& schema) {
    schema.choice("estimator", &Params::estimator, "gradient", {{"gradient", Params::Estimator::gradient}, {"storm", Params::Estimator::storm},
              {"none", Params::Estimator::none}},
             "global estimator: eq. (2) CD-MAGE, eq. (3) CD-MAGE+, none = CD-MA")
        .choice("phase2_clients", &Params::phase2_clients, "same-candidates", {{"same", Params::Phase2Clients::same},
                 {"same-candidates", Params::Phase2Clients::same_candidates},
                 {"independent", Params::Phase2Clients::independent}},
                "phase B clients: the phase A responders, the phase A candidates with drop-outs redrawn "
                "(authors' code), or a fresh draw (theory)")
        .integer("local_steps", &Params::local_steps, "10", {.ge = 1}, "K, local steps per round")
        .integer("batch_size", &Params::batch_size, "10", {.ge = 0},
                 "B, reshuffled minibatch size (0 = the whole local data)")
        .real("c_eta", &Params::c_eta, "0.01", {.gt = 0},
              "c_eta: primal step eta_t = c_eta/(t+1)^rho; theory: Thm 1 (Lemma 5)", true)
        .real("c_gamma", &Params::c_gamma, "0.01", {.gt = 0},
              "c_gamma: dual step gamma_t = c_gamma/(t+1)^rho; theory: 1/(87 L_f K)", true)
        .real("c_alpha", &Params::c_alpha, "1", {.gt = 0}, "c_alpha: alpha_t = min{1, c_alpha/(t+1)^(2 rho)} (storm)")
        .real("rho", &Params::rho, "0", {.ge = 0}, "rho, schedule exponent (0: constant steps)");
    schema.alias("step_size", {"c_eta", "c_gamma"}, "the primary step: sets c_eta and c_gamma");
  }

  static void resolve(Params& p, const SolverSetup& setup) {
    if (!is_unset(p.c_eta) || !is_unset(p.c_gamma)) {
      if (is_unset(p.c_eta) || is_unset(p.c_gamma))
        throw UserError(setup.who + ": set c_eta and c_gamma both to theory or both to numbers");
      return;
    }
    const double L = setup.constant(Constant::lipschitz_client_max), mu = setup.constant(Constant::mu);
    const double K = p.local_steps, L_phi = L * (1 + L / mu);
    p.c_gamma = 1 / (87 * L * K);
    p.c_eta = std::min({1 / (36 * L * K), 1 / (4 * L_phi * K), mu * mu * p.c_gamma / (21 * L * L)});
  }

  Params p;
  struct Down {
    Vec model;
    OptionalVec previous, estimate;  // z_{t-1} (storm, phase A); w_t (phase B)
    auto fields() const { return std::tie(model, previous, estimate); }
  };
  struct Up {
    Vec payload;  // phase A: a local gradient combination; phase B: the local model
    auto fields() const { return std::tie(payload); }
  };
  struct Client {
    Vec z, a, b, g_prev;
  };
  static constexpr bool kScratchClient = true;  // every field is rewritten each turn

  bool same_clients_every_phase() const { return p.phase2_clients == Params::Phase2Clients::same; }
  bool same_candidates_every_phase() const { return p.phase2_clients == Params::Phase2Clients::same_candidates; }
  int phases() const { return p.estimator == Params::Estimator::none ? 1 : 2; }
  bool update_phase(int phase) const { return p.estimator == Params::Estimator::none || phase == 1; }

  //! w_t = (u_t, -v_t), the global estimator of eqs. (2)-(3) of Xie et al., arXiv 2105.14216
  //! (after the last phase A with responders), and CD-MAGE+'s z_{t-1} of eq. (3).
  void server_states(StateVisitor& v) const {
    if (p.estimator == Params::Estimator::none) return;
    v.visit("estimate_w", server_.estimate());
    if (p.estimator == Params::Estimator::storm) v.visit("previous_point_z", previous_);
  }

  double schedule(double c, std::int64_t t) const {
    return c / std::pow(static_cast<double>(t + 1), p.rho);
  }
  double alpha(std::int64_t t) const {
    return std::min(1.0, p.c_alpha / std::pow(static_cast<double>(t + 1), 2 * p.rho));
  }

  //! Whether phase B of this round has a w_t: phase A of this round had responders.
  bool estimate_of_round(const ServerCtx& server) const {
    return p.estimator == Params::Estimator::none || collected_round_ == server.round();
  }

  void server_begin(ServerCtx& server, Down& d) const {
    server_.broadcast(server, update_phase(server.phase()) && p.estimator != Params::Estimator::none &&
                                  estimate_of_round(server),
                      d.model, d.estimate);
    d.previous.sent = !update_phase(server.phase()) && p.estimator == Params::Estimator::storm && has_estimate_;
    if (d.previous.sent) d.previous.value = previous_;
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    const std::int64_t t = c.round();
    if (!update_phase(c.phase())) {  // phase A: full local gradients
      c.oracle().op_on({}, d.model, up.payload);
      if (d.previous.sent) {
        c.oracle().op_on({}, d.previous.value, st.g_prev);
        up.payload -= (1.0 - alpha(t)) * st.g_prev;
      }
      return;
    }
    st.z = d.model;
    if (p.estimator != Params::Estimator::none && !d.estimate.sent) {  // no w_t this round
      up.payload = st.z;
      return;
    }
    const Index dx = c.dim_x(), dy = c.dim() - dx;
    const double eta = schedule(p.c_eta, t), gamma = schedule(p.c_gamma, t);
    for (int k = 0; k < p.local_steps; ++k) {
      const auto batch = c.oracle().next_reshuffled(p.batch_size);
      c.oracle().op_on(batch, st.z, st.a);
      if (d.estimate.sent) {  // a - b + w_t, the same minibatch at z^k and z_t
        c.oracle().op_on(batch, d.model, st.b);
        st.a -= st.b;
        st.a += d.estimate.value;
      }
      st.z.head(dx) -= eta * st.a.head(dx);
      st.z.tail(dy) -= gamma * st.a.tail(dy);  // the operator carries -grad_y: an ascent step
      c.project(st.z);
    }
    up.payload = st.z;
  }

  void server_end(ServerCtx& server, std::span<const Up> uploads) {
    if (update_phase(server.phase())) {
      if (!estimate_of_round(server)) return;  // no w_t: the model stays
      server_.update(server, uploads, 1.0, 1.0);  // the plain average of the local models
      return;
    }
    if (p.estimator == Params::Estimator::storm && has_estimate_)
      server_.collect(uploads, 1.0 - alpha(server.round()));  // eq. (3)
    else
      server_.collect(uploads);  // eq. (2)
    has_estimate_ = true;
    collected_round_ = server.round();
    if (p.estimator == Params::Estimator::storm) previous_ = server.model();  // eq. (3)'s next z_{t-1}
  }

 private:
  TwoPhaseServer server_;
  Vec previous_;                         // where the last w_t was collected
  bool has_estimate_ = false;            // some phase A had responders
  std::int64_t collected_round_ = -1;    // the last round whose phase A had responders
};

FEDBENCH_REGISTER_SOLVER(CdMage, "cd-mage",
                         "cross-device minimax: gradient collection, then corrected local steps",
                         "Xie et al., arXiv 2021 (2105.14216), Algs. 1-3 with Eq. (2)");
FEDBENCH_REGISTER_SOLVER_ALIAS("cd-mage-plus", "cd-mage",
                               "CD-MAGE+ (Xie et al., arXiv 2021, Algs. 1-3 with Eq. (3)): momentum "
                               "(STORM) global estimator, decaying schedules",
                               {"estimator", "storm"}, {"rho", "0.3333333333333333"}, {"c_alpha", "10"});
FEDBENCH_REGISTER_SOLVER_ALIAS("cd-ma", "cd-mage",
                               "CD-MA (Xie et al., arXiv 2021, Alg. 4): local SGDA with partial "
                               "participation and reshuffling",
                               {"estimator", "none"});

}  // namespace fedbench::solvers
