// Evaluations beside the rounds (engine/background_evaluation.hpp): a run whose rows are
// evaluated on a thread of their own while the loop goes on must end exactly where, and as, the
// run that waits for each row ends, also when a row far behind the loop stops it (divergence, a
// target, an evaluation that fails) or the solver fails while rows are still being evaluated.
// The metrics here are made slow on purpose, so that the loop really runs ahead of them.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "engine/conformance.hpp"
#include "problem/evaluation_threads.hpp"
#include "support/run_helpers.hpp"
#include "support/start_at.hpp"

using namespace fedbench;

namespace {

const ParamMap kGame{{"clients", "5"}, {"samples", "8"}, {"dim", "3"}};

//! The small game with slow metrics, a count of the rounds' operator calls, and failures on
//! demand: the operator after `fail_op_after` round calls, the metrics at their `fail_metrics_at`-th call.
class SlowGame : public fedbench::testing::StartAt {
 public:
  explicit SlowGame(std::shared_ptr<const MinimaxProblem> game)
      : StartAt(game, game->initial_point()) {}
  mutable std::atomic<long> round_ops{0};
  long fail_op_after = -1;
  int fail_metrics_at = -1;
  std::chrono::microseconds delay{2000};

 protected:
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override {
    if (!evaluating()) {
      const long n = ++round_ops;
      if (fail_op_after >= 0 && n > fail_op_after) throw std::runtime_error("operator failed on purpose");
    }
    StartAt::do_op(client, samples, z, out);
  }
  void core_metrics(const Vec& z, std::span<double> out, MetricState* state) const override {
    std::this_thread::sleep_for(delay);
    if (++metric_calls_ == fail_metrics_at) throw std::runtime_error("metric failed on purpose");
    // The flag below is this thread's: keep the evaluation's operator calls on it (no pool
    // workers, which a slow machine's timing would otherwise bring in and count as rounds').
    EvaluationThreads on_this_thread(nullptr);
    evaluating() = true;
    MinimaxProblem::core_metrics(z, out, state);
    evaluating() = false;
  }

 private:
  static bool& evaluating() {
    thread_local bool flag = false;
    return flag;
  }
  mutable std::atomic<int> metric_calls_{0};
};

struct Outcome {
  MemoryTrajectory trajectory;
  long round_ops;  // operator calls the rounds made, those discarded included
};

Outcome run_on(const std::function<void(SlowGame&)>& setup, RunRequest request, EvaluationOverlap overlap,
               int threads = 1) {
  auto game = std::make_shared<SlowGame>(fedbench::testing::problem("quadratic-game", kGame));
  setup(*game);
  request.problem = "quadratic-game";
  request.problem_params = kGame;
  request.seed = 7;
  request.eval.every = 1;
  InMemoryRun how;
  how.threads = threads;
  how.overlap = overlap;
  Outcome out{run_in_memory(request, game, how), 0};
  out.round_ops = game->round_ops.load();
  return out;
}

RunRequest gda(const std::string& step, std::int64_t rounds) {
  RunRequest r;
  r.solver = "gda";
  r.solver_params = {{"step_size", step}};
  r.participation = Participation::parse("full");
  r.budget.rounds = rounds;
  return r;
}

//! The run that waits and the run that defers, on fresh instances set up alike.
std::pair<Outcome, Outcome> both(const std::function<void(SlowGame&)>& setup, const RunRequest& request,
                                 int threads = 1) {
  return {run_on(setup, request, EvaluationOverlap::never, threads),
          run_on(setup, request, EvaluationOverlap::always, threads)};
}

const auto kAsIs = [](SlowGame&) {};

}  // namespace

TEST_CASE("evaluation beside the rounds: a whole run gives the bits of the run that waits") {
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    const auto [waited, deferred] = both(kAsIs, gda("0.1", 40), threads);
    CHECK(bit_difference(waited.trajectory, deferred.trajectory) == "");
    CHECK(waited.trajectory.rows.size() == 41);
    CHECK(waited.round_ops == deferred.round_ops);  // no round beyond the budget
  }
}

TEST_CASE("evaluation beside the rounds: a row that diverges ends the run at its round") {
  // A step far above 2/L: the operator norm grows geometrically until the divergence factor.
  const auto [waited, deferred] = both(kAsIs, gda("10", 400));
  REQUIRE(waited.trajectory.summary.reason == StopReason::diverged);
  CHECK(bit_difference(waited.trajectory, deferred.trajectory) == "");
  // The deferring loop ran rounds past the diverged row before it knew (the metrics take
  // milliseconds, a round microseconds), and discarded them.
  CHECK(deferred.round_ops > waited.round_ops);
}

