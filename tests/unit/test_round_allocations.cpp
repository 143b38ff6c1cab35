// The round loop allocates nothing on the heap once warmed up (the README's performance claim).
// malloc is interposed for this test binary (glibc's __libc_* entry points do the work), so Eigen's
// allocations and operator new are both seen. Two runs that differ only in the number of
// rounds must allocate exactly as often: any per-round allocation would show as a difference.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>

#include "engine/solver.hpp"
#include "support/run_helpers.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
}

namespace {
std::atomic<long> g_allocations{0};

// Counts every malloc between begin() and end() of a run: set-up, rounds and evaluation.
class CountingSink : public fedbench::TrajectorySink {
 public:
  void begin(const fedbench::RunHeader&) override { g_allocations.store(0); }
  void row(const fedbench::TrajectoryRow&) override {}
  void end(const fedbench::RunSummary&) override { total = g_allocations.load(); }
  long total = 0;
};
}  // namespace

extern "C" {
void* malloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
}

using namespace fedbench;

TEST_CASE("allocations: no solver allocates per round, with 1 or 2 threads") {
  const ParamMap params{{"clients", "4"}, {"samples", "6"}, {"dim", "3"}};
  auto game = fedbench::testing::problem("quadratic-game", params);
  for (const auto& name : fedbench::testing::solvers_of("minimax")) {
    for (int threads : {1, 2}) {
      CAPTURE(name);
      CAPTURE(threads);
      // A first, discarded run lets the calling thread's scratch buffers settle.
      long counts[3];
      const std::int64_t rounds[3] = {3, 3, 60};
      for (int k = 0; k < 3; ++k) {
        RunRequest req;
        req.problem = "quadratic-game";
        req.problem_params = params;
        req.solver = name;
        req.budget.rounds = rounds[k];
        req.eval.every = 1000;  // rows at round 0 and at the end only
        PreparedRun run = prepare_run(req, game);
        CountingSink sink;
        execute(run, threads, sink);
        counts[k] = sink.total;
      }
      // Per-thread scratch buffers (thread_local, allocated once per thread) may be first
      // touched in either run, depending on which pool thread serves which client: allow a
      // few per thread. Anything allocated per round would add at least 57 (60 - 3 rounds).
      CHECK(std::labs(counts[2] - counts[1]) <= 4L * threads);
    }
  }
}
