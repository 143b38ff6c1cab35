#include "engine/engine.hpp"

#include <algorithm>
#include <chrono>

#include "core/text.hpp"
#include "engine/environment.hpp"
#include "problem/bilevel_problem.hpp"
#include "problem/evaluation_threads.hpp"
#include "problem/metric_names.hpp"

namespace fedbench {

namespace detail {

RunHeader make_header(const Problem& problem, const RunConfig& config, int threads,
                      const RunMeta& meta) {
  RunHeader h;
  h.problem = config.problem;
  h.solver = config.solver;
  h.problem_params = config.problem_params;
  h.solver_params = config.solver_params;
  h.config_text = config.to_text();
  h.identity = meta.identity;
  h.command_line = meta.command_line;
  h.setup_time = meta.setup_time;
  h.env = current_environment(threads, meta.mpi_ranks);
  h.problem_kind = kind_name(problem.kind());
  h.dim_x = problem.dim_x();
  h.seed = config.seed;
  h.provenance = current_code(config.problem, config.solver);
  h.provenance.data = problem.data_files();
  // The constants known without deferred work, and those this run's presets read: the same
  // set for a run alone or inside a suite whose runs share the instance.
  h.constants = problem.constants().eager_values();
  h.constant_docs = problem.constants().eager_docs();
  for (Constant c : meta.constants_read) {
    const std::string name(constant_name(c));
    h.constants[name] = problem.constants().get(c, "run header");
    h.constant_docs[name] = problem.constants().doc(c);
  }
  h.metric_names = problem.metric_names();
  h.metric_names.insert(h.metric_names.end(), meta.diagnostics.names.begin(), meta.diagnostics.names.end());
  for (const auto& name : h.metric_names) {
    const auto info = metric_info(name);
    if (!info) throw InternalError("metric '" + name + "' is not listed in problem/metric_names.hpp");
    h.metric_meta.push_back({info->direction, std::string(info->description), std::string(info->unit)});
  }
  h.primary_metric = problem.primary_metric();
  h.num_clients = problem.num_clients();
  h.dim = problem.dim();
  for (int i = 0; i < problem.num_clients(); ++i) h.client_samples.push_back(problem.num_samples(i));
  h.client_labels = problem.client_labels();
  return h;
}

namespace {

// The summary's final iterate (and y*(x) for bilevel problems, uncounted; from the run's metric
// state when its last row solved it already), its exact solves on `pool`'s threads.
void record_final(const Problem& problem, const Vec& model, RunSummary& summary, MetricState* state,
                  ThreadPool& pool) {
  summary.final_x = model.head(problem.dim_x());
  summary.final_y = model.tail(problem.dim_y());
  const auto* bilevel = dynamic_cast<const BilevelProblem*>(&problem);
  if (!bilevel || !model.allFinite()) return;
  try {
    const EvaluationThreads threads(&pool);
    summary.final_y_star = bilevel->lower_solution(summary.final_x, summary.final_y, state);
  } catch (const std::exception&) {
    // no exact y*(x) here (the reference solve failed): the file simply has none
  }
}

}  // namespace

RunSummary finish_run(const Problem& problem, const Vec& model, std::vector<OracleCounts> per_client,
                      const RunMonitor& monitor, std::int64_t completed, double wall, ThreadPool& pool,
                      TrajectorySink& sink) {
  RunSummary summary;
  summary.reason = monitor.reason;
  summary.message = monitor.message;
  summary.rounds = completed;
  summary.wall_time = wall;
  summary.eval_time = monitor.eval_time();
  summary.threads_at_end = pool.threads();
  summary.per_client = std::move(per_client);
  record_final(problem, model, summary, monitor.metric_state(), pool);
  sink.end(summary);
  return summary;
}

RunMonitor::RunMonitor(const Problem& problem, const RunConfig& config, TrajectorySink& sink, ThreadPool& pool,
                       EvaluationOverlap overlap, const SolverDiagnostics* diagnostics,
                       const SolverStates* states, RunClock clock)
    : problem_(problem), config_(config), sink_(sink), pool_(pool), overlap_(overlap), diagnostics_(diagnostics),
      states_(states), clock_(clock), names_(problem.metric_names()), metric_state_(problem.make_metric_state()) {
  if (diagnostics_) names_.insert(names_.end(), diagnostics_->names.begin(), diagnostics_->names.end());
  const auto find = [&](const std::string& name) {
    return std::find(names_.begin(), names_.end(), name) - names_.begin();
  };
  primary_ = static_cast<std::size_t>(find(problem.primary_metric()));
  if (config.budget.target) {
    target_ = find(config.budget.target->metric);
    if (target_ == static_cast<std::ptrdiff_t>(names_.size()))
      throw UserError("target metric '" + config.budget.target->metric +
                      "' is not recorded for problem " + config.problem + "; valid: " +
                      join(names_, ", "));
  }
}

TrajectoryRow RunMonitor::make_row(std::int64_t round, const OracleCounts& oracle, const CommCounts& comm,
                                   double wall_time) const {
  TrajectoryRow row;
  row.round = round;
  row.oracle = oracle;
  row.comm = comm;
  row.wall_time = wall_time;
  row.metrics.assign(names_.size(), 0.0);
  return row;
}

bool RunMonitor::record(std::int64_t round, const Vec& model, const OracleCounts& oracle,
                        const CommCounts& comm, double wall_time) {
  TrajectoryRow row = make_row(round, oracle, comm, wall_time);
  const auto start = std::chrono::steady_clock::now();
  {
    const EvaluationThreads threads(&pool_);
    evaluate_metrics(problem_, model, row.metrics, metric_state_.get(), diagnostics_);
  }
  return accept(row, model, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// Deferring pays when the rounds leave threads idle for it and an evaluation costs more than
// the copies and the hand-off (tens of microseconds): judged by the last one.
bool RunMonitor::worth_deferring(const LoopState& state) const {
  constexpr double kEvaluationWorthDeferring = 1e-3;  // seconds
  switch (overlap_) {
    case EvaluationOverlap::never: return false;
    case EvaluationOverlap::always: return true;
    case EvaluationOverlap::automatic: break;
  }
  return state.idle_threads > 0 && last_eval_seconds_ >= kEvaluationWorthDeferring;
}

bool RunMonitor::record_due(const LoopState& state, bool now) {
  if (now || !worth_deferring(state)) {
    if (drain()) return true;  // rows are recorded in round order
    return record(state.round, state.model, state.oracle, state.comm, state.wall_time);
  }
  if (!background_) background_ = std::make_unique<BackgroundEvaluator>(problem_, metric_state_.get(), names_.size(), diagnostics_);
  auto model = std::make_shared<const Vec>(state.model);
  deferred_.push_back(
      DeferredRow{make_row(state.round, state.oracle, state.comm, state.wall_time), model, state.ledger.per_client()});
  background_->submit(state.round, std::move(model), state.idle_threads);
  return poll();
}

bool RunMonitor::settle(bool wait) {
  while (!deferred_.empty()) {
    auto result = background_->next(wait);
    if (!result) return false;
    DeferredRow row = std::move(deferred_.front());
    deferred_.pop_front();
    bool stop = false;
    if (result->error) {
      // What the run's catch would have made of it, had the loop waited for this evaluation.
      stop = true;
      reason = StopReason::error;
      try {
        std::rethrow_exception(result->error);
      } catch (const std::exception& e) {
        message = e.what();
      } catch (...) {
        message = "evaluation failed";
      }
    } else {
      row.row.metrics = std::move(result->metrics);
      stop = accept(row.row, *row.model, result->seconds);
    }
    if (stop) {
      // The rows after it belong to rounds the run does not have.
      deferred_.clear();
      background_.reset();
      stopped_ = std::move(row);
      return true;
    }
  }
  return false;
}

bool RunMonitor::accept(TrajectoryRow& row, const Vec& model, double eval_seconds) {
  eval_time_ += eval_seconds;
  last_eval_seconds_ = eval_seconds;
  row.eval_time = eval_time_;
  sink_.row(row);
  sink_.iterate(row.round, model);
  if (states_) sink_.states(row.round, *states_);
  last_recorded_ = row.round;
  if (reason != StopReason::max_rounds) return true;  // already stopping

  const double primary = row.metrics[primary_];
  if (row.round == 0) initial_primary_ = primary;
  const bool any_bad = std::any_of(row.metrics.begin(), row.metrics.end(),
                                   [](double v) { return !std::isfinite(v); });
  const double bound = config_.budget.divergence_factor * std::max(initial_primary_, 1e-300);
  if (any_bad || primary > bound) {
    reason = StopReason::diverged;
    message = names_[primary_] + " = " + format_real(primary) + " at round " +
              std::to_string(row.round) +
              (any_bad ? " (non-finite metric)"
                       : " exceeds " + format_real(config_.budget.divergence_factor) +
                             " times its initial value");
    return true;
  }
  if (target_ >= 0 && config_.budget.target->reached(row.metrics[target_])) {
    reason = StopReason::target_reached;
    message = names_[target_] + " = " + format_real(row.metrics[target_]) + " " + config_.budget.target->op() +
              " " + format_real(config_.budget.target->value) + " at round " + std::to_string(row.round);
    return true;
  }
  return false;
}

bool RunMonitor::after_round(const LoopState& state) {
  const Budget& b = config_.budget;
  StopReason stop = StopReason::max_rounds;
  std::string why;
  if (!state.model.allFinite()) {
    stop = StopReason::diverged;
    why = "the model became non-finite (NaN or Inf) at round " + std::to_string(state.round);
  } else if (b.max_samples && state.oracle.samples >= *b.max_samples) {
    stop = StopReason::oracle_budget;
    why = std::to_string(state.oracle.samples) + " samples used (budget " + std::to_string(*b.max_samples) + ")";
  } else if (b.max_bytes && state.comm.bytes_up + state.comm.bytes_down >= *b.max_bytes) {
    stop = StopReason::comm_budget;
    why = std::to_string(state.comm.bytes_up + state.comm.bytes_down) + " bytes sent (budget " +
          std::to_string(*b.max_bytes) + ")";
  } else if (const double elapsed = clock_.elapsed(); b.time_limit && elapsed >= *b.time_limit) {
    // Wall clock of the run since it began: rounds, evaluations (an exact metric can cost
    // more than many rounds) and the writing of its rows alike.
    stop = StopReason::time_limit;
    why = format_real(elapsed) + " s of wall-clock time (limit " + format_real(*b.time_limit) + ")";
  } else if (clock_.run_timeout && elapsed >= *clock_.run_timeout) {
    stop = StopReason::timeout;
    why = "still running after " + format_real(elapsed) + " s, past the limit of " +
          format_real(*clock_.run_timeout) + " s per run (--run-timeout)";
  } else {
    return false;
  }
  if (drain()) return true;  // a row before this round ended the run
  reason = stop;
  message = why;
  return true;
}

}  // namespace detail
}  // namespace fedbench
