// Builds the items of a generated instance (one client, one sample) on every core. Each item
// draws from its own stream, so the instance does not depend on how many threads built it.
#pragma once
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fedbench::problems {

//! Calls build(k) for every k in [0, n), items handed out in order to up to `cores` threads.
template <class F>
void build_in_parallel(int n, F&& build) {
  const int threads = std::min<int>(n, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::atomic<int> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (int k = next++; k < n; k = next++) {
      try {
        build(k);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace fedbench::problems
