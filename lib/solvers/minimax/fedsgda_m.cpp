// FedSGDA-M: local SGDA with STORM-type momentum variance reduction.
// X. Wu, J. Sun, Z. Hu, A. Zhang, H. Huang, "Solving a Class of Non-Convex Minimax
// Optimization in Federated Learning", arXiv 2310.03613, 2023 (FedSGDA-M); listed in Table 1
// of W. Shen, M. Huang, J. Zhang, C. Shen, AISTATS 2024 (FESS-GDA; NC-SC/NC-PL row, footnote
// a), which cites it but does not run it. The rules below are the standard STORM estimator
// (Cutkosky & Orabona, NeurIPS 2019) in a local-update loop; Shen et al. do not restate them.
//
// Each client keeps an estimator w = (u, -v) of the operator (grad_x, -grad_y) and, per local
// step, moves z <- z - (eta_x u, -eta_y v), then draws a minibatch xi and sets
//   w <- F_i(z; xi) + (1 - alpha)(w - F_i(z_prev; xi))       (the same xi at both points).
// The first estimator uses a larger batch (initial_batch). Every K = q local steps the server
// averages z and w (both communicated: 2 (d1 + d2) floats each way); full participation
// (as listed in Table 1 of Shen et al. 2024). Resolved (our choices): the iterate moves before
// the estimator update (STORM's order); round 0 starts from each client's own large-batch
// estimator, later rounds from the averaged one.
#include "engine/solver.hpp"

namespace fedbench::solvers {

struct FedSgdaM {
  struct Params {
    int local_steps, batch_size, initial_batch;
    double eta_x, eta_y, alpha;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "10", {.ge = 1}, "q, local steps between averages")
        .integer("batch_size", &Params::batch_size, "10", {.ge = 0}, "B, samples per estimator update")
        .integer("initial_batch", &Params::initial_batch, "100", {.ge = 0},
                 "B_0, samples of the first estimator (0 = full local batch)")
        .real("eta_x", &Params::eta_x, "0.01", {.gt = 0}, "eta_x, step of x")
        .real("eta_y", &Params::eta_y, "0.01", {.gt = 0}, "eta_y, step of y")
        .real("alpha", &Params::alpha, "0.1", {.gt = 0, .le = 1}, "alpha, STORM momentum weight");
    s.alias("step_size", {"eta_x", "eta_y"}, "the primary step: sets eta_x and eta_y");
  }
  static void supports(const Params&, const SolverSetup& s) {
    if (s.config.participation.mode != Participation::Mode::full)
      s.reject("FedSGDA-M averages every client's estimator; use --participation full");
  }

  Params p;
  struct Down {
    Vec model;
    OptionalVec estimator;  // the averaged w, from round 1 on
    auto fields() const { return std::tie(model, estimator); }
  };
  struct Up {
    Vec model, estimator;
    auto fields() const { return std::tie(model, estimator); }
  };
  struct Client {
    Vec z, z_prev, w, g_new, g_old;
  };

  void init_client(ClientCtx& c, Client& st) const {
    c.oracle().op(c.initial_point(), st.w, p.initial_batch);
  }
  //! The STORM estimators w = (u, -v) (Cutkosky & Orabona, NeurIPS 2019, Alg. 1's d_t): the
  //! server's average, sent from round 1 on, and each client's own after its local steps.
  void server_states(StateVisitor& v) const { v.visit("estimator_w_bar", estimator_); }
  void client_states(const Client& st, StateVisitor& v) const { v.visit("estimator_w", st.w); }

  void server_begin(ServerCtx& s, Down& d) const {
    d.model = s.model();
    d.estimator.sent = s.round() > 0;
    if (d.estimator.sent) d.estimator.value = estimator_;
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    const Index dx = c.dim_x(), dy = c.dim() - dx;
    st.z = d.model;
    if (d.estimator.sent) st.w = d.estimator.value;
    for (int k = 0; k < p.local_steps; ++k) {
      st.z_prev = st.z;
      st.z.head(dx) -= p.eta_x * st.w.head(dx);
      st.z.tail(dy) -= p.eta_y * st.w.tail(dy);
      c.project(st.z);
      const auto batch = c.oracle().draw(p.batch_size);
      c.oracle().op_on(batch, st.z, st.g_new);
      c.oracle().op_on(batch, st.z_prev, st.g_old);
      st.w = st.g_new + (1.0 - p.alpha) * (st.w - st.g_old);
    }
    up.model = st.z;
    up.estimator = st.w;
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    mean_into(uploads, &Up::model, s.model());
    mean_into(uploads, &Up::estimator, estimator_);
  }

 private:
  Vec estimator_;
};

FEDBENCH_REGISTER_SOLVER(FedSgdaM, "fedsgda-m",
                         "local SGDA with STORM momentum estimators, averaged with the models",
                         "Wu et al., arXiv 2023 (2310.03613), FedSGDA-M");

}  // namespace fedbench::solvers
