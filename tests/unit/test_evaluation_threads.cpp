// Exact metrics spread over a run's threads (problem/evaluation_threads.hpp): client parts are
// folded in client order, so totals equal the plain sequential loop to the last bit at any
// thread count; scopes nest and restore; a part's own reductions stay on its thread; and the
// metrics of real problems (dense Hessian assembly, Newton and CG reference solves, operator
// norms, clients split into row blocks) are the same bits with and without evaluation threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "engine/context.hpp"
#include "problem/evaluation_threads.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

// Parts of very different magnitudes: their floating-point sum depends on the order of addition.
double part_value(int i) { return std::ldexp(1.0 + 0.1 * (i % 7), (i * 37) % 61 - 30) * (i % 3 == 1 ? -1 : 1); }

double plain_sum(int clients) {
  double s = 0;
  for (int i = 0; i < clients; ++i) s += part_value(i);
  return s;
}

double folded_sum(int clients, std::vector<int>* order = nullptr) {
  double s = 0;
  fold_clients_in_order(
      clients, 0.0, [](int i, double& part) { part = part_value(i); },
      [&](int i, double& part) {
        if (order) order->push_back(i);
        s += part;
      });
  return s;
}

void spin_for(double microseconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(microseconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

TEST_CASE("evaluation threads: parts folded in client order, the plain loop's bits at any thread count") {
  // The sums are order-sensitive: a reversed loop gives other bits (or the test could not fail).
  double reversed = 0;
  for (int i = 16; i >= 0; --i) reversed += part_value(i);
  REQUIRE(reversed != plain_sum(17));
  for (int clients : {0, 1, 2, 3, 7, 17, 64}) {
    CAPTURE(clients);
    std::vector<int> order;
    CHECK(folded_sum(clients, &order) == plain_sum(clients));
    for (int threads : {1, 2, 3, 5}) {
      CAPTURE(threads);
      ThreadPool pool(threads);
      const EvaluationThreads scope(&pool, 0.0);  // share every fold
      std::vector<int> seen;
      CHECK(folded_sum(clients, &seen) == plain_sum(clients));
      CHECK(seen == order);
    }
  }
}

TEST_CASE("evaluation threads: parts run on the pool's threads, each with a slot of its own") {
  ThreadPool pool(3);
  const EvaluationThreads scope(&pool);  // the default threshold: these parts are long
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::vector<int> written;
  fold_clients_in_order(
      60, std::vector<int>{},
      [&](int i, std::vector<int>& slot) {
        spin_for(200);  // long enough that sleeping workers wake and claim parts
        slot.assign(1, i);
        const std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      },
      [&](int i, std::vector<int>& slot) {
        REQUIRE(slot.size() == 1);
        CHECK(slot[0] == i);
        written.push_back(slot[0]);
      });
  CHECK(EvaluationThreads::sharing() == EvaluationThreads::Sharing::yes);
  CHECK(written.size() == 60);
  CHECK(threads.size() > 1);
}

TEST_CASE("evaluation threads: scopes nest and restore; pool workers and parts see none") {
  CHECK(EvaluationThreads::current() == nullptr);
  ThreadPool a(2), b(3);
  {
    const EvaluationThreads outer(&a, 0.0);
    CHECK(EvaluationThreads::current() == &a);
    {
      const EvaluationThreads inner(&b, 1.0);
      CHECK(EvaluationThreads::current() == &b);
      CHECK(folded_sum(3) == plain_sum(3));
      CHECK(EvaluationThreads::sharing() == EvaluationThreads::Sharing::no);  // parts of ns < 1 s
    }
    CHECK(EvaluationThreads::sharing() == EvaluationThreads::Sharing::unknown);  // outer's, restored
    CHECK(EvaluationThreads::current() == &a);
    // A part that folds again (a reference solve inside a client's part) runs that fold on its
    // own thread: no second call into the busy pool, and the same bits.
    std::vector<double> inner_sums;
    fold_clients_in_order(
        4, 0.0,
        [](int i, double& part) {
          if (i > 0) CHECK(EvaluationThreads::current() == nullptr);  // client 0 runs alone, first
          part = folded_sum(5 + i);
        },
        [&](int, double& part) { inner_sums.push_back(part); });
    for (int i = 0; i < 4; ++i) CHECK(inner_sums[static_cast<std::size_t>(i)] == plain_sum(5 + i));
    CHECK(EvaluationThreads::current() == &a);
  }
  CHECK(EvaluationThreads::current() == nullptr);
}

TEST_CASE("evaluation threads: an exception in a part reaches the caller; the scope stays usable") {
  ThreadPool pool(2);
  const EvaluationThreads scope(&pool, 0.0);
  int folded = 0;
  CHECK_THROWS_WITH(fold_clients_in_order(
                        6, 0.0,
                        [](int i, double& part) {
                          if (i == 3) throw std::runtime_error("client 3 failed");
                          part = i;
                        },
                        [&](int, double&) { ++folded; }),
                    "client 3 failed");
  CHECK(folded == 3);  // client 0 (timed alone), the wave of 1 and 2; the failing wave none
  CHECK(EvaluationThreads::current() == &pool);
  CHECK(folded_sum(9) == plain_sum(9));
}

TEST_CASE("evaluation threads: problem metrics are the same bits with and without them") {
  struct Case {
    std::string name;
    ParamMap params;
    bool bilevel;
  };
  // Dense Hessian (binary softmax and logistic), conjugate gradients (hyper-representation,
  // data-hypercleaning), and minimax operator norms over several clients. hyper-logreg on heart
  // keeps whole clients (one block of rows each); on a9a, w8a (Hessian parts of several blocks)
  // and satimage every client has several row blocks at both levels.
  const std::vector<Case> cases{
      {"hyper-logreg", {{"dataset", "heart"}, {"clients", "5"}}, true},
      {"hyper-logreg", {{"dataset", "heart"}, {"clients", "3"}, {"model", "logistic"}}, true},
      {"hyper-logreg", {{"dataset", "a9a"}, {"rows", "12000"}, {"clients", "2"}}, true},
      {"hyper-logreg", {{"dataset", "w8a"}, {"rows", "20000"}, {"clients", "2"}}, true},
      {"hyper-logreg",
       {{"dataset", "a9a"}, {"rows", "12000"}, {"clients", "2"}, {"model", "logistic"}},
       true},
      {"hyper-logreg", {{"dataset", "satimage"}, {"clients", "1"}}, true},
      {"data-hypercleaning", {{"dataset", "heart"}, {"rows", "100"}, {"clients", "3"}}, true},
      {"hyper-representation", {{"dataset", "heart"}, {"hidden", "4"}, {"clients", "3"}}, true},
      {"quadratic-game", {{"clients", "7"}}, false},
      {"robust-least-squares", {{"clients", "5"}}, false},
      // robust metrics over blocks of rows whose size follows the threads
      {"robust-training",
       {{"dataset", "heart"}, {"clients", "3"}, {"hidden", "5"}, {"eval_rows", "50"}},
       false}};
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const std::shared_ptr<const Problem> p =
        c.bilevel ? std::shared_ptr<const Problem>(testing::bilevel_problem(c.name, c.params))
                  : std::shared_ptr<const Problem>(testing::problem(c.name, c.params));
    Vec z = p->initial_point();
    for (Index k = 0; k < z.size(); ++k) z(k) += 0.05 * std::sin(1.0 + static_cast<double>(k));
    p->project(z);
    // Two evaluations in a row: the second starts from the first one's warm state.
    const auto evaluate = [&](ThreadPool* pool) {
      const EvaluationThreads scope(pool, 0.0);  // these instances are small: share every fold
      auto state = p->make_metric_state();
      std::vector<double> first(p->metric_names().size()), second(first.size());
      p->metrics(z, first, state.get());
      Vec moved = z;
      moved.head(p->dim_x()) *= 0.9;
      p->metrics(moved, second, state.get());
      first.insert(first.end(), second.begin(), second.end());
      return first;
    };
    const auto alone = evaluate(nullptr);
    for (double v : alone) CHECK(std::isfinite(v));
    for (int threads : {1, 2, 3, 5}) {
      CAPTURE(threads);
      ThreadPool pool(threads);
      CHECK(evaluate(&pool) == alone);
    }
  }
}

namespace {
struct Upload {
  Vec model;
};
}  // namespace

TEST_CASE("evaluation threads: long averages and sums split by elements keep the plain loop's bits") {
  // 300,001 elements (not a multiple of any range width), values of very different magnitudes.
  constexpr Index kSize = 300001;
  std::vector<Upload> uploads(5);
  for (std::size_t k = 0; k < uploads.size(); ++k) {
    uploads[k].model.resize(kSize);
    for (Index j = 0; j < kSize; ++j) uploads[k].model(j) = part_value(static_cast<int>(j % 1000 + 97 * k));
  }
  Vec plain = uploads[0].model;
  for (std::size_t k = 1; k < uploads.size(); ++k) plain += uploads[k].model;
  plain /= static_cast<double>(uploads.size());
  for (int threads : {1, 2, 3, 8}) {
    CAPTURE(threads);
    ThreadPool pool(threads);
    const EvaluationThreads scope(&pool);
    std::vector<std::atomic<int>> visits(kSize);
    std::set<std::thread::id> ran_on;
    std::mutex mutex;
    for_element_ranges(kSize, 5, [&](long long begin, long long end) {
      for (long long j = begin; j < end; ++j) visits[static_cast<std::size_t>(j)]++;
      std::lock_guard lock(mutex);
      ran_on.insert(std::this_thread::get_id());
    });
    CHECK(std::all_of(visits.begin(), visits.end(), [](const std::atomic<int>& v) { return v.load() == 1; }));
    CHECK(static_cast<int>(ran_on.size()) <= threads);
    Vec mean;
    mean_into(std::span<const Upload>(uploads), &Upload::model, mean);
    CHECK(mean.size() == kSize);
    CHECK((mean.array() == plain.array()).all());
    const Vec sum = sum_clients_in_order(5, Vec(Vec::Zero(kSize)), [&](int i, Vec& part) { part = uploads[i].model; });
    Vec plain_sum_vec = Vec::Zero(kSize);
    for (const auto& u : uploads) plain_sum_vec += u.model;
    CHECK((sum.array() == plain_sum_vec.array()).all());
  }
}
