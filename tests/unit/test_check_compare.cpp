// `fedbench check`'s comparison of a run with its reference, on runs built here: each column's
// largest deviation, its round and its band against values worked out by hand; time columns
// ignored; NaNs and signs a log cannot compare; a run that cannot be compared says why.
#include <doctest/doctest.h>

#include <cmath>

#include "results/check.hpp"

using namespace fedbench;

namespace {

io::StoredRun run_of(const std::vector<double>& rel_error, const std::vector<double>& wall_time) {
  io::StoredRun run;
  run.text["status"] = "ok";
  run.column_names = {"round", "rel_error", "wall_time"};
  run.columns["round"] = {0, 10, 20, 30};
  run.columns["rel_error"] = rel_error;
  run.columns["wall_time"] = wall_time;
  return run;
}

const suite::CurveVerdict& curve(const suite::RunVerdict& v, const std::string& column) {
  for (const auto& c : v.curves)
    if (c.column == column) return c;
  FAIL("no curve " << column);
  return v.curves.front();
}

}  // namespace

TEST_CASE("check: the largest deviation of a column, its round and its band") {
  const auto ref = run_of({1.0, 0.5, 0.1, 0.01}, {0, 1, 2, 3});
  // off by 0.02 at round 10 (0.0177 decades) and 0.002 at round 30 (0.0792 decades)
  const auto fresh = run_of({1.0, 0.52, 0.1, 0.012}, {5, 6, 7, 8});

  const auto exact = suite::compare_runs(fresh, ref, {});
  REQUIRE(exact.problem.empty());
  REQUIRE(exact.curves.size() == 2);  // round and rel_error: wall_time is not compared
  CHECK(curve(exact, "round").passed);
  CHECK(curve(exact, "round").deviation == 0);
  const auto& e = curve(exact, "rel_error");
  CHECK_FALSE(e.passed);
  CHECK(e.round == 10);  // by |fresh - reference|
  CHECK(e.deviation == doctest::Approx(0.02).epsilon(1e-12));
  CHECK(e.band_low == 0.5);
  CHECK(e.band_high == 0.5);
  CHECK_FALSE(e.band_decades.has_value());
  CHECK_FALSE(exact.passed());

  const auto banded = suite::compare_runs(fresh, ref, {{"rel_error", 0.05}});
  const auto& b = curve(banded, "rel_error");
  CHECK_FALSE(b.passed);
  CHECK(b.round == 30);  // by |log10(fresh / reference)|
  CHECK(b.decades == doctest::Approx(std::log10(1.2)).epsilon(1e-12));
  CHECK(b.deviation == doctest::Approx(0.002).epsilon(1e-9));
  CHECK(b.band_low == doctest::Approx(0.01 * std::pow(10.0, -0.05)).epsilon(1e-14));
  CHECK(b.band_high == doctest::Approx(0.01 * std::pow(10.0, 0.05)).epsilon(1e-14));
  CHECK(*b.band_decades == 0.05);

  const auto wide = suite::compare_runs(fresh, ref, {{"*", 0.1}});
  CHECK(wide.passed());
  CHECK(curve(wide, "rel_error").round == 30);  // still the largest, inside the band
}

TEST_CASE("check: NaNs, values no log compares, and runs that cannot be compared") {
  const auto ref = run_of({1.0, NAN, 0.5, 0.0}, {0, 0, 0, 0});
  CHECK(suite::compare_runs(ref, ref, {{"*", 0.1}}).passed());  // NaN against NaN agrees

  const auto nan_fresh = run_of({1.0, 0.3, 0.5, 0.0}, {0, 0, 0, 0});
  const auto nan = curve(suite::compare_runs(nan_fresh, ref, {{"*", 0.1}}), "rel_error");
  CHECK_FALSE(nan.passed);
  CHECK(nan.round == 10);

  const auto zero_fresh = run_of({1.0, NAN, 0.5, 1e-300}, {0, 0, 0, 0});
  const auto zero = curve(suite::compare_runs(zero_fresh, ref, {{"*", 10.0}}), "rel_error");
  CHECK_FALSE(zero.passed);  // 0 has no log: no band around it
  CHECK(zero.round == 30);
  CHECK(zero.band_low == 0.0);
  CHECK(zero.band_high == 0.0);

  auto diverged = nan_fresh;
  diverged.text["status"] = "diverged";
  const auto status = suite::compare_runs(diverged, ref, {});
  CHECK(status.problem == "status diverged, reference ok");
  CHECK(status.curves.empty());
  CHECK_FALSE(status.passed());

  auto shorter = nan_fresh;
  for (auto& [name, column] : shorter.columns) column.pop_back();
  CHECK(suite::compare_runs(shorter, ref, {}).problem == "3 rows, reference 4");
}
