// How runs are valued (results/score.hpp) and targets read (engine/run_config.hpp), checked on
// hand-built runs and on GDA over the two-client game, whose rel_error is 0.25^k after k rounds
// at step 0.5 (the contraction (1 - eta)^2 of ||z - z*||^2).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "engine/run_config.hpp"
#include "support/run_helpers.hpp"
#include "results/score.hpp"

using namespace fedbench;
using namespace fedbench::suite;

namespace {

// A stored run with rows at rounds 0, 10, 20, 30 of one metric.
io::StoredRun stored(const std::vector<double>& values, Direction d, const std::string& status = "ok") {
  io::StoredRun r;
  r.path = "made-up.h5";
  r.text["status"] = status;
  r.column_names = {"round", "test_accuracy"};
  r.columns["round"] = {0, 10, 20, 30};
  r.columns["test_accuracy"] = values;
  r.record.header.metric_names = {"test_accuracy"};
  r.record.header.metric_meta = {MetricMeta{d, "", "1"}};
  return r;
}

}  // namespace

TEST_CASE("score: the metric at the last row within the budget, failures and NaN worst") {
  const auto r = stored({0.5, 0.6, 0.7, 0.8}, Direction::max);
  CHECK(recorded_direction(r, "test_accuracy") == Direction::max);
  CHECK(value_at(r, "test_accuracy", "round", 0, Direction::max) == 0.5);
  CHECK(value_at(r, "test_accuracy", "round", 19.9, Direction::max) == 0.6);
  CHECK(value_at(r, "test_accuracy", "round", 20, Direction::max) == 0.7);
  CHECK(value_at(r, "test_accuracy", "round", 1e9, Direction::max) == 0.8);
  CHECK(value_at(stored({0.5, 0.6, 0.7, 0.8}, Direction::max, "diverged"), "test_accuracy", "round", 30,
                 Direction::max) == -INFINITY);
  CHECK(value_at(stored({0.5, NAN, 0.7, NAN}, Direction::min), "test_accuracy", "round", 30, Direction::min) ==
        INFINITY);
  CHECK_THROWS_WITH_AS(value_at(r, "rel_error", "round", 30, Direction::min),
                       "made-up.h5 has no metric 'rel_error'; columns: round, test_accuracy", UserError);
  // Trapezoids of log10: values 10, 1, 0.1, 0.01 -> (1+0)/2*10 + (0-1)/2*10 + (-1-2)/2*10 = -15.
  CHECK(log_area(stored({10, 1, 0.1, 0.01}, Direction::min), "test_accuracy", Direction::min) ==
        doctest::Approx(-15).epsilon(1e-14));
}

TEST_CASE("score: median over seeds, failures counted worst in the direction") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(std::isnan(median({})));
  // One of three seeds failed: the median is the worse of the two others.
  CHECK(median({0.9, 0.7, worst_value(Direction::max)}) == 0.7);
  CHECK(median({0.1, 0.3, worst_value(Direction::min)}) == 0.3);
  CHECK(better(Direction::max, 0.9, 0.8));
  CHECK(better(Direction::min, 0.8, 0.9));
  CHECK_FALSE(better(Direction::min, 0.8, 0.8));
}

TEST_CASE("targets: <= and >= read by one parser, refused otherwise") {
  const Target low = Target::parse("rel_error<=1e-10");
  CHECK(low.metric == "rel_error");
  CHECK(low.direction == Direction::min);
  CHECK(low.reached(1e-10));
  CHECK_FALSE(low.reached(2e-10));
  const Target high = Target::parse("test_accuracy>=0.9");
  CHECK(high.direction == Direction::max);
  CHECK(high.reached(0.9));
  CHECK_FALSE(high.reached(0.89));
  CHECK(Target::parse(high.to_text()).to_text() == "test_accuracy>=0.9");
  for (const char* bad : {"rel_error<1e-3", "<=1", "auc=1", "x>=abc", ""})
    CHECK_THROWS_WITH_AS(Target::parse(bad), doctest::Contains("is not of the form METRIC<=VALUE or METRIC>=VALUE"),
                         UserError);
}

TEST_CASE("targets: a run stops at the first row that reaches its target, either way") {
  const auto game = testing::problem("two-client-game");
  RunRequest req;
  req.problem = "two-client-game";
  req.solver = "gda";
  req.solver_params = {{"step_size", "0.5"}};
  req.budget.rounds = 50;
  // 0.25^k <= 1e-6 first at k = 10 (0.25^9 = 3.8e-6).
  req.budget.target = Target::parse("rel_error<=1e-6");
  const MemoryTrajectory t = testing::run_request(req, game);
  CHECK(t.summary.reason == StopReason::target_reached);
  CHECK(t.summary.rounds == 10);
  CHECK(t.summary.message == "rel_error = 9.5367431640625e-07 <= 1e-06 at round 10");  // 2^-20 exactly
  // A maximised metric: AUC on heart; the stop is the first row at or above the level.
  const ParamMap heart{{"dataset", "heart"}, {"clients", "3"}};
  const auto auc = testing::problem("auc", heart);
  RunRequest up;
  up.problem = "auc";
  up.problem_params = heart;
  up.solver = "sgda";
  up.solver_params = {{"step_size", "0.1"}};
  up.budget.rounds = 60;
  const MemoryTrajectory whole = testing::run_request(up, auc);
  const auto values = whole.metric("train_auc");
  const double level = 0.5 * (values.front() + *std::max_element(values.begin(), values.end()));
  up.budget.target = Target::parse("train_auc>=" + std::to_string(level));
  const MemoryTrajectory stopped = testing::run_request(up, auc);
  const auto seen = stopped.metric("train_auc");
  REQUIRE(seen.size() >= 2);
  CHECK(stopped.summary.reason == StopReason::target_reached);
  CHECK(seen.back() >= up.budget.target->value);
  for (std::size_t k = 0; k + 1 < seen.size(); ++k) CHECK(seen[k] < up.budget.target->value);
}
