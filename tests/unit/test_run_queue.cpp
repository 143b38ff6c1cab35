// The order a suite starts its runs: longest estimate first; once a run of a configuration
// has finished, its other seeds are expected to take its seconds, and configurations not seen
// yet are scaled to seconds by what the finished runs took per unit of estimate.
#include <doctest/doctest.h>

#include <set>
#include <thread>
#include <vector>

#include "suite/run_queue.hpp"

using fedbench::suite::RunQueue;

TEST_CASE("run queue: longest estimate first, every run once") {
  RunQueue queue({{0, 1, "a"}, {1, 5, "b"}, {2, 3, "c"}, {3, 5, "d"}});
  CHECK(*queue.take() == 1);  // ties keep the suite's order
  CHECK(*queue.take() == 3);
  CHECK(*queue.take() == 2);
  CHECK(*queue.take() == 0);
  CHECK_FALSE(queue.take());
}

TEST_CASE("run queue: the other seeds of a configuration that took long go first") {
  // Equal estimates; configuration "slow" is the last in the suite's order.
  RunQueue queue({{0, 1, "fast"}, {1, 1, "fast"}, {2, 1, "fast"}, {3, 1, "slow"}, {4, 1, "slow"}, {5, 1, "slow"}});
  CHECK(*queue.take() == 0);
  CHECK(*queue.take() == 1);
  CHECK(*queue.take() == 2);
  CHECK(*queue.take() == 3);
  queue.finished(3, 10.0);  // "slow" took 10 s
  queue.finished(0, 1.0);   // "fast" 1 s: its runs are all started
  CHECK(*queue.take() == 4);
  CHECK(*queue.take() == 5);
  CHECK_FALSE(queue.take());
}

TEST_CASE("run queue: known configurations against estimates scaled by what runs took") {
  RunQueue queue({{0, 2, "a"}, {1, 2, "c"}, {2, 2, "a"}, {3, 1, "b"}});
  CHECK(*queue.take() == 0);
  CHECK(*queue.take() == 1);
  queue.finished(0, 1.0);  // a: 1 s
  queue.finished(1, 6.0);  // c: 6 s; 7 s over 4 units of estimate, so b is expected at 1.75 s
  CHECK(*queue.take() == 3);  // b (1.75 s expected) before a's other seed (1 s)
  CHECK(*queue.take() == 2);
  CHECK_FALSE(queue.take());
}

TEST_CASE("run queue: concurrent takers start every run exactly once") {
  std::vector<RunQueue::Entry> runs;
  for (std::size_t i = 0; i < 2000; ++i) runs.push_back({i, static_cast<double>(i % 17), "k" + std::to_string(i % 50)});
  RunQueue queue(std::move(runs));
  std::vector<std::vector<std::size_t>> taken(4);
  std::vector<std::thread> jobs;
  for (int j = 0; j < 4; ++j)
    jobs.emplace_back([&, j] {
      while (const auto i = queue.take()) {
        taken[j].push_back(*i);
        queue.finished(*i, static_cast<double>(*i % 7));
      }
    });
  for (auto& t : jobs) t.join();
  std::multiset<std::size_t> all;
  for (const auto& t : taken) all.insert(t.begin(), t.end());
  CHECK(all.size() == 2000);
  CHECK(std::set<std::size_t>(all.begin(), all.end()).size() == 2000);
}
