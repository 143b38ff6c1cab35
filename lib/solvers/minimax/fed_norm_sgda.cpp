// Fed-Norm-SGDA and Fed-Norm-SGDA+ (P. Sharma, R. Panda, G. Joshi, "Federated Minimax
// Optimization with Client Heterogeneity", arXiv 2302.04249, 2023), the baselines of
// W. Shen, M. Huang, J. Zhang, C. Shen, AISTATS 2024 (FESS-GDA): Fed-Norm-SGDA in Section 4.1
// (Fig. 1), Fed-Norm-SGDA+ in Section 4.2 (Fig. 2). Shen et al. do not restate the update
// rules; they follow Sharma et al. 2023.
//
// Each sampled client runs K local SGDA steps from (x_t, y_t) with local rates eta_xl, eta_yl
// and uploads the normalised updates h_x = (x_t - x^K)/(K eta_xl), h_y = (y^K - y_t)/(K eta_yl)
// (equal weights a_i = 1: every client runs the same K plain SGD steps, as in the experiments
// of Shen et al. 2024, Section 4). The server applies x_{t+1} = x_t - K gamma_x eta_xl mean h_x
// and y_{t+1} = P_Y(y_t + K gamma_y eta_yl mean h_y) (tau_eff = K).
// The "+" variant evaluates local y-gradients at a server snapshot x~ (x-gradients at the
// local iterate, the same minibatch), refreshed x~ <- x_{t+1} every S = snapshot_period rounds
// (Shen et al. 2024, Section 4.2, run S in {1, 5, 10, 20}) and sent with every broadcast
// (stateless clients: 2 d1 + d2 floats down).
// Local SGDA+ (Y. Deng, M. Mahdavi, AISTATS 2021) and FedSGDA+ (X. Wu, J. Sun, Z. Hu, A. Zhang,
// H. Huang, arXiv 2310.03613, 2023), both listed in Table 1 of Shen et al. 2024 but not run
// there, are the same update with global rates 1 and with server rates respectively:
// registered as aliases. snapshot_period = 0 disables the snapshot (Fed-Norm-SGDA).
// Mathematically Fed-Norm-SGDA with a_i = 1 is FSGDA (our derivation); the normalised upload
// changes only the rounding.
#include "engine/solver.hpp"

namespace fedbench::solvers {

struct FedNormSgda {
  struct Params {
    int local_steps, batch_size, snapshot_period;
    double eta_xl, eta_yl, gamma_x, gamma_y;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "10", {.ge = 1}, "K = tau, local steps per round")
        .integer("batch_size", &Params::batch_size, "100", {.ge = 0},
                 "B, samples per local step, with replacement; 0 = full local batch")
        .integer("snapshot_period", &Params::snapshot_period, "0", {.ge = 0},
                 "S: y-gradients at a snapshot x~ refreshed every S rounds (0: no snapshot)")
        .real("eta_xl", &Params::eta_xl, "0.01", {.gt = 0}, "eta_x^c, local rate of x")
        .real("eta_yl", &Params::eta_yl, "0.01", {.gt = 0}, "eta_y^c, local rate of y")
        .real("gamma_x", &Params::gamma_x, "1", {.gt = 0}, "gamma_x^s, server rate of x")
        .real("gamma_y", &Params::gamma_y, "1", {.gt = 0}, "gamma_y^s, server rate of y");
    s.alias("step_size", {"eta_xl", "eta_yl"}, "the primary step: sets the local rates eta_x^c and eta_y^c");
  }

  Params p;
  Vec snapshot_;  // x~, server side
  struct Down {
    Vec model, snapshot;  // snapshot empty when S = 0
    auto fields() const { return std::tie(model, snapshot); }
  };
  struct Up {
    Vec h;  // (h_x, h_y), the normalised updates
    auto fields() const { return std::tie(h); }
  };
  struct Client {
    Vec z, at_snapshot, g, gy;
  };
  static constexpr bool kScratchClient = true;  // every field is rewritten each turn

  void init(ServerCtx& s) {
    if (p.snapshot_period > 0) snapshot_ = s.model().head(s.dim_x());
  }
  void server_begin(ServerCtx& s, Down& d) const {
    d.model = s.model();
    if (p.snapshot_period > 0) d.snapshot = snapshot_;
  }
  //! x~, the snapshot of the "+" variants (Deng & Mahdavi, AISTATS 2021, Alg. 2); none when S = 0.
  void server_states(StateVisitor& v) const { v.visit("snapshot_x_tilde", snapshot_); }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    const Index dx = c.dim_x(), dy = c.dim() - dx;
    st.z = d.model;
    for (int k = 0; k < p.local_steps; ++k) {
      const auto batch = c.oracle().draw(p.batch_size);
      if (p.snapshot_period > 0) {  // x-gradient here, y-gradient at (x~, y): same minibatch
        st.at_snapshot = st.z;
        st.at_snapshot.head(dx) = d.snapshot;
        st.g.resize(dx);
        c.oracle().grad_x_on(batch, st.z, st.g);
        c.oracle().grad_y_on(batch, st.at_snapshot, st.gy);
      } else {
        c.oracle().op_on(batch, st.z, st.g);  // (grad_x, -grad_y)
        st.gy = -st.g.tail(dy);
      }
      st.z.head(dx) -= p.eta_xl * st.g.head(dx);
      st.z.tail(dy) += p.eta_yl * st.gy;
      c.project(st.z);
    }
    const double K = p.local_steps;
    up.h.resize(c.dim());
    up.h.head(dx) = (d.model.head(dx) - st.z.head(dx)) / (K * p.eta_xl);
    up.h.tail(dy) = (st.z.tail(dy) - d.model.tail(dy)) / (K * p.eta_yl);
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    mean_into(uploads, &Up::h, mean_);
    Vec& model = s.model();
    const Index dx = s.dim_x(), dy = model.size() - dx;
    const double K = p.local_steps;
    model.head(dx) -= (K * p.gamma_x * p.eta_xl) * mean_.head(dx);
    model.tail(dy) += (K * p.gamma_y * p.eta_yl) * mean_.tail(dy);  // the engine projects y
    if (p.snapshot_period > 0 && (s.round() + 1) % p.snapshot_period == 0)
      snapshot_ = model.head(dx);
  }

 private:
  Vec mean_;
};

FEDBENCH_REGISTER_SOLVER(FedNormSgda, "fed-norm-sgda",
                         "local SGDA with normalised client updates and server rates",
                         "Sharma, Panda, Joshi, arXiv 2023 (2302.04249)");
FEDBENCH_REGISTER_SOLVER_ALIAS("fed-norm-sgda-plus", "fed-norm-sgda",
                               "Fed-Norm-SGDA+ (Sharma, Panda, Joshi, arXiv 2023): y-gradients at a "
                               "snapshot refreshed every S rounds",
                               {"snapshot_period", "5"});
FEDBENCH_REGISTER_SOLVER_ALIAS("fedsgda-plus", "fed-norm-sgda",
                               "FedSGDA+ (Wu et al., arXiv 2023 (2310.03613)): Local SGDA+ with "
                               "server rates",
                               {"snapshot_period", "5"});
FEDBENCH_REGISTER_SOLVER_ALIAS("local-sgda-plus", "fed-norm-sgda",
                               "Local SGDA+ (Deng & Mahdavi, AISTATS 2021): snapshot y-gradients, "
                               "rates 1",
                               {"snapshot_period", "5"});

}  // namespace fedbench::solvers
