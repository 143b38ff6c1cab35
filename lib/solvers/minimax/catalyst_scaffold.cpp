// Catalyst-Scaffold-S (C. Hou, K. K. Thekumparampil, G. Fanti, S. Oh, "Efficient Algorithms
// for Federated Saddle Point Optimization", arXiv 2102.06333, 2021), as run as a baseline by
// J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian, arXiv 2105.14216, 2021 (CD-MAGE), Section 5 and
// Appendix B.1 (eta_g = eta_l after Hou et al.; communication probability p = 1/K), and by
// their public code.
//
// Stages of K_0 local iterations. At a stage start z_ref <- z_t, and K_0 Bernoulli(p = 1/K)
// flags are drawn (redrawn while all are zero); flagged indices i_1 < i_2 < ... end rounds of
// i_r - i_{r-1} local steps (i_0 = 0; a first round of zero steps is skipped; steps after the
// last flag are dropped), so a round runs ~Geometric(1/K) steps. Each round has CD-MAGE's two
// phases on one client set: A, clients send full local gradients at z_t, averaged into g;
// B, K_r steps on reshuffled minibatches with the SCAFFOLD-style corrected, proximal direction
//   d = F_i(z; B) - F_i(z_t; B) + g + theta (z - z_ref)       (operator form, both blocks)
// and z <- z - eta_l d; server z_{t+1} = z_t + (eta_g/eta_l)(zbar - z_t).
// Resolved: Xie et al. are silent on the anchor and on step decay; as in their code, the
// anchor is not extrapolated and the step does not decay (the divide-by-3 decay is CODA+/
// CODASCA's only). The stage schedule comes from public server coins, and the step count K_r
// rides the phase-B broadcast as a control integer (bytes, not floats). All-zero flags are
// redrawn (our choice: a stage needs at least one round). `round_lengths = fixed` runs
// exactly K steps per round and floor(K_0/K) rounds per stage, so that theta = 0 reduces to
// CD-MAGE with eta = gamma = eta_l (our derivation, not in the papers). z_ref rides every
// phase-B broadcast when theta > 0 (stateless clients: d more floats down per round).
#include <algorithm>

#include "engine/solver.hpp"
#include "solvers/common/two_phase_server.hpp"

namespace fedbench::solvers {

struct CatalystScaffold {
  struct Params {
    enum class RoundLengths { geometric, fixed };
    RoundLengths round_lengths;
    int local_steps, batch_size, stage_iterations;
    double eta_l, global_ratio, theta;
  };
  static void declare(Schema<Params>& s) {
    s.choice("round_lengths", &Params::round_lengths, "geometric", {{"geometric", Params::RoundLengths::geometric},
              {"fixed", Params::RoundLengths::fixed}},
             "local steps per round: Bernoulli(1/K) flags within a stage (Xie et al.'s code), or exactly K")
        .integer("local_steps", &Params::local_steps, "10", {.ge = 1},
                 "K, mean local steps per round (communication probability p = 1/K)")
        .integer("batch_size", &Params::batch_size, "10", {.ge = 0},
                 "B, reshuffled minibatch size (0 = the whole local data)")
        .integer("stage_iterations", &Params::stage_iterations, "2000", {.ge = 2},
                 "K_0, local iterations per proximal stage")
        .real("eta_l", &Params::eta_l, "0.01", {.gt = 0}, "eta_l, local step of both players")
        .real("global_ratio", &Params::global_ratio, "1", {.gt = 0},
              "eta_g/eta_l, server step relative to the local one (1: plain average, Hou et al.)")
        .real("theta", &Params::theta, "0", {.ge = 0}, "theta, proximal weight towards z_ref");
    s.alias("step_size", {"eta_l"}, "the primary step: sets eta_l");
  }

  Params p;
  struct Down {
    Vec model;
    OptionalVec estimate, reference;  // phase B: g; z_ref when theta > 0
    std::int32_t steps = 0;           // phase B: K_r
    auto fields() const { return std::tie(model, estimate, reference, steps); }
  };
  struct Up {
    Vec payload;  // phase A: the full local gradient; phase B: the local model
    auto fields() const { return std::tie(payload); }
  };
  struct Client {
    Vec z, a, b;
  };
  static constexpr bool kScratchClient = true;  // every field is rewritten each turn

  bool same_clients_every_phase() const { return true; }
  int phases() const { return 2; }

  //! The phase-A gradient estimate g and the stage's anchor z_ref (Hou et al., arXiv
  //! 2102.06333, SCAFFOLD-S inside the Catalyst stage).
  void server_states(StateVisitor& v) const {
    v.visit("gradient_estimate_g", server_.estimate());
    v.visit("prox_center_z_ref", reference_);
  }

  void server_begin(ServerCtx& s, Down& d) {
    if (s.phase() == 0 && next_round_ == round_steps_.size()) start_stage(s);
    const bool update = s.phase() == 1;
    server_.broadcast(s, update, d.model, d.estimate);
    d.reference.sent = update && p.theta > 0;
    if (d.reference.sent) d.reference.value = reference_;
    d.steps = update ? round_steps_[next_round_] : 0;
  }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    if (c.phase() == 0) {  // phase A: the full local gradient at z_t
      c.oracle().op_on({}, d.model, up.payload);
      return;
    }
    st.z = d.model;
    for (int k = 0; k < d.steps; ++k) {
      const auto batch = c.oracle().next_reshuffled(p.batch_size);
      c.oracle().op_on(batch, st.z, st.a);
      c.oracle().op_on(batch, d.model, st.b);
      st.a -= st.b;
      st.a += d.estimate.value;
      if (p.theta > 0) st.a += p.theta * (st.z - d.reference.value);
      st.z -= p.eta_l * st.a;
      c.project(st.z);
    }
    up.payload = st.z;
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    if (s.phase() == 0) {
      server_.collect(uploads);  // g, the full gradient at z_t
      return;
    }
    server_.update(s, uploads, p.global_ratio, p.global_ratio);
    ++next_round_;
  }

 private:
  //! A new proximal stage: anchor at z_t and the stage's round lengths.
  void start_stage(ServerCtx& s) {
    reference_ = s.model();
    round_steps_.clear();
    next_round_ = 0;
    if (p.round_lengths == Params::RoundLengths::fixed) {
      round_steps_.assign(static_cast<std::size_t>(std::max(1, p.stage_iterations / p.local_steps)),
                          p.local_steps);
      return;
    }
    Stream coins = s.stream("catalyst-flags");
    const double prob = 1.0 / p.local_steps;
    while (round_steps_.empty()) {  // all-zero flags: redraw (a stage needs a round)
      int last = 0;
      for (int i = 0; i < p.stage_iterations; ++i) {
        if (!coins.bernoulli(prob)) continue;
        if (i > last) round_steps_.push_back(i - last);  // a first round of 0 steps is skipped
        last = i;
      }
    }
  }

  TwoPhaseServer server_;
  Vec reference_;
  std::vector<std::int32_t> round_steps_;
  std::size_t next_round_ = 0;
};

FEDBENCH_REGISTER_SOLVER(CatalystScaffold, "catalyst-scaffold-s",
                         "proximal stages of two-phase corrected local SGDA with random round lengths",
                         "Hou, Thekumparampil, Fanti, Oh, arXiv 2021 (2102.06333), as run by "
                         "Xie et al. 2021");

}  // namespace fedbench::solvers
