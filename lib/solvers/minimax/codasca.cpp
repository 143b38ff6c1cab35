// CODA+ and CODASCA (Z. Yuan, Z. Guo, Y. Xu, Y. Ying, T. Yang, "Federated Deep AUC
// Maximization for Heterogeneous Data with a Constant Communication Complexity", ICML 2021),
// the stage-wise proximal baselines of J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian,
// arXiv 2105.14216, 2021 (CD-MAGE), Section 5 and Appendix B.1 (eta_l, theta, K_0; CODASCA
// with S = 5 clients per round and eta_g in {1.1, 1.0, 0.99}), as run by Xie et al.'s code.
//
// Stage s lasts floor(K_0 / K) rounds; at its start x_ref <- x_t and the step becomes
// eta_s = eta_l / 3^s (the divide-by-3 decay is from Xie et al.'s code, not the paper text).
// Local steps on reshuffled minibatches:
//   x <- x - eta_s (grad_x F - c_{i,x} + c_x + theta (x - x_ref)),
//   y <- y + eta_s (grad_y F - c_{i,y} + c_y)          (the c terms only for CODASCA),
// CODASCA's SCAFFOLD variates: after K steps c_i+ = c_i - c + (z_t - z^K)/(K eta_s) in operator
// form; clients keep c_i across participations and upload z^K and Delta c_i; the server sets
// z_{t+1} = z_t + eta_g (zbar - z_t) and c <- c + (1/N) sum Delta c_i. CODA+ averages plainly.
// Resolved: two-sided variates by default (the standard SCAFFOLD form);
// `dual_control_variate = false` is Xie et al.'s code (x-step only). x_ref rides every
// broadcast when theta > 0 (stateless clients).
#include <cmath>

#include "engine/solver.hpp"
#include "solvers/common/server_rates.hpp"

namespace fedbench::solvers {

struct Codasca {
  struct Params {
    int local_steps, batch_size, stage_iterations;
    double eta_l, eta_g, theta;
    bool control_variates, dual_control_variate;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "10", {.ge = 1}, "K, local steps per round")
        .integer("batch_size", &Params::batch_size, "10", {.ge = 0}, "B, reshuffled minibatch size")
        .integer("stage_iterations", &Params::stage_iterations, "2000", {.ge = 1},
                 "K_0, local iterations per stage (floor(K_0/K) rounds)")
        .real("eta_l", &Params::eta_l, "0.01", {.gt = 0}, "eta_l, local step of stage 0 (divided by 3 per stage)")
        .real("eta_g", &Params::eta_g, "1", {.gt = 0}, "eta_g, server rate (CODASCA)")
        .real("theta", &Params::theta, "0", {.ge = 0}, "theta, proximal weight towards x_ref")
        .boolean("control_variates", &Params::control_variates, "true", "SCAFFOLD variates (CODASCA); false: CODA+")
        .boolean("dual_control_variate", &Params::dual_control_variate, "true",
                 "correct the y-step too (standard); false: Xie et al.'s code");
    s.alias("step_size", {"eta_l"}, "the primary step: sets eta_l");
  }

  Params p;
  struct Down {
    Vec model;
    OptionalVec reference, variate;  // x_ref (theta > 0), c (CODASCA)
    auto fields() const { return std::tie(model, reference, variate); }
  };
  struct Up {
    Vec model;
    OptionalVec variate_change;  // Delta c_i (CODASCA)
    auto fields() const { return std::tie(model, variate_change); }
  };
  struct Client {
    Vec z, g, c;  // c: c_i, kept across participations
  };

  std::int64_t stage_rounds() const { return std::max(1, p.stage_iterations / p.local_steps); }
  double step(std::int64_t round) const {
    return p.eta_l / std::pow(3.0, static_cast<double>(round / stage_rounds()));
  }

  void init(ServerCtx& s) {
    reference_ = s.model().head(s.dim_x());
    variate_ = Vec::Zero(s.model().size());
  }
  void init_client(ClientCtx& c, Client& st) const { st.c = Vec::Zero(c.dim()); }

  //! Yuan et al., ICML 2021: the stage's proximal centre x_ref and the SCAFFOLD variates c and
  //! c_i, in operator form (the y block carries -grad_y).
  void server_states(StateVisitor& v) const {
    v.visit("prox_center_x_ref", reference_);
    if (p.control_variates) v.visit("control_variate_c", variate_);
  }
  void client_states(const Client& st, StateVisitor& v) const {
    if (p.control_variates) v.visit("control_variate_c_i", st.c);
  }

  void server_begin(ServerCtx& s, Down& d) {
    if (s.round() % stage_rounds() == 0) reference_ = s.model().head(s.dim_x());
    d.model = s.model();
    d.reference.sent = p.theta > 0;
    if (d.reference.sent) d.reference.value = reference_;
    d.variate.sent = p.control_variates;
    if (d.variate.sent) d.variate.value = variate_;
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    const Index dx = c.dim_x(), dy = c.dim() - dx;
    const double eta = step(c.round());
    st.z = d.model;
    for (int k = 0; k < p.local_steps; ++k) {
      c.oracle().op_on(c.oracle().next_reshuffled(p.batch_size), st.z, st.g);  // (grad_x, -grad_y)
      if (p.control_variates) {
        st.g.head(dx) += d.variate.value.head(dx) - st.c.head(dx);
        if (p.dual_control_variate) st.g.tail(dy) += d.variate.value.tail(dy) - st.c.tail(dy);
      }
      if (p.theta > 0) st.g.head(dx) += p.theta * (st.z.head(dx) - d.reference.value);
      st.z -= eta * st.g;
      c.project(st.z);
    }
    up.model = st.z;
    up.variate_change.sent = p.control_variates;
    if (p.control_variates) {  // c_i+ - c_i = -c + (z_t - z^K)/(K eta), in operator form
      up.variate_change.value = (d.model - st.z) / (p.local_steps * eta) - d.variate.value;
      st.c += up.variate_change.value;
    }
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    mean_into(uploads, &Up::model, mean_);
    if (!p.control_variates) {
      s.model() = mean_;
      return;
    }
    apply_server_rates(s.model(), mean_, s.dim_x(), p.eta_g, p.eta_g);
    for (const Up& u : uploads) variate_ += u.variate_change.value / static_cast<double>(s.num_clients());
  }

 private:
  Vec reference_, variate_, mean_;
};

FEDBENCH_REGISTER_SOLVER(Codasca, "codasca",
                         "stage-wise proximal local SGDA with SCAFFOLD control variates",
                         "Yuan et al., ICML 2021 (CODASCA)");
FEDBENCH_REGISTER_SOLVER_ALIAS("coda-plus", "codasca",
                               "CODA+ (Yuan et al., ICML 2021): stage-wise proximal local SGDA, "
                               "plain averaging",
                               {"control_variates", "false"});

}  // namespace fedbench::solvers
