#include "core/thread_pool.hpp"

#include <chrono>

namespace fedbench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A hint to the core that this thread is spinning (lets the sibling hyper-thread run).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// How long an idle worker spins before it parks: long enough to bridge the server step and a
// cheap evaluation between two rounds, short enough not to hold a core through a long one.
constexpr double kSpinSeconds = 100e-6;
constexpr std::uint32_t kClosed = 0xffffffffu;  // item index of a finished generation

}  // namespace

ThreadPool::ThreadPool(int threads) { grow_to(threads); }

void ThreadPool::grow_to(int threads) {
  // A new worker first sees the current generation, already closed: it claims nothing of it.
  while (this->threads() < threads) {
    const int index = this->threads();  // 1, 2, ...: the caller is 0
    workers_.emplace_back([this, index] { worker_loop(index); });
  }
}

bool ThreadPool::parked_below(int n) const {
  // Workers 1 .. n-1 take part in a call of n items.
  const int needed = n - 1;
  if (needed >= 64 && parked_high_.load(std::memory_order_seq_cst) > 0) return true;
  const std::uint64_t mask = needed >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << needed) - 1;
  return (parked_low_.load(std::memory_order_seq_cst) & mask) != 0;
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_seq_cst);
  {
    std::lock_guard lock(mutex_);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::work_on(std::uint32_t gen) {
  // Valid only while `gen` is open: a claim of `gen` succeeds only then (the caller closes a
  // generation before it writes the next one's task).
  const Task task = task_.load(std::memory_order_acquire);
  void* const ctx = ctx_.load(std::memory_order_acquire);
  const auto n = static_cast<std::uint32_t>(n_.load(std::memory_order_acquire));
  while (true) {
    std::uint64_t v = claim_.load(std::memory_order_acquire);
    do {
      if (static_cast<std::uint32_t>(v >> 32) != gen || static_cast<std::uint32_t>(v) >= n) return;
    } while (!claim_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel));
    const auto start = Clock::now();
    try {
      task(ctx, static_cast<int>(static_cast<std::uint32_t>(v)));
    } catch (...) {
      std::lock_guard lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    item_seconds_.fetch_add(seconds_since(start), std::memory_order_relaxed);
    done_.fetch_add(1, std::memory_order_release);  // after the item's seconds: the caller reads both
  }
}

void ThreadPool::run(int n, Task task, void* ctx, bool adaptive) {
  if (n <= 0) return;
  if (workers_.empty() || n == 1 ||
      (adaptive && work_estimate_ >= 0 && work_estimate_ < kInlineBelow)) {
    const auto start = Clock::now();
    for (int i = 0; i < n; ++i) task(ctx, i);
    if (adaptive) update_estimate(seconds_since(start));
    ++inline_calls_;
    return;
  }
  ++shared_calls_;
  const std::uint32_t gen = ++generation_;
  error_ = nullptr;
  task_.store(task, std::memory_order_release);
  ctx_.store(ctx, std::memory_order_release);
  n_.store(n, std::memory_order_release);
  done_.store(0, std::memory_order_relaxed);
  item_seconds_.store(0, std::memory_order_relaxed);
  claim_.store(pack(gen, 0), std::memory_order_seq_cst);
  if (parked_below(n)) {
    { std::lock_guard lock(mutex_); }  // a worker between its check and its wait is now waiting
    wake_.notify_all();
  }
  work_on(gen);
  // Only workers that claimed an item are waited for; they are running it now.
  while (done_.load(std::memory_order_acquire) < n) cpu_relax();
  claim_.store(pack(gen, kClosed), std::memory_order_release);
  if (adaptive) update_estimate(item_seconds_.load(std::memory_order_relaxed));
  if (error_) std::rethrow_exception(error_);
}

void ThreadPool::update_estimate(double seconds) {
  work_estimate_ = work_estimate_ < 0 ? seconds : 0.5 * (work_estimate_ + seconds);
}

void ThreadPool::worker_loop(int index) {
  // A call of n items needs workers 1 .. n-1 at most (the caller takes items too): the others
  // let it pass, so that threads beyond a round's clients neither spin on it nor take a core's
  // shared resources (a hyper-thread sibling, the memory bus) from those working.
  const std::uint64_t bit = index <= 64 ? std::uint64_t{1} << (index - 1) : 0;
  std::uint32_t seen = 0;  // the last generation this worker looked at
  auto fresh = [&] {
    if (stop_.load(std::memory_order_acquire)) return true;
    const auto gen = static_cast<std::uint32_t>(claim_.load(std::memory_order_acquire) >> 32);
    if (gen == seen) return false;
    if (index < n_.load(std::memory_order_acquire)) return true;
    seen = gen;  // not needed for this one
    return false;
  };
  while (true) {
    bool ready = fresh();
    for (auto start = Clock::now(); !ready && seconds_since(start) < kSpinSeconds;) {
      for (int k = 0; k < 64 && !ready; ++k) {
        cpu_relax();
        ready = fresh();
      }
    }
    if (!ready) {
      std::unique_lock lock(mutex_);
      if (bit) parked_low_.fetch_or(bit, std::memory_order_seq_cst);
      else parked_high_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, fresh);
      if (bit) parked_low_.fetch_and(~bit, std::memory_order_seq_cst);
      else parked_high_.fetch_sub(1, std::memory_order_seq_cst);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = static_cast<std::uint32_t>(claim_.load(std::memory_order_acquire) >> 32);
    work_on(seen);
  }
}

}  // namespace fedbench
