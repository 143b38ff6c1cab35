// Evaluations beside the rounds. A recorded row's exact metrics (reference solves, full passes
// over the data) can cost more than many rounds, and the round loop rarely needs them at once:
// only a row that ends the run (divergence, a target reached, an evaluation that fails) changes
// what happens next. So the run may hand an evaluation to this thread and go on; its rows are
// accepted in round order as they finish, and when one ends the run, the rounds that ran past
// it are discarded (the engine keeps the snapshot each deferred row was taken from).
//
// Metric values do not depend on where or on how many threads they are computed
// (problem/evaluation_threads.hpp), and evaluations run one after another in round order, so
// the run's warm-start state sees the same sequence as when the loop waits: the same bits.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "core/types.hpp"
#include "engine/solver_diagnostics.hpp"

namespace fedbench {

//! The metrics of `model` (NaN when it is not finite) on the current EvaluationThreads scope.
//! `diagnostics` (may be null) fill the last of `out`, after the problem's metrics.
void evaluate_metrics(const Problem& problem, const Vec& model, std::span<double> out, MetricState* state,
                      const SolverDiagnostics* diagnostics);

class BackgroundEvaluator {
 public:
  struct Result {
    std::int64_t round = 0;
    std::vector<double> metrics;
    double seconds = 0;        //!< the evaluation's own time
    std::exception_ptr error;  //!< what the evaluation threw, if it did
  };

  //! Evaluations of `problem` with the run's metric state (used by this thread only until
  //! the queue is drained).
  BackgroundEvaluator(const Problem& problem, MetricState* state, std::size_t metric_count,
                      const SolverDiagnostics* diagnostics);
  //! Waits for the evaluation in progress (it cannot be cut short) and drops the rest.
  ~BackgroundEvaluator();
  BackgroundEvaluator(const BackgroundEvaluator&) = delete;
  BackgroundEvaluator& operator=(const BackgroundEvaluator&) = delete;

  //! Queues the evaluation of `model` (taken at `round`) on `threads` threads of its own.
  void submit(std::int64_t round, std::shared_ptr<const Vec> model, int threads);
  //! The oldest queued evaluation once it is finished: at once (nullopt while it runs) or,
  //! with `wait`, when it finishes (nullopt when nothing is queued).
  std::optional<Result> next(bool wait);

 private:
  struct Job {
    std::int64_t round;
    std::shared_ptr<const Vec> model;  // shared with the deferred row, read-only
    int threads;
  };
  void work();

  const Problem& problem_;
  MetricState* const state_;
  const std::size_t metric_count_;
  const SolverDiagnostics* const diagnostics_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  std::deque<Result> done_;
  bool running_ = false;  // a job taken off jobs_ is being evaluated
  bool stop_ = false;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace fedbench
