// The cores of a suite's process that no run waiting to start needs, handed to the runs still
// going. A suite starts `jobs` runs at a time with cores / jobs threads each; when the queue
// drains, the cores of jobs with nothing left to start would idle while the last runs finish
// on their few threads. Instead a job that finds nothing to start gives its cores here, and a
// run that finishes gives back those it took; runs still going take them between rounds (a
// run's thread count only grows, and results never depend on it).
//
// Cores are shared fairly: a run grows to at most ceil(cores / runs going) threads, and never
// past what it can use. No core is ever held twice: what is here is held by no job and no run.
#pragma once
#include <atomic>

namespace fedbench {

class CoreShare {
 public:
  //! `cores` in all, of which `held` are held by the jobs from the start (the rest are free).
  CoreShare(int cores, int held);

  //! A run starts / ends; `grown` is what it took from here (given back).
  void run_started();
  void run_finished(int grown);
  //! A job with nothing left to start gives its `threads` cores.
  void job_finished(int threads);

  //! The thread count a run with `current` threads, able to use `useful`, may grow to now
  //! (the cores are taken; `current` when none are free).
  int grow(int current, int useful);

  int free_cores() const { return free_.load(std::memory_order_relaxed); }

 private:
  const int cores_;
  std::atomic<int> free_;
  std::atomic<int> running_{0};
};

}  // namespace fedbench
