// A fixed pool of worker threads for client work. parallel_for hands out indices through an
// atomic counter and takes a plain function pointer, so a round dispatches without touching
// the heap. Which thread runs which client does not matter for results: each client writes
// only its own state and its own upload slot, and the server reduces in client-id order.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
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

  //! Calls f(i) for i in [0, n), in parallel; returns when all are done. The first exception
  //! thrown by any f(i) is rethrown here.
  template <class F>
  void parallel_for(int n, F& f) {
    run(n, [](void* ctx, int i) { (*static_cast<F*>(ctx))(i); }, &f);
  }

 private:
  using Task = void (*)(void*, int);
  void run(int n, Task task, void* ctx);
  void work_on_current();
  void worker_loop();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
  Task task_ = nullptr;
  void* ctx_ = nullptr;
  int n_ = 0;
  std::atomic<int> next_{0};
  int busy_ = 0;  // workers still inside the current generation
  std::exception_ptr error_;
};

}  // namespace fedbench
