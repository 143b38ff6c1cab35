// A claim's verdict and the evidence behind it. A claim compares methods seed by seed: each
// seed (with the problem settings the claim leaves free) is one unit, on which a margin is
// measured (e.g. the ratio of two methods' errors, or one method's value) and the claim holds
// or not. The verdict is a sign test on those margins, stated as a distribution-free
// confidence interval for their median: the k-th smallest and k-th largest margin, k the
// largest whose coverage 1 - 2 P(Bin(n, 1/2) <= k - 1) is at least 95% (n >= 6), or the whole
// range at n = 5 (93.75%, the most five seeds allow). It needs no model of the noise, a
// collapsed seed moves it by one rank only, and any monotone rescaling of the margin (log or
// linear) gives the same verdict.
//
//   holds          the whole interval is on the claim's side of its threshold
//   contradicted   the whole interval is on the other side
//   inconclusive   the interval straddles the threshold, or fewer than 5 seeds were paired
//
// Runs that do not depend on the seed (every side bit-identical on every unit, n >= 2) are
// exact: the one margin decides.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "problem/metric_names.hpp"

namespace fedbench::suite {

enum class Verdict { holds, contradicted, inconclusive };
const char* to_string(Verdict v);

//! Where a margin must lie for the claim to hold on a unit: above `low`, below `low`, or within
//! [low, high].
enum class Sense { above, below, within };

//! Fewer paired units than this decide nothing (their widest interval covers < 90%).
inline constexpr std::size_t kMinUnitsForVerdict = 5;

//! A confidence interval for the median of a sample: its k-th smallest and k-th largest value.
struct MedianInterval {
  double low = 0, high = 0;
  double coverage = 0;  //!< 1 - 2 P(Bin(n, 1/2) <= k - 1): exact for any continuous distribution
  std::size_t k = 0;    //!< 0: no values
};

//! The interval of largest k whose coverage is at least `level`; k = 1 (the range) when none
//! reaches it. The values must not be NaN.
MedianInterval median_interval(std::vector<double> values, double level = 0.95);

//! Whether one unit's margin satisfies the claim (NaN never does).
bool holds_on(double margin, Sense sense, double low, double high);

struct Evidence {
  Verdict verdict = Verdict::inconclusive;
  std::size_t n = 0;         //!< paired units
  std::size_t holds_on = 0;  //!< units on which the claim holds
  double median = 0;         //!< median margin (NaN margins count as the claim's worst)
  MedianInterval interval;
  bool seed_free = false;    //!< decided exactly: the runs do not depend on the seed
  std::size_t worst = 0;     //!< index of the unit whose margin is furthest on the wrong side
  std::string why;           //!< what kept it inconclusive; empty otherwise
};

//! The verdict on `margins` (one per unit); `seed_free`: every side identical on every unit.
Evidence judge(const std::vector<double>& margins, Sense sense, double low, double high, bool seed_free);

//! How many of one method's per-seed values collapsed: outliers on the bad side of the
//! metric's direction, further from the median than 5 scaled median absolute deviations
//! (1.4826 MAD, the normal's sigma), read on log10 when every value is positive (errors span
//! decades). Infinite values (diverged runs) are counted by the caller, not here.
std::size_t count_collapsed(const std::vector<double>& values, Direction direction);

}  // namespace fedbench::suite
