#include "stuck_run_watch.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "core/text.hpp"
#include "suite/isolated_run.hpp"

namespace fedbench::cli {

StuckRunWatch::StuckRunWatch(const PreparedRun& run) {
  std::optional<double> limit = run.run_timeout;
  if (const auto& t = run.config.budget.time_limit) limit = limit ? std::min(*limit, *t) : *t;
  if (!limit || !suite::runs_in_child(run.config.problem, run.config.solver))
    return;
  const double seconds = *limit + suite::kChildGraceSeconds;
  const std::string solver = run.config.solver;
  thread_ = std::thread([this, seconds, limit = *limit, solver] {
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) return;
    std::fprintf(stderr,
                 "fedbench: the run of %s is still going %s s after its limit of %s s (a plug-in's hook "
                 "that does not return); stopping it, nothing was written\n",
                 solver.c_str(), format_real(suite::kChildGraceSeconds).c_str(), format_real(limit).c_str());
    std::fflush(stderr);
    ::_exit(124);
  });
}

StuckRunWatch::~StuckRunWatch() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace fedbench::cli
