// The round loop, written once for every solver (ensmallen's SGD loop, benchopt's run()).
// Per round the federated mechanics run phase by phase (engine/round_loop.hpp: sample,
// broadcast, client work on the thread pool, uploads counted and handed to server_end in
// client-id order); between rounds, outside the timed region, the monitor here applies budgets,
// divergence checks and evaluation. An evaluation may run beside the next rounds
// (engine/background_evaluation.hpp): a row that turns out to end the run ends it at its own
// round, and what the loop did past it is discarded, so a run's results never depend on it.
#pragma once
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/build_info.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "core/thread_pool.hpp"
#include "engine/background_evaluation.hpp"
#include "engine/round_loop.hpp"
#include "engine/run_config.hpp"
#include "engine/solver_contract.hpp"
#include "engine/trajectory.hpp"
#include "problem/evaluation_threads.hpp"

namespace fedbench {

namespace detail {

RunHeader make_header(const Problem& problem, const RunConfig& config, int threads,
                      const RunMeta& meta);

//! The loop's state after a round: what a row is taken from.
struct LoopState {
  std::int64_t round;
  const Vec& model;
  const OracleCounts& oracle;
  const CommCounts& comm;
  double wall_time;
  const OracleLedger& ledger;
  int idle_threads;  //!< threads of the run the rounds leave idle
};

//! A row handed to the background evaluator, with what the run ends with if it stops the run.
struct DeferredRow {
  TrajectoryRow row;  //!< counters and times of its round; metrics filled when accepted
  std::shared_ptr<const Vec> model;  //!< one copy, read by the evaluator too
  std::vector<OracleCounts> per_client;
};

//! When a run began (before its header was written) and the wall-clock seconds it may take
//! (its --run-timeout; none: no limit). The time limit of its budget counts from `started`
//! too: rounds, evaluations, waiting and writing alike.
struct RunClock {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::optional<double> run_timeout;
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
};

//! Evaluation, budgets and divergence: the parts of a run between rounds. An evaluation made
//! while the loop waits shares the run's threads; one deferred runs on threads of its own.
class RunMonitor {
 public:
  //! `diagnostics` (may be null; outlives the monitor): the solver's own metric columns.
  //! `states` (may be null; outlives the monitor): the solver states handed to the sink at
  //! every row, read when the row is accepted, so only with overlap `never`.
  RunMonitor(const Problem& problem, const RunConfig& config, TrajectorySink& sink, ThreadPool& pool,
             EvaluationOverlap overlap = EvaluationOverlap::never, const SolverDiagnostics* diagnostics = nullptr,
             const SolverStates* states = nullptr, RunClock clock = {});
  //! Records a row now (nothing may be deferred); returns true if the run must stop (sets
  //! reason and message).
  bool record(std::int64_t round, const Vec& model, const OracleCounts& oracle,
              const CommCounts& comm, double wall_time);
  //! Records the row of a due round: now when `now` (the run's last row) or when a deferred
  //! evaluation would not pay, else beside the next rounds. True if the run must stop.
  bool record_due(const LoopState& state, bool now);
  //! Checks budgets and a non-finite model after a round; true if the run must stop. Before it
  //! stops the run for these, it waits for the deferred rows: an earlier one may stop it first.
  bool after_round(const LoopState& state);
  //! Accepts the deferred rows that are finished, in round order; true if one stops the run.
  bool poll() { return settle(false); }
  //! Waits for every deferred row; true if one stops the run.
  bool drain() { return settle(true); }
  //! The deferred row that stopped the run: the run ends at its round, with its state.
  const DeferredRow* stopped_at() const { return stopped_ ? &*stopped_ : nullptr; }
  bool due(std::int64_t round) const { return config_.eval.due(round); }
  std::int64_t last_recorded() const { return last_recorded_; }
  double eval_time() const { return eval_time_; }
  MetricState* metric_state() const { return metric_state_.get(); }
  StopReason reason = StopReason::max_rounds;
  std::string message;

 private:
  TrajectoryRow make_row(std::int64_t round, const OracleCounts& oracle, const CommCounts& comm,
                         double wall_time) const;
  //! Emits a row whose metrics are computed; decides divergence and targets on it.
  bool accept(TrajectoryRow& row, const Vec& model, double eval_seconds);
  bool worth_deferring(const LoopState& state) const;
  bool settle(bool wait);

  const Problem& problem_;
  const RunConfig& config_;
  TrajectorySink& sink_;
  ThreadPool& pool_;
  const EvaluationOverlap overlap_;
  const SolverDiagnostics* const diagnostics_;
  const SolverStates* const states_;
  const RunClock clock_;
  std::vector<std::string> names_;
  std::size_t primary_ = 0;
  std::ptrdiff_t target_ = -1;
  std::unique_ptr<MetricState> metric_state_;  // this run's warm starts
  double initial_primary_ = 0;
  std::int64_t last_recorded_ = -1;
  double eval_time_ = 0;
  double last_eval_seconds_ = 0;
  std::deque<DeferredRow> deferred_;   // handed to background_, in round order
  std::optional<DeferredRow> stopped_;
  std::unique_ptr<BackgroundEvaluator> background_;  // after metric_state_: joined before it goes
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
  const detail::RunClock clock{Clock::now(), meta.run_timeout};
  detail::RoundLoop<S> loop(solver, problem, config, threads, meta.core_share);
  {
    // A reference solution or constants not computed yet (a run alone): on the run's threads.
    const EvaluationThreads set_up_threads(&loop.pool());
    sink.begin(detail::make_header(problem, config, threads, meta));
  }
  // A sink that reads the solver's states reads them as each row is accepted: the rows are then
  // evaluated in step with the rounds (the same bits in every overlap mode).
  const bool states = sink.wants_states();
  detail::RunMonitor monitor(problem, config, sink, loop.pool(), states ? EvaluationOverlap::never : meta.overlap,
                             meta.diagnostics.names.empty() ? nullptr : &meta.diagnostics,
                             states ? &loop : nullptr, clock);
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
      const detail::LoopState state{completed, loop.model(), loop.totals(), loop.comm(),
                                    wall, loop.ledger(), loop.idle_threads()};
      stop = monitor.after_round(state);
      if (monitor.stopped_at()) break;  // a deferred row ended the run before this round
      const bool last = stop || completed == config.budget.rounds;
      if (last || monitor.due(completed))
        stop = monitor.record_due(state, last) || stop;
      else
        stop = monitor.poll();
    }
  } catch (const WriteError&) {
    throw;  // the results cannot be stored: not an outcome of the run
  } catch (const Interrupted&) {
    throw;  // the user stopped it: not an outcome either
  } catch (const std::exception& e) {
    // A deferred row before the failing round may have ended the run there already.
    if (!monitor.drain()) {
      monitor.reason = StopReason::error;
      monitor.message = e.what();
    }
  }
  if (const detail::DeferredRow* at = monitor.stopped_at()) {
    // The run ends at that row, as if the loop had waited for it: the rounds after it never were.
    completed = at->row.round;
    if (meta.rounds_done) meta.rounds_done->store(completed, std::memory_order_relaxed);
    return detail::finish_run(problem, *at->model, at->per_client, monitor, completed, at->row.wall_time,
                              loop.pool(), sink);
  }
  if (monitor.last_recorded() != completed && monitor.reason != StopReason::error)
    monitor.record(completed, loop.model(), loop.ledger().total(), loop.comm(), wall);
  return detail::finish_run(problem, loop.model(), std::move(loop.ledger()).release(), monitor,
                            completed, wall, loop.pool(), sink);
}

}  // namespace fedbench

