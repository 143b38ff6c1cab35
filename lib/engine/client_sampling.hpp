// Which clients take part in a round: all; m of M uniformly without replacement; each
// independently with probability q; or m i.i.d. uniform draws with replacement (the theory's
// model of cross-device sampling: J. Xie et al., arXiv 2105.14216, 2021, Section 4, each
// client drawn i.i.d. from D), where a client may appear several times; or m candidates of
// whom only m - floor(U r m) respond, U uniform on [0, 1) per round and phase (the drop-out
// model of the code released with Xie et al.'s CD-MAGE: a uniformly random subset of the
// candidates, between m - floor(r m) and m of them).
// Draws come from streams keyed by (seed, round, phase), so the sampled set never depends on
// scheduling. Ids are returned sorted: uploads are reduced in client-id order.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "engine/run_config.hpp"

namespace fedbench {

class ClientSampler {
 public:
  ClientSampler(const Participation& participation, int num_clients, std::uint64_t seed);
  //! The sampled ids for (round, phase); the span stays valid until the next call.
  std::span<const int> sample(std::int64_t round, int phase);
  //! For a round that keeps its candidates across phases: phase 0's sample; in a later phase,
  //! under drop-outs, the candidates of phase 0 with this phase's drop-out count and responders
  //! drawn afresh among them (the code released with Xie et al.'s CD-MAGE); without drop-outs
  //! every candidate responds, so the same set as phase 0.
  std::span<const int> redraw_responders(std::int64_t round, int phase);
  //! The most ids one call can return: M, or m for uniform, iid and dropout sampling.
  int max_per_round() const;

 private:
  Participation participation_;
  int num_clients_;
  std::uint64_t seed_;
  std::vector<int> scratch_;   // the identity permutation between rounds (uniform mode)
  std::vector<int> swaps_;     // this round's swap partners, to undo them
  std::vector<int> selected_;  // reused output
  std::vector<int> candidates_;  // the m candidates of the last draw, in the permutation's order

  void draw_candidates(std::int64_t round, int phase);
  //! How many of the m candidates respond in (round, phase): m, less the drop-outs.
  int responders(std::int64_t round, int phase) const;
};

}  // namespace fedbench
