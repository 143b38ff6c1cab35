// Kernels shared by the softmax-classifier problems: the numerically stable softmax with its
// cross-entropy, and a per-thread cache of what a client's Hessian products reuse at one point
// (Newton-CG and the hypergradient's CG apply the same Hessian many times, a Neumann series
// applies it to many minibatches).
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

//! Per-thread values of single rows of each part of the data at one point z, each row filled
//! the first time a batch asks for it and kept until z (or the owning problem instance)
//! changes: a Neumann series applies the Hessian of one point to many minibatches, which
//! revisit the same rows. A row's values are those its fill computes, so the same bits as
//! computing them at every visit.
template <class Owner>
class LazyRowCache {
 public:
  class Rows {
   public:
    //! The `width` values of row j; fill(double* out) computes them on a miss.
    template <class Fill>
    const double* get(Index j, Fill&& fill) {
      double* out = values_.data() + j * width_;
      std::uint64_t& stamp = filled_at_[static_cast<std::size_t>(j)];
      if (stamp != generation_) {
        fill(out);
        stamp = generation_;
      }
      return out;
    }
    //! Row j's values at values()[j * width], valid for the rows filled so far.
    const double* values() const { return values_.data(); }

   private:
    friend class LazyRowCache;
    std::uint64_t instance_ = 0;
    Vec z_;
    Index width_ = 0;
    std::vector<double> values_;
    // Row j holds values at z_ when filled_at_[j] == generation_: a new point starts a new
    // generation instead of clearing every row's flag (batches of ten rows from thousands).
    std::vector<std::uint64_t> filled_at_;
    std::uint64_t generation_ = 0;
  };

  //! The rows of part i of `parts` at z, `rows` rows of `width` values each.
  Rows& at(int i, const Vec& z, std::size_t parts, Index rows, Index width) const {
    thread_local std::vector<Rows> entries;
    if (entries.size() < parts) entries.resize(parts);
    Rows& e = entries[static_cast<std::size_t>(i)];
    if (e.instance_ == instance_ && e.width_ == width && e.filled_at_.size() == static_cast<std::size_t>(rows) &&
        e.z_.size() == z.size() && e.z_ == z)
      return e;
    if (e.instance_ != instance_ || e.width_ != width || e.filled_at_.size() != static_cast<std::size_t>(rows)) {
      e.width_ = width;
      e.values_.resize(static_cast<std::size_t>(rows * width));
      e.filled_at_.assign(static_cast<std::size_t>(rows), 0);
      e.generation_ = 0;
    }
    e.instance_ = 0;  // invalid until marked below, should the copy throw
    e.z_ = z;
    ++e.generation_;
    e.instance_ = instance_;
    return e;
  }

 private:
  static std::uint64_t next_instance() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
  std::uint64_t instance_ = next_instance();  // a copied problem shares its original's entries
};

}  // namespace fedbench::problems
