// e^v of a problem's parameter vector, kept per thread for the last two vectors asked for.
// Regularisers with weights e^{x_q} need it in every lower-level oracle, and a STORM step
// calls three of them at each of two alternating points: without the cache every call paid
// one exp per feature, more than the rows of a minibatch cost.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/types.hpp"

namespace fedbench::problems {

//! Owner separates the caches of different problem classes; a copied problem shares its
//! original's entries (same data, same values).
template <class Owner>
class ExpCache {
 public:
  //! std::exp(v[k]) for k < n, the same bits as calling it in place. Valid until the calling
  //! thread asks twice more.
  const double* at(const double* v, Index n) const {
    thread_local Entry entries[2];
    thread_local int last = 0;
    const auto bytes = sizeof(double) * static_cast<std::size_t>(n);
    for (int i : {last, 1 - last}) {
      Entry& e = entries[i];
      // Bytes, not ==: -0 and +0 stay apart, and a NaN entry is a hit like any other.
      if (e.instance == instance_ && e.key.size() == static_cast<std::size_t>(n) &&
          std::memcmp(e.key.data(), v, bytes) == 0) {
        last = i;
        return e.value.data();
      }
    }
    last = 1 - last;  // replace the older entry
    Entry& e = entries[last];
    e.instance = 0;  // invalid until filled, should an allocation throw
    e.key.assign(v, v + n);
    e.value.resize(static_cast<std::size_t>(n));
    for (Index k = 0; k < n; ++k) e.value[static_cast<std::size_t>(k)] = std::exp(v[k]);
    e.instance = instance_;
    return e.value.data();
  }

 private:
  struct Entry {
    std::uint64_t instance = 0;
    std::vector<double> key, value;
  };
  static std::uint64_t next_instance() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
  std::uint64_t instance_ = next_instance();
};

}  // namespace fedbench::problems
