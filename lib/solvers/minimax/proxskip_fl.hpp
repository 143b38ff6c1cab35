// The ProxSkip-VIP-FL round (S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024,
// Section 4, Algorithm 2; Algorithm 4 of Appendix C is the same loop with another estimator),
// written once for any estimator policy E (ensmallen-style: ProxSkipFl<PlainEstimator> is
// ProxSkip-(S)GDA-FL, ProxSkipFl<LsvrgEstimator> is ProxSkip-L-SVRGDA-FL).
//
// Symbols: gamma = step_size, p = comm_prob, h_i = Client::h, x_{i,t} = Client::x,
// x-hat = Client::x_hat, x' = Up::x_shifted, x-bar = Down::x_avg.
// Resolved: the per-iteration coin theta_t is drawn once per round as the number of local
// iterations K ~ Geometric(p) (the same law: iterations up to and including the first
// theta = 1), so one engine round is one communication; K rides the broadcast as control
// bytes. The loop runs T iterations: Algorithms 1-4 loop over t = 0, ..., T, i.e. T+1
// iterations, which we read as a typo. gamma acts on the raw client operators f_i (the
// consensus form of Section 2.1, eq. (3), F(x) = sum_i f_i(x_i), without 1/n); h_{i,0} = 0;
// full participation only.
// Deviation: x' = x-hat - (gamma/p) h is evaluated in the algebraically equal form
// x - gamma g - gamma (1/p - 1) h, so that p = 1 reproduces Local GDA with one local step bit
// for bit (the h terms vanish exactly instead of cancelling in rounding).
// op_scale s reproduces the operator of the authors' code (s F_i; github.com/isayantan/
// ProxSkipVIP, behind Fig. 1(b)) with step gamma: that is the algorithm with step gamma s on
// F_i (h rescales by s), while p = sqrt(gamma mu) keeps the unscaled gamma.
//
// An estimator policy E provides: Params (with step_size and comm_prob), declare, resolve,
// State (per-client extra state), init(ClientCtx&, State&, const Params&),
// estimate(ClientCtx&, State&, const Params&, const Vec& x, Vec& g, iteration) and
// states(const State&, StateVisitor&) (the lasting part of State, for traces).
#pragma once
#include <cstdint>
#include <span>
#include <tuple>

#include "engine/solver.hpp"

namespace fedbench::solvers {

//! gamma and p, declared once for every estimator's Params.
template <class P>
void declare_step_and_comm_prob(Schema<P>& s, const std::string& step_theory) {
  s.real("step_size", &P::step_size, kTheory, {.gt = 0},
         "gamma, local step (Alg. 2 line 4); theory " + step_theory, true)
      .real("comm_prob", &P::comm_prob, kTheory, {.gt = 0, .le = 1},
            "p, chance that an iteration ends with communication; theory sqrt(gamma mu)", true)
      .real("op_scale", &P::op_scale, "1", {.gt = 0},
            "operator scale s: local steps use gamma s, theory p and q use gamma (the "
            "authors' code's 1/M averaging behind Fig. 1(b) is s = 1/M)");
}

template <class E>
struct ProxSkipFl {
  using Params = typename E::Params;
  static void declare(Schema<Params>& s) { E::declare(s); }
  static void supports(const Params&, const SolverSetup& s) {
    if (s.config.participation.mode != Participation::Mode::full)
      s.reject("ProxSkip-VIP-FL (Alg. 2) needs every client in every round; "
               "use --participation full");
  }
  static void resolve(Params& p, const SolverSetup& s) { E::resolve(p, s); }

  Params p;

  struct Down {
    Vec x_avg;
    std::int64_t local_steps = 1;
    auto fields() const { return std::tie(x_avg, local_steps); }
  };
  struct Up {
    Vec x_shifted;
    auto fields() const { return std::tie(x_shifted); }
  };
  struct Client {
    Vec x, h, x_hat, g;
    typename E::State estimator;
  };

  void init_client(ClientCtx& c, Client& st) const {
    st.h = Vec::Zero(c.dim());
    st.x_hat = Vec::Zero(c.dim());
    E::init(c, st.estimator, p);
  }

  //! Zhang et al., ICLR 2024, Alg. 2: h_i as stored between rounds, i.e. before the last
  //! communication's line-11 update (applied when the next round's x-bar arrives), and the
  //! x-hat of that update; then the estimator's own state.
  void client_states(const Client& st, StateVisitor& v) const {
    v.visit("control_variate_h", st.h);
    v.visit("local_x_hat", st.x_hat);
    E::states(st.estimator, v);
  }

  void server_begin(ServerCtx& s, Down& d) const {
    d.x_avg = s.model();
    d.local_steps = s.stream("comm-coin").geometric(p.comm_prob);  // Alg. 2 line 2
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    const double gamma = p.step_size * p.op_scale;
    // Alg. 2 line 11 for the previous round's communicating iteration, now that x-bar is here.
    if (c.round() > 0) st.h += (p.comm_prob / gamma) * (d.x_avg - st.x_hat);
    st.x = d.x_avg;
    for (std::int64_t k = 0; k + 1 < d.local_steps; ++k) {  // theta = 0: x <- x-hat (line 9)
      E::estimate(c, st.estimator, p, st.x, st.g, k);
      st.x -= gamma * (st.g - st.h);
    }
    E::estimate(c, st.estimator, p, st.x, st.g, d.local_steps - 1);  // theta = 1
    st.x_hat = st.x - gamma * (st.g - st.h);                         // line 4
    up.x_shifted = st.x - gamma * st.g - (gamma * (1.0 / p.comm_prob - 1.0)) * st.h;  // line 6
  }

  void server_end(ServerCtx& s, std::span<const Up> up) const {
    mean_into(up, &Up::x_shifted, s.model());  // line 7: the prox of the consensus constraint
  }
};

}  // namespace fedbench::solvers
