// AdaFBiO: adaptive federated bilevel optimization, F. Huang, "Fast Adaptive Federated
// Bilevel Optimization", arXiv 2211.01122, 2022: Section 4, Algorithm 1 with eqs. (6)-(13) and
// the schedules of Theorems 1-2 (Section 5); and its non-adaptive version (Section 5.2,
// Theorem 2, A_t = B_t = I: alias adafbio-nonadaptive).
//
// Clients keep (x, y) and STORM trackers v (lower gradient) and w (local Neumann hypergradient,
// eq. (13), solvers/common/neumann_hypergradient.hpp). Iteration t = 1..T with
//   eta_t = k M^(1/3) / (n + t)^(1/3),  alpha_{t+1} = min(1, c1 eta_t^2),  beta_{t+1} = min(1, c2
// eta_t^2):
// local step (t mod q != 0): x -= gamma eta_t A^-1 w, y -= lambda eta_t B^-1 v;
// synchronisation (t mod q == 0): the server averages x, y, v, w, updates A_t, B_t
// (Algorithm 1 line 6; solvers/common/adaptive_matrix.hpp) and steps x = xbar - gamma eta_t
// A^-1 wbar, y = ybar - lambda eta_t B^-1 vbar; then every client's trackers take the STORM
// update (eqs. (8)-(9))
//   v = grad_y g(new; zeta) + (1 - alpha)(v - grad_y g(anchor; zeta)),
//   w = HG(new; xibar) + (1 - beta)(w - HG(anchor; xibar)),
// with the same draws (and the same Neumann k) at both points.
// Engine rounds: round 0 is the initial aggregation. Algorithm 1 line 2 says "Generate
// adaptive matrices A_1, B_1" before any synchronisation without saying from what; we build
// the trackers from q b fresh rows at (x_1, y_1) and average them to form A_1, B_1, counted as
// a communication round. Round r >= 1 completes the previous synchronisation's tracker update
// (r >= 2), runs local iterations t = (r-1)q+1 .. rq-1 and uploads at t = rq.
// Resolved: Algorithm 1 line 5 averages v and w on the server but does not say whether the
// clients continue from the averages; `estimator_sync = average` resets v, w to the averages
// after a synchronisation (as the proof of Lemma 19 in the appendix uses them; `none` is the
// literal reading); `storm_anchor = local` anchors the tracker update at the client's own
// pre-sync iterate (`averaged`: at (xbar, ybar), which is then broadcast); uniform averaging.
// eta_t is clipped at 1: the paper keeps eta_t <= 1 through its condition n >= k^3 M (the
// default n = max(k^3 M, 8) meets it, so the clip only acts on a user's smaller n).
// theta and K: eq. (13) asks theta in (0, 1/L_g] and Lemma 3 K = (L_g/mu) log(C T/mu); both
// default to theory (1/L_g from the problem's bound, K from its condition number:
// solvers/common/neumann_hypergradient.hpp). The paper gives no experimental hyperparameters:
// n = theory gives max(k^3 M, 8), our practical preset (k^3 M is one of the lower bounds
// Theorem 1 puts on n).
#include <algorithm>
#include <cmath>

#include "engine/solver.hpp"
#include "solvers/common/adaptive_matrix.hpp"
#include "solvers/common/hypergradient_trackers.hpp"

