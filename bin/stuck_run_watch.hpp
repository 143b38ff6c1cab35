// `fedbench run` of a plug-in with a time limit (--run-timeout or --time-limit): the engine
// checks the limit between rounds, but a plug-in's hook that never returns (a Python solver
// waiting forever) never gets there. This watch ends the process a grace period after the
// limit: one line, exit code 124, the outputs never published under their names (their
// unfinished FILE.part stays). In a suite such runs run in a child process instead
// (suite/isolated_run.hpp), which is killed alone.
#pragma once
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/runner.hpp"

namespace fedbench::cli {

class StuckRunWatch {
 public:
  //! Watches `run` when its solver or problem is a plug-in and it has a limit; else nothing.
  explicit StuckRunWatch(const PreparedRun& run);
  ~StuckRunWatch();
  StuckRunWatch(const StuckRunWatch&) = delete;
  StuckRunWatch& operator=(const StuckRunWatch&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace fedbench::cli
