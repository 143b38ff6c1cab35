// Progress of a suite or of one run: a live line on a terminal (refreshed about 4 times a
// second), a plain line every few seconds when piped (CI logs), nothing with -q. The lines
// are drawn by a timer thread from counters the runs update every round, so they move during
// long stretches without recorded rows. Thread-safe.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>

#include "engine/trajectory.hpp"
#include "problem/metric_names.hpp"

namespace fedbench::suite {

//! Seconds between progress lines: 0.25 on a terminal; piped, FEDBENCH_PROGRESS_INTERVAL when
//! set to a positive number, else 5.
double progress_period(bool terminal);

//! Calls `tick` every `period` seconds on a thread of its own until stopped or destroyed.
class Ticker {
 public:
  Ticker(double period, std::function<void()> tick);
  ~Ticker() { stop(); }
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;
  void stop();

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

//! The live line of a single run: rounds done (from the round counter, every round), the last
//! recorded primary metric, an ETA from the rounds done and the share of time spent evaluating;
//! at the end a one-line hint when evaluation took most of the time.
class RunProgress : public TrajectorySink {
 public:
  RunProgress(std::int64_t rounds, bool quiet);
  ~RunProgress() override;
  //! The counter the run stores its completed rounds into (RunMeta::rounds_done).
  std::atomic<std::int64_t>* rounds_done() { return &rounds_done_; }
  void begin(const RunHeader& header) override;
  void row(const TrajectoryRow& row) override;
  void end(const RunSummary& summary) override;

 private:
  void print();
  std::int64_t rounds_;
  std::atomic<std::int64_t> rounds_done_{0};
  bool quiet_, tty_;
  std::mutex mutex_;
  bool printed_ = false;  // a line is on the terminal
  std::size_t primary_ = 0;
  std::string primary_name_;
  double primary_value_ = NAN, eval_time_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<Ticker> ticker_;
};

class Progress {
 public:
  //! A running run's counters (stable while it runs).
  struct Running {
    std::int64_t rounds = 0;
    std::atomic<std::int64_t> done{0};
  };
  Progress(int total, int cached, bool quiet, int rank = 0);
  ~Progress();
  //! A run of `rounds` rounds starts; store its completed rounds into the returned counter.
  Running* started(std::int64_t rounds);
  //! status "ok" | "diverged" | a failed_status; metric = final primary metric (NaN if none).
  //! `direction`: which way the metric is better (its column's).
  void finished(Running* run, const std::string& status, const std::string& metric_name, double metric,
                Direction direction = Direction::min);
  //! A run that ended without a result (interrupted): no longer running, not done.
  void abandoned(Running* run);
  //! A run found finished when its turn came (another process wrote it meanwhile).
  void finished_elsewhere();
  void message(const std::string& line);  //!< a line that must be seen (errors)
  void close();
  //! Runs finished (here or found finished) and in all.
  int finished_count();
  int total() const { return total_; }

 private:
  //! Prints the line unless it is the one printed last (`again`: even then).
  void print_locked(bool again = false);
  std::mutex mutex_;
  int total_, cached_, done_ = 0, failed_ = 0, diverged_ = 0;
  std::list<Running> running_;
  double best_ = 0;
  bool has_best_ = false;
  std::string best_name_;
  std::string last_line_;
  bool quiet_, tty_, closed_ = false;
  int rank_;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<Ticker> ticker_;
};

}  // namespace fedbench::suite