namespace fedbench::solvers {

struct AdaFBiO {
  static constexpr ProblemKind kProblemKind = ProblemKind::bilevel;
  struct Params {
    enum class Sync { average, none };
    enum class Anchor { local, averaged };
    MatrixRule matrix;
    NeumannSum neumann;
    Sync estimator_sync;
    Anchor storm_anchor;
    int local_steps, batch_size, initial_batch, neumann_terms;
    double eta_k, eta_offset, c1, c2, gamma, lambda, theta, rho, varrho;
    bool eta_client_scaling;
  };
  static void declare(Schema<Params>& s) {
    s.choice("matrix", &Params::matrix, "adam", {{"adam", MatrixRule::adam}, {"adabelief", MatrixRule::adabelief},
              {"amsgrad", MatrixRule::amsgrad}, {"adagrad", MatrixRule::adagrad},
              {"identity", MatrixRule::identity}},
             "adaptive-matrix rule (identity: non-adaptive AdaFBiO)")
        .integer("local_steps", &Params::local_steps, "5", {.ge = 1}, "q, iterations per synchronisation")
        .integer("batch_size", &Params::batch_size, "10", {.ge = 0}, "rows per minibatch, both levels (0 = all)")
        .integer("initial_batch", &Params::initial_batch, "50", {.ge = 0}, "b_0, rows of the initial trackers (Alg. 1 line 2 draws q (K + 2) samples; 50 = q b at the defaults; does not follow q or b)")
        .integer("neumann_terms", &Params::neumann_terms, kTheory, {.ge = 1},
                 "K, Neumann terms; theory: relative truncation error 1/T at kappa = L_g/mu_g", true)
        .real("theta", &Params::theta, kTheory, {.gt = 0},
              "theta <= 1/L_g, Neumann step; theory: 1/L_g from the problem's bound", true)
        .choice("neumann", &Params::neumann, "randomized", {{"randomized", NeumannSum::randomized}, {"deterministic", NeumannSum::deterministic}},
                "k ~ U{0..K-1} (paper) or the deterministic sum")
        .real("eta_k", &Params::eta_k, "1", {.gt = 0}, "k of eta_t = k M^(1/3)/(n + t)^(1/3)")
        .real("eta_offset", &Params::eta_offset, kTheory, {.ge = 0}, "n of eta_t; theory: max(k^3 M, 8)", true)
        .boolean("eta_client_scaling", &Params::eta_client_scaling, "true", "the M^(1/3) factor of eta_t")
        .real("c1", &Params::c1, "10", {.gt = 0}, "alpha_{t+1} = min(1, c1 eta_t^2), v's STORM weight")
        .real("c2", &Params::c2, "10", {.gt = 0}, "beta_{t+1} = min(1, c2 eta_t^2), w's STORM weight")
        .real("gamma", &Params::gamma, "0.01", {.gt = 0}, "gamma, x step factor (gamma <= lambda)")
        .real("lambda", &Params::lambda, "0.1", {.gt = 0}, "lambda, y step factor")
        .real("rho", &Params::rho, "0.1", {.gt = 0}, "rho, lower bound added to A and B")
        .real("varrho", &Params::varrho, "0.9", {.ge = 0, .le = 1}, "varrho, EMA weight of the matrix rule")
        .choice("estimator_sync", &Params::estimator_sync, "average", {{"average", Params::Sync::average}, {"none", Params::Sync::none}},
                "reset v, w to the averages at a synchronisation (default) or keep them (literal)")
        .choice("storm_anchor", &Params::storm_anchor, "local", {{"local", Params::Anchor::local}, {"averaged", Params::Anchor::averaged}},
                "anchor of the post-sync STORM update: own pre-sync iterate or (xbar, ybar)");
    s.alias("step_size", {"eta_k"}, "the primary step: sets the step factor k");
  }
  static void resolve(Params& p, const SolverSetup& s) {
    if (is_unset(p.theta)) p.theta = theory_neumann_step(s);
    if (is_unset(p.neumann_terms)) p.neumann_terms = theory_neumann_terms(s);
    if (is_unset(p.eta_offset))
      p.eta_offset = std::max(std::pow(p.eta_k, 3) * s.problem.num_clients(), 8.0);
  }
  static SolverDiagnostics diagnostics(const Params& p) { return neumann_diagnostics(p.theta, p.neumann_terms); }

  static void supports(const Params&, const SolverSetup& s) {
    // A synchronisation spans two rounds (its STORM step runs at the start of the next), so a
    // client that skipped a round would anchor at a stale iterate (Algorithm 1 runs all M
    // clients in every iteration; the paper has no client sampling).
    if (s.config.participation.mode != Participation::Mode::full)
      s.reject("AdaFBiO finishes each synchronisation in the next round on every client; use --participation full");
  }

  Params p;
  struct Down {
    Vec model;
    OptionalVec a_diag, b, v_bar, w_bar, anchor;  // b has one entry
    auto fields() const { return std::tie(model, a_diag, b, v_bar, w_bar, anchor); }
  };
  struct Up {
    Vec model, v, w;
    auto fields() const { return std::tie(model, v, w); }
  };
  struct Client {
    Vec z, prev;
    HypergradientTrackers trackers;
  };

  //! Huang, arXiv 2211.01122, Alg. 1: the last synchronisation's averages (xbar, ybar), vbar,
  //! wbar (line 5) and adaptive matrices (line 6); each client's local iterate (x^m, y^m) and
  //! STORM trackers v^m, w^m (eqs. (8)-(9)) as uploaded.
  void server_states(StateVisitor& v) const {
    v.visit("average_z_bar", anchor_);
    v.visit("average_v_bar", v_bar_);
    v.visit("average_w_bar", w_bar_);
    matrix_.states(v);
  }
  void client_states(const Client& st, StateVisitor& v) const {
    v.visit("local_z", st.z);
    v.visit("tracker_v", st.trackers.v);
    v.visit("tracker_w", st.trackers.w);
  }