TEST_CASE("evaluation beside the rounds: a target reached ends the run at its row") {
  RunRequest request = gda("0.1", 300);
  const double at_30 = run_on(kAsIs, request, EvaluationOverlap::never).trajectory.metric("op_norm").at(30);
  request.budget.target = Target::parse("op_norm<=" + format_real(at_30));
  const auto [waited, deferred] = both(kAsIs, request);
  REQUIRE(waited.trajectory.summary.reason == StopReason::target_reached);
  CHECK(waited.trajectory.summary.rounds <= 30);
  CHECK(bit_difference(waited.trajectory, deferred.trajectory) == "");
  CHECK(deferred.round_ops > waited.round_ops);
}

TEST_CASE("evaluation beside the rounds: a budget stop waits for the rows before it") {
  RunRequest request = gda("0.1", 300);
  request.budget.max_samples = 5 * 8 * 25;  // every client's full batch for 25 rounds
  const auto [waited, deferred] = both(kAsIs, request);
  REQUIRE(waited.trajectory.summary.reason == StopReason::oracle_budget);
  CHECK(bit_difference(waited.trajectory, deferred.trajectory) == "");
}

TEST_CASE("evaluation beside the rounds: a failing evaluation ends the run at its row, with its error") {
  const auto fail_fifth = [](SlowGame& g) { g.fail_metrics_at = 5; };
  const auto [waited, deferred] = both(fail_fifth, gda("0.1", 100));
  REQUIRE(waited.trajectory.summary.reason == StopReason::error);
  CHECK(waited.trajectory.summary.message == "metric failed on purpose");
  CHECK(waited.trajectory.rows.size() == 4);
  CHECK(bit_difference(waited.trajectory, deferred.trajectory) == "");
}

TEST_CASE("evaluation beside the rounds: a solver failure waits for the rows before it") {
  // 5 clients' operator per round: the 60th round fails, with rows 1..59 still to judge.
  const auto fail_later = [](SlowGame& g) { g.fail_op_after = 5 * 59; };
  const auto [waited, deferred] = both(fail_later, gda("0.1", 100));
  REQUIRE(waited.trajectory.summary.reason == StopReason::error);
  CHECK(waited.trajectory.summary.message == "operator failed on purpose");
  CHECK(bit_difference(waited.trajectory, deferred.trajectory) == "");
  // A row before the failure that diverges wins over it, as when the loop waits.
  const auto diverge_then_fail = [](SlowGame& g) { g.fail_op_after = 5 * 200; };
  const auto [w, d] = both(diverge_then_fail, gda("10", 400));
  REQUIRE(w.trajectory.summary.reason == StopReason::diverged);
  CHECK(bit_difference(w.trajectory, d.trajectory) == "");
}

TEST_CASE("evaluation beside the rounds: automatic defers only with idle threads and costly rows") {
  // One client per round and two threads: a thread the rounds leave idle, and rows of 2 ms.
  RunRequest request = gda("0.1", 30);
  request.participation = Participation::parse("uniform:1");
  const auto waited = run_on(kAsIs, request, EvaluationOverlap::never, 2);
  const auto automatic = run_on(kAsIs, request, EvaluationOverlap::automatic, 2);
  CHECK(bit_difference(waited.trajectory, automatic.trajectory) == "");
}

TEST_CASE("evaluation beside the rounds: every solver of both families gives the bits of the run that waits") {
  const ParamMap bilevel{{"clients", "5"}, {"samples", "8"}, {"dim_x", "3"}, {"dim_y", "3"}};
  const std::shared_ptr<const Problem> instances[] = {fedbench::testing::problem("quadratic-game", kGame),
                                                      fedbench::testing::bilevel_problem("bilevel-quadratic", bilevel)};
  const std::pair<const char*, ParamMap> names[] = {{"quadratic-game", kGame}, {"bilevel-quadratic", bilevel}};
  const char* families[] = {"minimax", "bilevel"};
  for (int f = 0; f < 2; ++f)
    for (const auto& solver : fedbench::testing::solvers_of(families[f])) {
      CAPTURE(solver);
      RunRequest request;
      request.problem = names[f].first;
      request.problem_params = names[f].second;
      request.solver = solver;
      request.participation = Participation::parse("full");
      request.seed = 7;
      request.budget.rounds = 15;
      request.eval.every = 1;
      InMemoryRun waits{2}, defers{2};
      waits.overlap = EvaluationOverlap::never;
      defers.overlap = EvaluationOverlap::always;
      CHECK(bit_difference(run_in_memory(request, instances[f], waits), run_in_memory(request, instances[f], defers)) ==
            "");
    }
}
