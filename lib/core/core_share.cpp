#include "core/core_share.hpp"

#include <algorithm>

namespace fedbench {

CoreShare::CoreShare(int cores, int held) : cores_(cores), free_(std::max(0, cores - held)) {}

void CoreShare::run_started() { running_.fetch_add(1, std::memory_order_relaxed); }

void CoreShare::run_finished(int grown) {
  running_.fetch_sub(1, std::memory_order_relaxed);
  if (grown > 0) free_.fetch_add(grown, std::memory_order_relaxed);
}

void CoreShare::job_finished(int threads) {
  if (threads > 0) free_.fetch_add(threads, std::memory_order_relaxed);
}

int CoreShare::grow(int current, int useful) {
  int free = free_.load(std::memory_order_relaxed);
  if (free <= 0) return current;  // the common case, every round: one load
  const int running = std::max(1, running_.load(std::memory_order_relaxed));
  const int fair = (cores_ + running - 1) / running;
  const int want = std::min(useful, fair) - current;
  if (want <= 0) return current;
  int take = 0;
  do {
    take = std::min(want, free);
    if (take <= 0) return current;
  } while (!free_.compare_exchange_weak(free, free - take, std::memory_order_relaxed));
  return current + take;
}

}  // namespace fedbench
