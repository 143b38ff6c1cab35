// Progress of a suite: a live line on a terminal, plain lines at most every few seconds when
// piped (CI), nothing with -q. Thread-safe.
#pragma once
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace fedbench::suite {

class Progress {
 public:
  Progress(int total, int cached, bool quiet, int rank = 0);
  void started();
  //! status "ok" | "diverged" | "error"; metric = final primary metric (NaN if none).
  void finished(const std::string& status, const std::string& metric_name, double metric);
  void message(const std::string& line);  //!< a line that must be seen (errors)
  void close();

 private:
  void print_locked(bool force);
  std::mutex mutex_;
  int total_, cached_, done_ = 0, running_ = 0, failed_ = 0, diverged_ = 0;
  double best_ = 0;
  bool has_best_ = false;
  std::string best_name_;
  bool quiet_, tty_;
  int rank_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace fedbench::suite
