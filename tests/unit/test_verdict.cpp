// The verdict of a claim from per-seed margins (experiment/verdict.hpp), on synthetic data whose
// answer is known: a clear win holds, a tie and a split are inconclusive, a reversal is
// contradicted, one collapsed seed among ten does not decide, too few seeds decide nothing,
// and runs that do not depend on the seed are exact. The interval's coverage is checked against
// the binomial sums written out by hand and against a simulation.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "experiment/verdict.hpp"

using namespace fedbench;
using namespace fedbench::suite;

TEST_CASE("verdict: the median interval is the sign test's order statistics") {
  // n = 10: P(Bin(10, 1/2) <= 1) = 11/1024, so [x(2), x(9)] covers 1 - 22/1024; k = 3 would
  // cover 1 - 2 * 56/1024 = 0.89 < 0.95.
  const std::vector<double> ten = {9, 1, 8, 2, 7, 3, 6, 4, 5, 10};
  const MedianInterval i = median_interval(ten);
  CHECK(i.k == 2);
  CHECK(i.low == 2);
  CHECK(i.high == 9);
  CHECK(i.coverage == doctest::Approx(1 - 22.0 / 1024).epsilon(1e-15));
  // n = 5: no interval reaches 95%; the range covers 1 - 2/32.
  const MedianInterval five = median_interval({5, 4, 3, 2, 1});
  CHECK(five.k == 1);
  CHECK(five.low == 1);
  CHECK(five.high == 5);
  CHECK(five.coverage == doctest::Approx(0.9375).epsilon(1e-15));
  // n = 20: P(Bin(20, 1/2) <= 5) = 21700/1048576 -> k = 6 covers 0.9586; k = 7 only 0.8847.
  std::vector<double> twenty;
  for (int v = 20; v >= 1; --v) twenty.push_back(v);
  const MedianInterval t = median_interval(twenty);
  CHECK(t.k == 6);
  CHECK(t.low == 6);
  CHECK(t.high == 15);
  CHECK(t.coverage == doctest::Approx(1 - 2 * 21700.0 / 1048576).epsilon(1e-15));
}

TEST_CASE("verdict: the interval covers the true median as often as it says (simulation)") {
  // A skewed distribution (exponential, median ln 2): the sign test needs no symmetry.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> draw(1.0);
  const double truth = std::log(2.0);
  for (std::size_t n : {6u, 10u, 15u}) {
    const int trials = 20000;
    int covered = 0;
    double coverage = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> x(n);
      for (auto& v : x) v = draw(rng);
      const MedianInterval i = median_interval(x);
      coverage = i.coverage;
      covered += i.low <= truth && truth <= i.high;
    }
    CAPTURE(n);
    CHECK(coverage >= 0.95);
    // Binomial standard error at 20,000 trials is about 0.0015: 4 of them.
    CHECK(static_cast<double>(covered) / trials == doctest::Approx(coverage).epsilon(0.006 / coverage));
  }
}

TEST_CASE("verdict: clear win, tie, reversal, a collapsed seed, too few seeds") {
  // Ratios than / solver, the claim needing > 1 (the solver's error lower).
  const std::vector<double> win = {3.1, 2.9, 4.0, 3.3, 2.7, 3.8, 3.0, 2.5, 3.6, 3.2};
  const Evidence w = judge(win, Sense::above, 1, 0, false);
  CHECK(w.verdict == Verdict::holds);
  CHECK(w.holds_on == 10);
  CHECK(w.n == 10);
  CHECK(w.interval.low == 2.7);

  // A tie: the ratio scatters around 1.
  const std::vector<double> tie = {1.02, 0.97, 1.05, 0.99, 1.01, 0.96, 1.03, 0.98, 1.04, 1.00};
  const Evidence t = judge(tie, Sense::above, 1, 0, false);
  CHECK(t.verdict == Verdict::inconclusive);
  CHECK(t.why.find("straddles") != std::string::npos);

  // A reversal: the solver loses on every seed.
  std::vector<double> reversal;
  for (double v : win) reversal.push_back(1 / v);
  CHECK(judge(reversal, Sense::above, 1, 0, false).verdict == Verdict::contradicted);

  // One collapsed seed among ten (CD-MAGE+'s AUC 0.58 on one seed): the claim still holds on 9 of
  // 10, which the sign test accepts, and the worst unit is that seed.
  std::vector<double> one_collapse = win;
  one_collapse[4] = 1e-3;
  const Evidence c = judge(one_collapse, Sense::above, 1, 0, false);
  CHECK(c.verdict == Verdict::holds);
  CHECK(c.holds_on == 9);
  CHECK(c.worst == 4);
  // Four collapsed seeds of ten: no longer decided either way.
  std::vector<double> four = one_collapse;
  four[0] = four[1] = four[2] = 1e-2;
  const Evidence f = judge(four, Sense::above, 1, 0, false);
  CHECK(f.verdict == Verdict::inconclusive);
  CHECK(f.holds_on == 6);

  // Three seeds decide nothing, however clear; five decide only unanimously.
  CHECK(judge({3, 4, 5}, Sense::above, 1, 0, false).verdict == Verdict::inconclusive);
  CHECK(judge({3, 4, 5}, Sense::above, 1, 0, false).why.find("n = 3 < 5 seeds") != std::string::npos);
  CHECK(judge({3, 4, 5, 6, 7}, Sense::above, 1, 0, false).verdict == Verdict::holds);
  CHECK(judge({3, 4, 5, 6, 0.5}, Sense::above, 1, 0, false).verdict == Verdict::inconclusive);
  CHECK(judge({}, Sense::above, 1, 0, false).verdict == Verdict::inconclusive);
}

