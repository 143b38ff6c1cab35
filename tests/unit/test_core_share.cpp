// A suite's spare cores: what finished jobs and runs give is taken by the runs still going,
// fairly (ceil(cores / runs going) each), never past what a run can use, never twice.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/core_share.hpp"

using namespace fedbench;

TEST_CASE("core share: nothing free while every job holds its cores") {
  CoreShare share(8, 8);
  share.run_started();
  CHECK(share.grow(1, 100) == 1);
  CHECK(share.free_cores() == 0);
}

TEST_CASE("core share: cores of finished jobs go to the runs going, a fair share each") {
  CoreShare share(8, 8);  // 8 jobs of one thread
  for (int r = 0; r < 3; ++r) share.run_started();
  for (int j = 0; j < 5; ++j) share.job_finished(1);  // five jobs found nothing to start
  CHECK(share.free_cores() == 5);
  CHECK(share.grow(1, 100) == 3);  // ceil(8 / 3) = 3
  CHECK(share.grow(1, 100) == 3);
  CHECK(share.grow(1, 100) == 2);  // one left
  CHECK(share.free_cores() == 0);
  share.run_finished(2);  // a run with 3 threads (1 its job's) ends
  CHECK(share.free_cores() == 2);
  CHECK(share.grow(3, 100) == 4);  // two going: ceil(8 / 2) = 4
  CHECK(share.grow(2, 100) == 3);
  CHECK(share.free_cores() == 0);
}

TEST_CASE("core share: a run takes no more than it can use") {
  CoreShare share(16, 1);
  share.run_started();
  CHECK(share.grow(1, 6) == 6);
  CHECK(share.grow(6, 6) == 6);
  CHECK(share.free_cores() == 10);
}

TEST_CASE("core share: concurrent takers never hold a core twice") {
  CoreShare share(64, 64);
  constexpr int kRuns = 8;
  for (int r = 0; r < kRuns; ++r) share.run_started();
  std::atomic<int> taken{0};
  std::vector<std::thread> runs;
  for (int r = 0; r < kRuns; ++r)
    runs.emplace_back([&] {
      int threads = 1;
      for (int round = 0; round < 20000; ++round) threads = share.grow(threads, 1000);
      taken += threads - 1;
    });
  for (int j = 0; j < 56; ++j) share.job_finished(1);  // while they take
  for (auto& t : runs) t.join();
  CHECK(taken.load() + share.free_cores() == 56);
}
