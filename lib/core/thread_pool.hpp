// A fixed pool of worker threads (client work in the round loop; instance generation). parallel_for hands out indices through one
// atomic claim counter and takes a plain function pointer, so a round dispatches without
// touching the heap. Which thread runs which client does not matter for results: each client
// writes only its own state and its own upload slot, and the server reduces in client-id order.
//
// Hand-off cost is what limits small rounds, so:
// - idle workers spin on the claim counter for a while before parking on a condition variable
//   (waking a parked thread costs tens of microseconds; reading a changed cache line, well under
//   one);
// - the caller never waits for a worker that has not claimed an item: a worker that wakes late
//   finds nothing left and goes back to waiting;
// - a call of n items involves workers 1 .. n-1 only: the others neither spin on it nor are
//   woken for it (a run with more threads than clients per round);
// - calls whose items took less than a few microseconds in all run on the calling thread (the
//   pool keeps an estimate of the work per call, measured either way; the first call, with
//   nothing measured yet, is shared).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fedbench {

class ThreadPool {
 public:
  //! `threads` counts the calling thread: 1 runs everything inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  //! Adds workers up to `threads` in all (fewer: nothing changes). Call it between calls of
  //! parallel_for, on the thread that makes them: a suite hands a run the cores its finished
  //! runs leave, and which thread runs an item never changes a result.
  void grow_to(int threads);

  //! Calls f(i) for i in [0, n), in parallel; returns when all are done. The first exception
  //! thrown by any f(i) is rethrown here.
  template <class F>
  void parallel_for(int n, F& f) {
    run(n, [](void* ctx, int i) { (*static_cast<F*>(ctx))(i); }, &f, true);
  }
  //! The same for items known to be long (evaluations over full client batches): always
  //! shared with the workers, and left out of the estimate that decides for the rounds.
  template <class F>
  void parallel_for_long(int n, F& f) {
    run(n, [](void* ctx, int i) { (*static_cast<F*>(ctx))(i); }, &f, false);
  }

  //! Calls of parallel_for that ran on the calling thread alone / were shared with workers.
  std::int64_t inline_calls() const { return inline_calls_; }
  std::int64_t shared_calls() const { return shared_calls_; }

  //! Work per call below which a call runs inline (seconds of item time in all).
  static constexpr double kInlineBelow = 4e-6;

 private:
  using Task = void (*)(void*, int);
  void run(int n, Task task, void* ctx, bool adaptive);
  //! Claims and runs items of generation `gen` until none is left, adding up their seconds.
  void work_on(std::uint32_t gen);
  void worker_loop(int index);
  //! Whether a worker that a call of n items can use is parked (then the call wakes them).
  bool parked_below(int n) const;
  void update_estimate(double seconds);  // the work of the call just made

  // The claim counter: generation in the high 32 bits, next item in the low 32 bits.
  static std::uint64_t pack(std::uint32_t gen, std::uint32_t item) {
    return (static_cast<std::uint64_t>(gen) << 32) | item;
  }

  std::vector<std::thread> workers_;
  std::atomic<std::uint64_t> claim_{0};
  std::atomic<Task> task_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<int> n_{0};
  std::atomic<int> done_{0};       // items of the current generation finished
  std::atomic<double> item_seconds_{0};  // and the seconds they took
  std::atomic<std::uint64_t> parked_low_{0};  // bit t-1: worker t (1..64) parked on wake_
  std::atomic<int> parked_high_{0};           // workers 65 and up parked on wake_
  std::atomic<bool> stop_{false};
  std::uint32_t generation_ = 0;   // the caller's
  std::mutex mutex_;
  std::condition_variable wake_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
  double work_estimate_ = -1;      // seconds of item time per call (< 0: nothing measured yet)
  std::int64_t inline_calls_ = 0, shared_calls_ = 0;
};

}  // namespace fedbench
