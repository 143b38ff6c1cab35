#include "engine/background_evaluation.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>

#include "core/thread_pool.hpp"
#include "problem/evaluation_threads.hpp"
#include "problem/problem.hpp"

namespace fedbench {

void evaluate_metrics(const Problem& problem, const Vec& model, std::span<double> out, MetricState* state,
                      const SolverDiagnostics* diagnostics) {
  if (model.allFinite()) {
    const std::size_t own = diagnostics ? diagnostics->names.size() : 0;
    problem.metrics(model, out.first(out.size() - own), state);
    if (own > 0) diagnostics->evaluate(problem, model, out.last(own), state);
  } else {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  }
}

BackgroundEvaluator::BackgroundEvaluator(const Problem& problem, MetricState* state, std::size_t metric_count,
                                         const SolverDiagnostics* diagnostics)
    : problem_(problem), state_(state), metric_count_(metric_count), diagnostics_(diagnostics), thread_([this] { work(); }) {}

BackgroundEvaluator::~BackgroundEvaluator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    jobs_.clear();
  }
  changed_.notify_all();
  thread_.join();
}

void BackgroundEvaluator::submit(std::int64_t round, std::shared_ptr<const Vec> model, int threads) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(Job{round, std::move(model), std::max(1, threads)});
  }
  changed_.notify_all();
}

std::optional<BackgroundEvaluator::Result> BackgroundEvaluator::next(bool wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wait) changed_.wait(lock, [&] { return !done_.empty() || (jobs_.empty() && !running_); });
  if (done_.empty()) return std::nullopt;
  Result result = std::move(done_.front());
  done_.pop_front();
  return result;
}

void BackgroundEvaluator::work() {
  std::unique_ptr<ThreadPool> pool;  // made and grown on this thread, which makes its calls
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    const Job job = std::move(jobs_.front());
    jobs_.pop_front();
    running_ = true;
    lock.unlock();
    if (!pool) pool = std::make_unique<ThreadPool>(job.threads);
    pool->grow_to(job.threads);
    Result result{job.round, std::vector<double>(metric_count_), 0.0, nullptr};
    const auto start = std::chrono::steady_clock::now();
    try {
      const EvaluationThreads threads(pool.get());
      evaluate_metrics(problem_, *job.model, result.metrics, state_, diagnostics_);
    } catch (...) {
      result.error = std::current_exception();
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    lock.lock();
    running_ = false;
    if (stop_) return;
    done_.push_back(std::move(result));
    changed_.notify_all();
  }
}

}  // namespace fedbench
