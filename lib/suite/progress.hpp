// Progress of a suite or of one run: a live line on a terminal, plain lines at most every few
// seconds when piped (CI), nothing with -q. Thread-safe.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include "engine/trajectory.hpp"
#include "problem/metric_names.hpp"

namespace fedbench::suite {

//! The live line of a single run, fed by its rows: round, primary metric, ETA and the share of
//! time spent evaluating; at the end a one-line hint when evaluation took most of the time.
class RunProgress : public TrajectorySink {
 public:
  RunProgress(std::int64_t rounds, bool quiet);
  void begin(const RunHeader& header) override;
  void row(const TrajectoryRow& row) override;
  void end(const RunSummary& summary) override;

 private:
  std::int64_t rounds_;
  bool quiet_, tty_, printed_ = false;
  std::size_t primary_ = 0;
  std::string primary_name_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

class Progress {
 public:
  Progress(int total, int cached, bool quiet, int rank = 0);
  void started();
  //! status "ok" | "diverged" | "error"; metric = final primary metric (NaN if none).
  //! `direction`: which way the metric is better (its column's).
  void finished(const std::string& status, const std::string& metric_name, double metric,
                Direction direction = Direction::min);
  //! A run found finished when its turn came (another process wrote it meanwhile).
  void finished_elsewhere();
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
