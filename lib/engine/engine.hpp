// The round loop, written once for every solver (ensmallen's SGD loop, benchopt's run()).
// Per round the federated mechanics run phase by phase (engine/round_loop.hpp: sample,
// broadcast, client work on the thread pool, uploads counted and handed to server_end in
// client-id order); between rounds, outside the timed region, the monitor here applies budgets,
// divergence checks and evaluation.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/build_info.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "core/thread_pool.hpp"
#include "engine/round_loop.hpp"
#include "engine/run_config.hpp"
#include "engine/solver_contract.hpp"
#include "engine/trajectory.hpp"
#include "problem/evaluation_threads.hpp"

namespace fedbench {

namespace detail {

RunHeader make_header(const Problem& problem, const RunConfig& config, int threads,
                      const RunMeta& meta);

//! Evaluation, budgets and divergence: the parts of a run between rounds. Evaluations share
//! the run's threads (the round loop is waiting for them).
class RunMonitor {
 public:
  RunMonitor(const Problem& problem, const RunConfig& config, TrajectorySink& sink, ThreadPool& pool);
  //! Records a row; returns true if the run must stop (sets reason and message).
  bool record(std::int64_t round, const Vec& model, const OracleCounts& oracle,
              const CommCounts& comm, double wall_time);
  //! Checks budgets and a non-finite model after a round; true if the run must stop.
  bool after_round(std::int64_t round, const Vec& model, const OracleCounts& oracle,
                   const CommCounts& comm, double wall_time);
  bool due(std::int64_t round) const { return config_.eval.due(round); }
  std::int64_t last_recorded() const { return last_recorded_; }
  double eval_time() const { return eval_time_; }
  MetricState* metric_state() const { return metric_state_.get(); }
  StopReason reason = StopReason::max_rounds;
  std::string message;

 private:
  const Problem& problem_;
  const RunConfig& config_;
  TrajectorySink& sink_;
  ThreadPool& pool_;
  std::vector<std::string> names_;
  std::size_t primary_ = 0;
  std::ptrdiff_t target_ = -1;
  std::unique_ptr<MetricState> metric_state_;  // this run's warm starts
  double initial_primary_ = 0;
  std::int64_t last_recorded_ = -1;
  double eval_time_ = 0;
};

//! The run's summary (stop reason, counts, final iterate), handed to the sink's end.
RunSummary finish_run(const Problem& problem, const Vec& model, std::vector<OracleCounts> per_client,
                      const RunMonitor& monitor, std::int64_t completed, double wall, ThreadPool& pool,
                      TrajectorySink& sink);

}  // namespace detail

template <class S>
RunSummary run_rounds(S& solver, const Problem& problem, const RunConfig& config,
                      int threads, TrajectorySink& sink, const RunMeta& meta) {
  static_assert(check_solver_contract<S>());
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  detail::RoundLoop<S> loop(solver, problem, config, threads, meta.core_share);
  {
    // A reference solution or constants not computed yet (a run alone): on the run's threads.
    const EvaluationThreads set_up_threads(&loop.pool());
    sink.begin(detail::make_header(problem, config, threads, meta));
  }
  detail::RunMonitor monitor(problem, config, sink, loop.pool());
  double wall = 0;
  std::int64_t completed = 0;
  try {
    const auto t0 = Clock::now();
    loop.set_up();
    wall += seconds_since(t0);
    bool stop = monitor.record(0, loop.model(), loop.totals(), loop.comm(), wall);
    for (std::int64_t r = 0; !stop && r < config.budget.rounds; ++r) {
      throw_if_interrupted();  // Ctrl-C: the run unwinds, its partial files go with it
      loop.grow();  // a suite's spare cores, if any: outside the timed region
      const auto start = Clock::now();
      loop.round(r);
      wall += seconds_since(start);
      completed = r + 1;
      if (meta.rounds_done) meta.rounds_done->store(completed, std::memory_order_relaxed);
      stop = monitor.after_round(completed, loop.model(), loop.totals(), loop.comm(), wall);
      if (stop || monitor.due(completed) || completed == config.budget.rounds)
        stop = monitor.record(completed, loop.model(), loop.totals(), loop.comm(), wall) || stop;
    }
  } catch (const WriteError&) {
    throw;  // the results cannot be stored: not an outcome of the run
  } catch (const Interrupted&) {
    throw;  // the user stopped it: not an outcome either
  } catch (const std::exception& e) {
    monitor.reason = StopReason::error;
    monitor.message = e.what();
  }
  if (monitor.last_recorded() != completed && monitor.reason != StopReason::error)
    monitor.record(completed, loop.model(), loop.ledger().total(), loop.comm(), wall);
  return detail::finish_run(problem, loop.model(), std::move(loop.ledger()).release(), monitor,
                            completed, wall, loop.pool(), sink);
}

}  // namespace fedbench

