// Exact metrics over every client (full batches, reference solves) spread over the threads of
// the run that asked for them, with the same bits at any thread count.
//
// A problem instance is shared read-only by the concurrent runs of a suite, so it cannot own
// a pool: the run's engine opens an EvaluationThreads scope around each evaluation (and
// around the server's step, whose averages over uploads are split by elements), and the
// reductions below, called on that thread, use the scope's pool. Anywhere else (set-up,
// tests, a pool worker inside an evaluation) they run on the calling thread.
//
// Results do not depend on the thread count because each client's part is computed on its own
// (into its own slot, overwritten in full) and the parts are folded into the total in client
// order, exactly as the plain loop `for i: part(i, tmp); total += tmp;` does: threads only
// decide which client's part is computed where, in waves of one client per thread.
//
// A problem may split its clients' rows into blocks (fold_blocks_in_order), so that a few
// large clients still give every thread work: the blocks are the problem's (a fixed number of
// rows, never a function of the threads) and their parts are folded client by client, block
// by block. The bits are then the nested loop's over clients and blocks, again the same at
// any thread count.
//
// A hand-off costs about a microsecond, so small evaluations (a quadratic game's) gain
// nothing from it: a scope's first fold times its first part (client 0's, or that client's
// first block) alone, and the scope shares its folds only when that part took at least
// `share_above` seconds (a problem's blocks should take longer). The folds of one evaluation are
// passes over the same clients' data, so one measurement serves them all.
#pragma once
#include <algorithm>
#include <chrono>
#include <numeric>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/thread_pool.hpp"

namespace fedbench {

//! The default of EvaluationThreads' share_above: a client part worth handing to a thread.
constexpr double kEvaluationPartWorthSharing = 20e-6;

//! While alive, evaluations made on this thread may share `pool`'s threads (none when null).
class EvaluationThreads {
 public:
  explicit EvaluationThreads(ThreadPool* pool, double share_above = kEvaluationPartWorthSharing);
  ~EvaluationThreads();
  EvaluationThreads(const EvaluationThreads&) = delete;
  EvaluationThreads& operator=(const EvaluationThreads&) = delete;

  //! The pool of the innermost scope open on this thread; null outside any.
  static ThreadPool* current();
  //! Its share_above (a nested scope for folds of another kind starts from it).
  static double current_share_above();
  //! Whether the current scope shares its folds: unknown (no fold measured yet) or decided.
  enum class Sharing { unknown, no, yes };
  static Sharing sharing();
  //! Decides for the current scope from the seconds of a first client part.
  static void measured(double first_part_seconds);

 private:
  struct Saved {
    ThreadPool* pool;
    double share_above;
    Sharing sharing;
  };
  Saved previous_;
};

//! For every client i in [0, clients): part(i, slot) (in parallel, each call with a slot of
//! its own, a copy of `prototype`) and then fold(i, slot), in increasing i on this thread.
//! Parts run in waves of `wave` (default: one per thread), each wave's slots kept until it is
//! folded: a wider wave balances uneven threads better, for the memory of its slots. The
//! threads take a wave's parts in increasing i, or in increasing claim_rank[i] where given (the
//! costly ones first, so that short ones fill the gaps at the end); the fold order, and so the
//! bits, never depend on it.
template <class Slot, class Part, class Fold>
void fold_clients_in_order(int clients, const Slot& prototype, Part&& part, Fold&& fold, int wave = 0,
                           std::span<const int> claim_rank = {}) {
  ThreadPool* pool = EvaluationThreads::current();
  int next = 0;
  if (pool && clients > 1 && EvaluationThreads::sharing() == EvaluationThreads::Sharing::unknown) {
    Slot slot = prototype;
    const auto start = std::chrono::steady_clock::now();
    part(0, slot);
    EvaluationThreads::measured(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    fold(0, slot);
    next = 1;
  }
  if (!pool || EvaluationThreads::sharing() != EvaluationThreads::Sharing::yes) {
    Slot slot = prototype;
    for (int i = next; i < clients; ++i) {
      part(i, slot);
      fold(i, slot);
    }
    return;
  }
  const int width = std::min(clients - next, wave > 0 ? wave : pool->threads());
  std::vector<Slot> slots(static_cast<std::size_t>(width), prototype);
  std::vector<int> order;  // a wave's parts in the order the threads take them, if ranked
  for (int first = next; first < clients; first += width) {
    const int parts = std::min(width, clients - first);
    if (!claim_rank.empty()) {
      order.resize(static_cast<std::size_t>(parts));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return claim_rank[static_cast<std::size_t>(first + a)] < claim_rank[static_cast<std::size_t>(first + b)];
      });
    }
    auto compute = [&](int claim) {
      const int k = order.empty() ? claim : order[static_cast<std::size_t>(claim)];
      part(first + k, slots[static_cast<std::size_t>(k)]);
    };
    {
      const EvaluationThreads inside(nullptr);  // a part's own reductions stay on its thread
      if (parts > 1) {
        pool->parallel_for_long(parts, compute);
      } else {
        compute(0);
      }
    }
    for (int k = 0; k < parts; ++k) fold(first + k, slots[static_cast<std::size_t>(k)]);
  }
}

