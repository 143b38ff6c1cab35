// The client thread pool: every index runs exactly once per call, whatever mix of spinning,
// parked and late workers; exceptions reach the caller and leave the pool usable; calls whose
// items take a few microseconds in all run on the calling thread, longer ones are shared.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/thread_pool.hpp"

using namespace fedbench;

namespace {

// Busy work of about `us` microseconds (a sleep would hand the core away).
void spin_for(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

TEST_CASE("thread pool: every index exactly once, over thousands of calls of every size") {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> hits(600);
    long long expected = 0;
    for (int call = 0; call < 3000; ++call) {
      const int n = 1 + (call * 37) % 600;
      const double work_us = call % 100 == 0 ? 20 : 0;  // now and then a call worth sharing
      auto f = [&](int i) {
        hits[i].fetch_add(1, std::memory_order_relaxed);
        if (work_us > 0) spin_for(work_us);
      };
      pool.parallel_for(n, f);
      expected += n;
      if (call % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // workers park
    }
    long long total = 0;
    for (auto& h : hits) total += h.load();
    CHECK(total == expected);
    for (int i = 0; i < 600; ++i) {
      long long want = 0;
      for (int call = 0; call < 3000; ++call) want += i < 1 + (call * 37) % 600;
      REQUIRE(hits[i].load() == want);
    }
  }
}

TEST_CASE("thread pool: the first exception reaches the caller, the pool stays usable") {
  ThreadPool pool(2);
  auto slow = [](int) { spin_for(50); };
  pool.parallel_for(8, slow);  // make the next calls shared
  auto throws = [](int i) {
    spin_for(50);
    if (i == 3) throw std::runtime_error("client 3 failed");
  };
  CHECK_THROWS_WITH(pool.parallel_for(8, throws), "client 3 failed");
  std::atomic<int> count{0};
  auto counts = [&](int) {
    spin_for(50);
    ++count;
  };
  pool.parallel_for(8, counts);
  CHECK(count.load() == 8);
}

TEST_CASE("thread pool: tiny calls run on the caller, calls of real work are shared") {
  ThreadPool pool(2);
  std::atomic<long long> sum{0};
  auto tiny = [&](int i) { sum.fetch_add(i, std::memory_order_relaxed); };
  for (int call = 0; call < 100; ++call) pool.parallel_for(4, tiny);
  CHECK(sum.load() == 100 * 6);
  CHECK(pool.inline_calls() >= 50);  // most: a preempted call may look long for a few calls
  const auto shared_before = pool.shared_calls();
  auto heavy = [](int) { spin_for(200); };
  for (int call = 0; call < 10; ++call) pool.parallel_for(4, heavy);
  CHECK(pool.shared_calls() - shared_before >= 9);  // one inline call measures the new size
}

TEST_CASE("thread pool: workers added between calls take part, every index still once") {
  ThreadPool pool(1);
  for (int threads = 1; threads <= 4; ++threads) {
    pool.grow_to(threads);
    pool.grow_to(threads - 1);  // fewer: nothing changes
    CHECK(pool.threads() == threads);
    std::vector<std::atomic<int>> hits(64);
    std::mutex mutex;
    std::set<std::thread::id> ran_on;
    auto f = [&](int i) {
      spin_for(100);
      hits[i].fetch_add(1);
      std::lock_guard lock(mutex);
      ran_on.insert(std::this_thread::get_id());
    };
    for (int call = 0; call < 20; ++call) pool.parallel_for_long(64, f);
    for (auto& h : hits) REQUIRE(h.load() == 20);
    CHECK(static_cast<int>(ran_on.size()) <= threads);
    if (threads > 1) CHECK(ran_on.size() >= 2);  // the added workers claim items
  }
}

TEST_CASE("thread pool: a call of n items involves workers 1..n-1 only, and wakes them when parked") {
  ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::thread::id> ran_on;
  auto record = [&](int) {
    spin_for(50);
    std::lock_guard lock(mutex);
    ran_on.insert(std::this_thread::get_id());
  };
  // Calls of two items, with pauses long enough for every worker to park in between: the
  // caller and worker 1 only.
  for (int call = 0; call < 50; ++call) {
    pool.parallel_for_long(2, record);
    if (call % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CHECK(ran_on.size() <= 2);
  // Then four items that each wait until four threads hold one: parked workers 2 and 3 must
  // wake for it (a deadline instead of a hang if they do not).
  std::atomic<int> arrived{0};
  std::atomic<int> met{0};
  auto gather = [&](int) {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (arrived.load() < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    if (arrived.load() >= 4) met.fetch_add(1);
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // all parked
  pool.parallel_for_long(4, gather);
  CHECK(met.load() == 4);
}
