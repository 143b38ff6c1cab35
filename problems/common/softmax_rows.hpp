// Kernels shared by the softmax-classifier problems: the numerically stable softmax with its
// cross-entropy, and a per-thread cache of whatever a client's (or a row block's) full-batch
// Hessian products reuse at one point (Newton-CG and the hypergradient's CG apply the same
// Hessian many times).
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/types.hpp"

namespace fedbench::problems {

//! Turns logits[0..c) into softmax probabilities in place, shifted by the largest logit `top`;
//! returns their normaliser sum exp(logits - top). The largest logit's term is exp(0), exactly
//! 1, so it skips the call (the same bits, one exp fewer per row).
inline double softmax_with_top(double* logits, Index classes, double top) {
  double norm = 0;
  for (Index c = 0; c < classes; ++c) {
    const double shifted = logits[c] - top;
    norm += (logits[c] = shifted == 0 ? 1.0 : std::exp(shifted));
  }
  const double inverse = 1.0 / norm;
  for (Index c = 0; c < classes; ++c) logits[c] *= inverse;
  return norm;
}

//! Turns logits[0..c) into softmax probabilities in place; returns the cross-entropy at
//! class `label`, log sum exp(logits) - logits[label], shifted by the largest logit.
inline double softmax_cross_entropy(double* logits, Index classes, Index label) {
  const double label_logit = logits[label];
  const double top = *std::max_element(logits, logits + classes);
  return top + std::log(softmax_with_top(logits, classes, top)) - label_logit;
}

//! The probabilities alone, as softmax_cross_entropy leaves them (gradients need no log).
inline void softmax(double* logits, Index classes) {
  softmax_with_top(logits, classes, *std::max_element(logits, logits + classes));
}

//! Per-thread payload of each part of the data (a client, or a block of a client's rows)
//! computed at one point z, refilled when z (or the owning problem instance) changes. Owner
//! separates the caches of different problem classes.
template <class Owner, class Payload>
class FullBatchCache {
 public:
  //! The payload of part i of `parts` at z; fill(Payload&) computes it on a miss.
  template <class Fill>
  const Payload& at(int i, const Vec& z, std::size_t parts, Fill&& fill) const {
    thread_local std::vector<Entry> entries;
    entries.resize(std::max(entries.size(), parts));
    Entry& e = entries[static_cast<std::size_t>(i)];
    if (e.instance == instance_ && e.z.size() == z.size() && e.z == z) return e.payload;
    e.instance = 0;  // invalid until filled, should fill throw
    fill(e.payload);
    e.z = z;
    e.instance = instance_;
    return e.payload;
  }

 private:
  struct Entry {
    std::uint64_t instance = 0;
    Vec z;
    Payload payload;
  };
  static std::uint64_t next_instance() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
  std::uint64_t instance_ = next_instance();  // a copied problem shares its original's entries
};

}  // namespace fedbench::problems
