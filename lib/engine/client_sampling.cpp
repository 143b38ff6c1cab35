#include "engine/client_sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/random.hpp"

namespace fedbench {

ClientSampler::ClientSampler(const Participation& participation, int num_clients,
                             std::uint64_t seed)
    : participation_(participation), num_clients_(num_clients), seed_(seed) {
  if (participation_.draws_distinct() && participation_.clients_per_round > num_clients)
    throw UserError("participation " + participation_.to_text() +
                    " asks for more clients per round than the problem has (" +
                    std::to_string(num_clients) + ")");
  selected_.resize(static_cast<std::size_t>(max_per_round()));
}

void ClientSampler::draw_candidates(std::int64_t round, int phase) {
  // Partial Fisher-Yates: the first m entries of a random permutation. The permutation array
  // persists and its swaps are undone afterwards, so a round costs O(m), not O(M).
  Stream s(seed_, "client-sampling", -1, round, phase);
  const int m = participation_.clients_per_round;
  if (scratch_.empty()) {
    scratch_.resize(static_cast<std::size_t>(num_clients_));
    std::iota(scratch_.begin(), scratch_.end(), 0);
  }
  swaps_.clear();
  for (int k = 0; k < m; ++k) {
    const auto j = k + static_cast<int>(s.below(static_cast<std::uint64_t>(num_clients_ - k)));
    std::swap(scratch_[k], scratch_[j]);
    swaps_.push_back(j);
  }
  candidates_.assign(scratch_.begin(), scratch_.begin() + m);
  for (int k = static_cast<int>(swaps_.size()) - 1; k >= 0; --k)
    std::swap(scratch_[k], scratch_[swaps_[k]]);  // back to the identity
}

int ClientSampler::responders(std::int64_t round, int phase) const {
  int m = participation_.clients_per_round;
  if (participation_.mode == Participation::Mode::dropout) {
    const double u = Stream(seed_, "client-dropout", -1, round, phase).uniform();
    m -= static_cast<int>(std::floor(u * participation_.drop_fraction * m));
  }
  return m;
}

std::span<const int> ClientSampler::redraw_responders(std::int64_t round, int phase) {
  if (phase == 0 || participation_.mode != Participation::Mode::dropout) return sample(round, 0);
  draw_candidates(round, 0);
  // This phase's drop-out count, and which candidates respond drawn afresh: a uniformly random
  // subset of phase 0's candidates, independent of phase 0's responders.
  const int m = responders(round, phase);
  Stream s(seed_, "client-redraw", -1, round, phase);
  const int n = static_cast<int>(candidates_.size());
  for (int k = 0; k < m; ++k)
    std::swap(candidates_[k], candidates_[k + static_cast<int>(s.below(static_cast<std::uint64_t>(n - k)))]);
  std::copy(candidates_.begin(), candidates_.begin() + m, selected_.begin());
  std::sort(selected_.begin(), selected_.begin() + m);
  return {selected_.data(), static_cast<std::size_t>(m)};
}

int ClientSampler::max_per_round() const {
  switch (participation_.mode) {
    case Participation::Mode::uniform:
    case Participation::Mode::iid:
    case Participation::Mode::dropout: return participation_.clients_per_round;
    case Participation::Mode::full:
    case Participation::Mode::bernoulli: break;
  }
  return num_clients_;
}

std::span<const int> ClientSampler::sample(std::int64_t round, int phase) {
  switch (participation_.mode) {
    case Participation::Mode::full: {
      std::iota(selected_.begin(), selected_.end(), 0);
      return {selected_.data(), selected_.size()};
    }
    case Participation::Mode::uniform:
    case Participation::Mode::dropout: {
      draw_candidates(round, phase);
      // Drop-outs: the first m - floor(U r m) candidates of the random order respond, a
      // uniformly random subset (the candidates' draw is the same as uniform:m's).
      const int m = responders(round, phase);
      std::copy(candidates_.begin(), candidates_.begin() + m, selected_.begin());
      std::sort(selected_.begin(), selected_.begin() + m);
      return {selected_.data(), static_cast<std::size_t>(m)};
    }
    case Participation::Mode::iid: {  // m independent uniform draws: repeats allowed
      Stream s(seed_, "client-sampling", -1, round, phase);
      const int m = participation_.clients_per_round;
      for (int k = 0; k < m; ++k)
        selected_[k] = static_cast<int>(s.below(static_cast<std::uint64_t>(num_clients_)));
      std::sort(selected_.begin(), selected_.begin() + m);
      return {selected_.data(), static_cast<std::size_t>(m)};
    }
    case Participation::Mode::bernoulli: {
      std::size_t n = 0;
      for (int i = 0; i < num_clients_; ++i) {
        Stream s(seed_, "client-sampling", i, round, phase);
        if (s.bernoulli(participation_.prob)) selected_[n++] = i;
      }
      return {selected_.data(), n};
    }
  }
  return {};
}

}  // namespace fedbench
