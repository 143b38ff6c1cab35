// FESS-GDA: federated local SGDA whose server smooths the min variable towards an anchor z.
// W. Shen, M. Huang, J. Zhang, C. Shen, "Stochastic Smoothed Gradient Descent Ascent for
// Federated Minimax Optimization", AISTATS 2024, Section 3.1, Algorithm 1.
//
// Round t: each sampled client runs K simultaneous SGDA steps from (x_t, y_t) with local rates
// eta_xl, eta_yl (same minibatch for both blocks; the feasible set projected at every local
// step); the server averages to (xbar, ybar) and sets
//   x_{t+1} = x_t + eta_xg (xbar - x_t) - eta_xl eta_xg K p (x_t - z_t),
//   y_{t+1} = P_Y(y_t + eta_yg (ybar - y_t)),       z_{t+1} = z_t + beta (x_{t+1} - z_t).
// z never leaves the server: communication is that of Local SGDA (d1 + d2 floats each way).
// Resolved: Algorithm 1 takes z_0 as an input without a value; we take z_0 = x_0. The
// experiments of Section 4 use one local and one global rate (tied defaults here, all four
// settable). Algorithm 1 is implemented literally (project at every local step, line 8, and
// at the server, line 14). The server updates are written as convex combinations,
// x_{t+1} = (1 - eta_xg) x_t + eta_xg xbar - ..., z_{t+1} = (1 - beta) z_t + beta x_{t+1},
// which are the same maps and make two reductions exact in floating point: p = 0 with global
// rates 1 is Local SGDA (stated in Section 3.1), and beta = 1 is FSGDA (derived: z = x every
// round, so the penalty vanishes), bit for bit.
// On a constrained X (the paper has X = R^d1) the anchor follows line 13's x_{t+1} before the
// engine projects the server model onto X: z may leave X; the penalty still pulls x toward
// it and the projected model stays feasible (our reading; a transcription that anchors at the
// projected x differs from round 2 on).
// FSGDA (alias) is p = 0. Stability (our derivation, not in the paper): c = eta_xl eta_xg K p
// must stay below 1 + 1/(1 - beta); larger values diverge and are stored as such.
#include "engine/solver.hpp"
#include "engine/model_averaging.hpp"
#include "solvers/common/server_rates.hpp"

namespace fedbench::solvers {

struct FessGda : ModelAveraging {
  struct Params {
    int local_steps, batch_size;
    double eta_xl, eta_yl, eta_xg, eta_yg, smoothing_penalty, beta;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "10", {.ge = 1}, "K, local steps per round")
        .integer("batch_size", &Params::batch_size, "100", {.ge = 0},
                 "B, samples per local step, with replacement; 0 = full local batch")
        .real("eta_xl", &Params::eta_xl, "0.01", {.gt = 0}, "eta_{x,l}, local rate of x")
        .real("eta_yl", &Params::eta_yl, "0.01", {.gt = 0}, "eta_{y,l}, local rate of y")
        .real("eta_xg", &Params::eta_xg, "1", {.gt = 0}, "eta_{x,g}, global rate of x")
        .real("eta_yg", &Params::eta_yg, "1", {.gt = 0}, "eta_{y,g}, global rate of y")
        .real("p", &Params::smoothing_penalty, "1", {.ge = 0}, "p, smoothing penalty (0: FSGDA)")
        .real("beta", &Params::beta, "0.05", {.ge = 0, .le = 1}, "beta, anchor rate");
    s.alias("step_size", {"eta_xl", "eta_yl"}, "the primary step: sets the local rates eta_{x,l} and eta_{y,l}");
  }

  Params p;
  Vec anchor_, x_prev_;  // z_t (server only) and x_t during the server update
  struct Client {
    Vec z, g;
  };
  static constexpr bool kScratchClient = true;  // every field is rewritten each turn

  void init(ServerCtx& s) { anchor_ = s.model().head(s.dim_x()); }
  //! z_t, the smoothing anchor (Shen et al., AISTATS 2024, Alg. 1 line 15).
  void server_states(StateVisitor& v) const { v.visit("anchor_z", anchor_); }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    const Index dx = c.dim_x();
    st.z = d.model;
    for (int k = 0; k < p.local_steps; ++k) {
      c.oracle().op(st.z, st.g, p.batch_size);  // (grad_x, -grad_y) at the same point and batch
      st.z.head(dx) -= p.eta_xl * st.g.head(dx);
      st.z.tail(st.z.size() - dx) -= p.eta_yl * st.g.tail(st.z.size() - dx);
      c.project(st.z);
    }
    up.model = st.z;
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    Vec& model = s.model();
    const Index dx = s.dim_x();
    x_prev_ = model.head(dx);  // x_t, kept for the penalty
    mean_into(uploads, &Up::model, mean_);
    apply_server_rates(model, mean_, dx, p.eta_xg, p.eta_yg);  // the engine projects y after
    const double penalty = p.eta_xl * p.eta_xg * p.local_steps * p.smoothing_penalty;
    model.head(dx) -= penalty * (x_prev_ - anchor_);
    anchor_ = (1.0 - p.beta) * anchor_ + p.beta * model.head(dx);
  }

 private:
  Vec mean_;
};

FEDBENCH_REGISTER_SOLVER(FessGda, "fess-gda",
                         "local SGDA with server-side smoothing towards an anchor (FESS-GDA)",
                         "Shen, Huang, Zhang, Shen, AISTATS 2024, Alg. 1");
FEDBENCH_REGISTER_SOLVER_ALIAS("fsgda", "fess-gda",
                               "FSGDA (Yang, Liu, Zhang, Liu, NeurIPS 2022): federated SGDA with "
                               "local and global rates, i.e. FESS-GDA (Alg. 1) with p = 0",
                               {"p", "0"});

}  // namespace fedbench::solvers