//! Element operations below which elementwise work stays on the calling thread (a hand-off
//! costs about what a few thousand additions do).
constexpr long long kElementsWorthSharing = 1LL << 17;

//! fn(begin, end) over [begin, end) ranges covering [0, size) once: on the current scope's
//! threads when `size` x `passes` element operations are worth it, else in one call here. For
//! elementwise work only: each element is computed by exactly one call, in the same order of
//! operations whatever the ranges, so the bits never depend on the threads.
template <class Fn>
void for_element_ranges(long long size, long long passes, Fn&& fn) {
  ThreadPool* pool = EvaluationThreads::current();
  if (!pool || pool->threads() == 1 || size * passes < kElementsWorthSharing) {
    fn(0LL, size);
    return;
  }
  constexpr long long kAlign = 8;  // whole cache lines of doubles per range
  const long long ranges = std::min<long long>(4LL * pool->threads(), (size + 4095) / 4096);
  const long long width = ((size + ranges - 1) / ranges + kAlign - 1) / kAlign * kAlign;
  auto range = [&](int r) {
    const long long begin = r * width, end = std::min(size, begin + width);
    if (begin < end) fn(begin, end);
  };
  const EvaluationThreads inside(nullptr);
  pool->parallel_for_long(static_cast<int>((size + width - 1) / width), range);
}

//! total += part: numbers, or vectors whose long additions are split by elements over the
//! current scope's threads (each element's addition the same, so the same bits).
template <class Slot>
void add_part(Slot& total, const Slot& part) {
  if constexpr (std::is_arithmetic_v<Slot>) {
    total += part;
  } else {
    for_element_ranges(total.size(), 1, [&](long long begin, long long end) {
      total.segment(begin, end - begin) += part.segment(begin, end - begin);
    });
  }
}

//! The sum over clients of part(i, slot) (a number or a vector shaped like `zero`), added in
//! client order starting from `zero`: the plain loop's bits, computed on the evaluation threads
//! (a long vector's additions too, split by elements).
template <class Slot, class Part>
Slot sum_clients_in_order(int clients, Slot zero, Part&& part) {
  Slot total = zero;
  fold_clients_in_order(clients, zero, part, [&](int, Slot& value) { add_part(total, value); });
  return total;
}

//! fold_clients_in_order over blocks of rows inside the clients: part(i, b, slot) for each
//! block b < blocks(i) of every client i, then fold(i, b, slot) client by client and block by
//! block. Blocks are the problem's (a fixed number of rows each), never the threads', so the
//! bits are the plain nested loop's at any thread count. `wave`: parts whose slots are kept
//! at once; by default all of them when some client has several blocks (many small parts
//! balance over the threads), else one per thread. The threads take the blocks block-major
//! (every client's first block, then every second one, ...): a client's last block is the
//! one that may be short, so the short ones come last and fill the gaps (a9a's 24 training
//! blocks, 16 of 1024 rows and 8 of 516, end on 16 threads after one and a half blocks' time,
//! not two).
template <class Slot, class Blocks, class Part, class Fold>
void fold_blocks_in_order(int clients, Blocks&& blocks, const Slot& prototype, Part&& part, Fold&& fold,
                          int wave = 0) {
  std::vector<std::pair<int, int>> items;  // (client, block) in fold order
  for (int i = 0; i < clients; ++i)
    for (int b = 0, n = blocks(i); b < n; ++b) items.emplace_back(i, b);
  const int parts = static_cast<int>(items.size());
  std::vector<int> claim_rank;  // an item's block: block-major claims, where clients have several
  if (parts > clients) {
    if (wave <= 0) wave = parts;
    for (const auto& item : items) claim_rank.push_back(item.second);
  }
  fold_clients_in_order(
      parts, prototype, [&](int k, Slot& slot) { part(items[k].first, items[k].second, slot); },
      [&](int k, Slot& slot) { fold(items[k].first, items[k].second, slot); }, wave, claim_rank);
}

}  // namespace fedbench
