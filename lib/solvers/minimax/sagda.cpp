// SAGDA: federated SGDA with client control variates assembled from the sampled clients.
// H. Yang, Z. Liu, X. Zhang, J. Liu, "SAGDA: Achieving O(eps^-2) Communication Complexity in
// Federated Min-Max Learning", NeurIPS 2022, Algorithm 1; a baseline of W. Shen, M. Huang,
// J. Zhang, C. Shen, AISTATS 2024 (FESS-GDA), Section 4.1. Shen et al. do not restate its
// rules; the two-stage round below is reconstructed from Yang et al.'s description and has
// not been checked line by line against their Algorithm 1: verify before publishing numbers.
//
// Round t, one client set S_t for both stages:
//   stage 1: S_t receive (x_t, y_t), send c_i = F_i(x_t, y_t; xi_i^0) (a fresh minibatch);
//            the server forms v_t = mean c_i;
//   stage 2: S_t receive (x_t, y_t, v_t) and run K local steps with the corrected direction
//            g - c_i + v_t (x: descent with eta_xl, y: ascent with eta_yl, projected), then
//            upload the local model; the server applies the global rates as FSGDA does.
// Without the correction (-c_i + v_t) it is FSGDA (the cited paper's special case). Resolved
// (our reading of the reconstruction): v_t from the same S_t, c_i on a fresh minibatch.
// A client drawn twice in one round (iid:M) keeps one c_i per draw: its k-th stage-2 run
// corrects with its k-th stage-1 gradient, as two distinct participants would.
// Communication: stage 1 d1 + d2 down and up, stage 2 2 (d1 + d2) down (model and v_t) and
// d1 + d2 up.
#include <vector>

#include "engine/solver.hpp"
#include "solvers/common/two_phase_server.hpp"

namespace fedbench::solvers {

struct Sagda {
  struct Params {
    int local_steps, batch_size;
    double eta_xl, eta_yl, eta_xg, eta_yg;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "10", {.ge = 1}, "K, local steps per round")
        .integer("batch_size", &Params::batch_size, "100", {.ge = 0},
                 "B, samples per oracle call, with replacement; 0 = full local batch")
        .real("eta_xl", &Params::eta_xl, "0.01", {.gt = 0}, "eta_{x,l}, local rate of x")
        .real("eta_yl", &Params::eta_yl, "0.01", {.gt = 0}, "eta_{y,l}, local rate of y")
        .real("eta_xg", &Params::eta_xg, "1", {.gt = 0}, "eta_{x,g}, global rate of x")
        .real("eta_yg", &Params::eta_yg, "1", {.gt = 0}, "eta_{y,g}, global rate of y");
    s.alias("step_size", {"eta_xl", "eta_yl"}, "the primary step: sets the local rates eta_{x,l} and eta_{y,l}");
  }
  bool same_clients_every_phase() const { return true; }

  Params p;
  struct Down {
    Vec model;
    OptionalVec correction;  // v_t, sent in stage 2 only
    auto fields() const { return std::tie(model, correction); }
  };
  struct Up {
    Vec payload;  // stage 1: c_i; stage 2: the local model
    auto fields() const { return std::tie(payload); }
  };
  struct Client {
    std::vector<Vec> c;  // c_i of each of this round's draws of the client (one but under iid:M)
    std::int64_t round = -1;
    std::size_t draws = 0, used = 0;  // stage-1 draws this round; stage-2 runs so far
    Vec z, g;
  };

  int phases() const { return 2; }

  //! v_t, the mean of the round's c_i, and each client's c_i (of its last draw, under iid:M its
  //! last run's): the control variates of Yang et al., NeurIPS 2022, Alg. 1 as reconstructed.
  void server_states(StateVisitor& v) const { v.visit("control_mean_v", server_.estimate()); }
  void client_states(const Client& st, StateVisitor& v) const {
    if (st.draws > 0) v.visit("control_variate_c", st.c[st.draws - 1]);
  }

  void server_begin(ServerCtx& s, Down& d) const {
    server_.broadcast(s, s.phase() == 1, d.model, d.correction);
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    if (c.phase() == 0) {
      if (st.round != c.round()) {  // the client's first draw this round
        st.round = c.round();
        st.draws = st.used = 0;
      }
      if (st.c.size() <= st.draws) st.c.emplace_back();
      Vec& c_i = st.c[st.draws++];
      c.oracle().op(d.model, c_i, p.batch_size);
      up.payload = c_i;
      return;
    }
    const Vec& c_i = st.c[st.used++];
    const Index dx = c.dim_x(), dy = c.dim() - dx;
    st.z = d.model;
    for (int k = 0; k < p.local_steps; ++k) {
      c.oracle().op(st.z, st.g, p.batch_size);
      st.g += d.correction.value - c_i;  // the operator is (grad_x, -grad_y): one correction for both
      st.z.head(dx) -= p.eta_xl * st.g.head(dx);
      st.z.tail(dy) -= p.eta_yl * st.g.tail(dy);
      c.project(st.z);
    }
    up.payload = st.z;
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    if (s.phase() == 0)
      server_.collect(uploads);  // v_t
    else
      server_.update(s, uploads, p.eta_xg, p.eta_yg);
  }

 private:
  TwoPhaseServer server_;
};

FEDBENCH_REGISTER_SOLVER(Sagda, "sagda",
                         "federated SGDA with control variates from the sampled clients (2 stages)",
                         "Yang, Liu, Zhang, Liu, NeurIPS 2022, Alg. 1");

}  // namespace fedbench::solvers