TEST_CASE("verdict: below, within and NaN margins") {
  const std::vector<double> errors = {1e-30, 2e-30, 3e-30, 1e-29, 5e-30};
  CHECK(judge(errors, Sense::below, 1e-25, 0, false).verdict == Verdict::holds);
  CHECK(judge(errors, Sense::below, 1e-31, 0, false).verdict == Verdict::contradicted);
  CHECK(judge(errors, Sense::below, 4e-30, 0, false).verdict == Verdict::inconclusive);
  // A band: inside, outside above, straddling its low end.
  const std::vector<double> values = {0.31, 0.32, 0.33, 0.34, 0.35};
  CHECK(judge(values, Sense::within, 0.3, 0.4, false).verdict == Verdict::holds);
  CHECK(judge(values, Sense::within, 0.1, 0.2, false).verdict == Verdict::contradicted);
  CHECK(judge(values, Sense::within, 0.325, 0.4, false).verdict == Verdict::inconclusive);
  // NaN (both sides diverged: inf / inf) never satisfies a claim and counts as its worst.
  const Evidence n = judge({NAN, 2, 3, 4, 5}, Sense::above, 1, 0, false);
  CHECK(n.holds_on == 4);
  CHECK(n.worst == 0);
  CHECK(n.verdict == Verdict::inconclusive);
}

TEST_CASE("verdict: runs that do not depend on the seed are exact") {
  // Full-batch, full-participation runs give the same bits on every seed: one margin decides.
  const Evidence e = judge({2.5, 2.5}, Sense::above, 1, 0, /*seed_free=*/true);
  CHECK(e.verdict == Verdict::holds);
  CHECK(e.seed_free);
  CHECK(e.interval.coverage == 1.0);
  CHECK(judge({0.5, 0.5}, Sense::above, 1, 0, true).verdict == Verdict::contradicted);
  // One seed cannot show that it does not matter.
  CHECK(judge({2.5}, Sense::above, 1, 0, true).verdict == Verdict::inconclusive);
}

TEST_CASE("verdict: collapsed seeds are outliers on the metric's bad side") {
  // Training AUC (maximised): four seeds far below the others collapse; a high one does not.
  const std::vector<double> auc = {0.962, 0.958, 0.58, 0.965, 0.71, 0.961, 0.88, 0.963, 0.66, 0.964};
  CHECK(count_collapsed(auc, Direction::max) == 4);
  CHECK(count_collapsed(auc, Direction::min) == 0);
  // Errors (minimised) are read on log10: 1e-3 among 1e-9s collapses, 1e-12 is a good seed.
  const std::vector<double> err = {1e-9, 2e-9, 1.5e-9, 1e-3, 1.2e-9, 1e-12, 1.1e-9};
  CHECK(count_collapsed(err, Direction::min) == 1);
  // No spread (most seeds equal) and infinite values (diverged runs, counted apart) are not outliers.
  CHECK(count_collapsed({1, 1, 1, 1, 5}, Direction::min) == 0);
  CHECK(count_collapsed({1, 1.1, 0.9, INFINITY}, Direction::min) == 0);
}