  double eta(std::int64_t t, int clients) const {
    const double scale = p.eta_client_scaling ? std::cbrt(static_cast<double>(clients)) : 1.0;
    return std::min(1.0, p.eta_k * scale / std::cbrt(p.eta_offset + static_cast<double>(t)));
  }

  void init_client(ClientCtx& c, Client& st) const {
    st.z = c.initial_point();
    st.trackers.init(c, st.z, {p.neumann_terms, p.theta, p.neumann == NeumannSum::randomized, p.batch_size, p.batch_size},
                     p.initial_batch);
  }

  //! The STORM updates of iteration t: from the anchor st.prev to the current st.z.
  void track(BilevelOracle& o, Stream& coins, Client& st, std::int64_t t, int clients) const {
    const double e = eta(t, clients);
    st.trackers.track(o, coins, st.prev, st.z, std::min(1.0, p.c1 * e * e), std::min(1.0, p.c2 * e * e));
  }

  //! (x, y) -= (gamma eta A^-1 w, lambda eta B^-1 v).
  void step(Vec& z, const Vec& w, const Vec& v, const Vec& a_diag, double b, double e) const {
    const Index dx = w.size(), dy = v.size();
    z.head(dx).array() -= (p.gamma * e) * (w.array() / a_diag.array());
    z.tail(dy) -= (p.lambda * e / b) * v;
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    const std::int64_t r = c.round(), q = p.local_steps;
    const int M = c.num_clients();
    if (r > 0) {
      auto& o = c.bilevel();
      Stream coins = c.stream("neumann-k");
      if (r >= 2) {  // finish the synchronisation of iteration (r-1)q
        st.prev = d.anchor.sent ? d.anchor.value : st.z;
        st.z = d.model;
        if (d.v_bar.sent) {
          st.trackers.v = d.v_bar.value;
          st.trackers.w = d.w_bar.value;
        }
        track(o, coins, st, (r - 1) * q, M);
      }
      for (std::int64_t t = (r - 1) * q + 1; t < r * q; ++t) {
        st.prev = st.z;
        step(st.z, st.trackers.w, st.trackers.v, d.a_diag.value, d.b.value(0), eta(t, M));
        track(o, coins, st, t, M);
      }
    }
    up.model = st.z;
    up.v = st.trackers.v;
    up.w = st.trackers.w;
  }

  void init(ServerCtx&) { matrix_ = AdaptiveMatrix(p.matrix, p.rho, p.varrho); }

  void server_begin(ServerCtx& s, Down& d) {
    const std::int64_t r = s.round();
    d.model = s.model();
    d.a_diag.sent = d.b.sent = r >= 1 && !matrix_.identity();
    d.a_diag.value = matrix_.diag_a(s.dim_x());  // clients use it even when it is not sent (I)
    d.b.value = Vec::Constant(1, matrix_.b());
    d.v_bar.sent = d.w_bar.sent = r >= 2 && p.estimator_sync == Params::Sync::average;
    if (d.v_bar.sent) {
      d.v_bar.value = v_bar_;
      d.w_bar.value = w_bar_;
    }
    d.anchor.sent = r >= 2 && p.storm_anchor == Params::Anchor::averaged;
    if (d.anchor.sent) d.anchor.value = anchor_;
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    mean_into(uploads, &Up::model, anchor_);
    mean_into(uploads, &Up::v, v_bar_);
    mean_into(uploads, &Up::w, w_bar_);
    matrix_.update(w_bar_, v_bar_);
    s.model() = anchor_;
    if (s.round() == 0) return;  // the initial aggregation: A_1, B_1 only
    step(s.model(), w_bar_, v_bar_, matrix_.diag_a(s.dim_x()), matrix_.b(),
         eta(s.round() * p.local_steps, s.num_clients()));
  }

 private:
  AdaptiveMatrix matrix_;
  Vec anchor_, v_bar_, w_bar_;
};

FEDBENCH_REGISTER_SOLVER(AdaFBiO, "adafbio",
                         "adaptive federated bilevel: local STORM trackers, server-side adaptive steps",
                         "Huang, arXiv 2022 (2211.01122), Alg. 1");
FEDBENCH_REGISTER_SOLVER_ALIAS("adafbio-nonadaptive", "adafbio",
                               "non-adaptive AdaFBiO (Huang, arXiv 2022, Alg. 1 with A_t = I, B_t = I; "
                               "Theorem 2)",
                               {"matrix", "identity"});

}  // namespace fedbench::solvers
