// A run's wall clock (engine.hpp RunClock): the time limit of its budget counts everything the
// run takes, the writing of its rows included, and --run-timeout ends it with status timeout.
// A sink that takes 20 ms per row stands for a slow disk: the rounds themselves take
// microseconds, so a clock of solver work and evaluation alone would let the run go on for
// thousands of rows.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "engine/runner.hpp"

using namespace fedbench;

namespace {

class SlowDisk : public TrajectorySink {
 public:
  void begin(const RunHeader&) override {}
  void row(const TrajectoryRow&) override {
    ++rows;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  void end(const RunSummary& s) override { summary = s; }
  int rows = 0;
  RunSummary summary;
};

RunRequest long_gda() {
  RunRequest r;
  r.problem = "quadratic-game";
  r.problem_params = {{"clients", "3"}, {"dim", "2"}};
  r.solver = "gda";
  r.budget.rounds = 100000;
  r.eval.every = 1;
  return r;
}

}  // namespace

TEST_CASE("run clock: the time limit counts the time spent writing rows") {
  RunRequest request = long_gda();
  request.budget.time_limit = 0.2;
  PreparedRun run = prepare_run(request);
  SlowDisk disk;
  execute(run, 1, disk);
  CHECK(disk.summary.reason == StopReason::time_limit);
  CHECK(disk.summary.status() == "ok");
  CHECK(disk.rows < 40);  // 0.2 s of 20 ms rows, and the last row; not 100001
}

TEST_CASE("run clock: a run past its run timeout ends with status timeout, its rows kept") {
  PreparedRun run = prepare_run(long_gda());
  run.run_timeout = 0.2;
  SlowDisk disk;
  execute(run, 1, disk);
  CHECK(disk.summary.reason == StopReason::timeout);
  CHECK(disk.summary.status() == "timeout");
  CHECK(failed_status(disk.summary.status()));
  CHECK(disk.summary.message.find("(--run-timeout)") != std::string::npos);
  CHECK(disk.rows > 1);
  CHECK(disk.rows < 40);
}

TEST_CASE("run clock: a run that ends in time has the same bits with or without a run timeout") {
  RunRequest request = long_gda();
  request.budget.rounds = 50;
  PreparedRun plain = prepare_run(request), limited = prepare_run(request);
  limited.run_timeout = 3600;
  MemoryTrajectory a, b;
  execute(plain, 1, a);
  execute(limited, 1, b);
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t k = 0; k < a.rows.size(); ++k) CHECK(a.rows[k].metrics == b.rows[k].metrics);
  CHECK(a.summary.final_x == b.summary.final_x);
}
