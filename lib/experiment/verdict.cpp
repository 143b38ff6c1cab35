#include "experiment/verdict.hpp"

#include "results/score.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedbench::suite {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::contradicted: return "contradicted";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

namespace {

// P(Bin(n, 1/2) <= j), summed in doubles (n is a count of seeds: no overflow).
double binomial_cdf_half(std::size_t n, std::size_t j) {
  double term = std::pow(0.5, static_cast<double>(n)), sum = 0;
  for (std::size_t i = 0; i <= j && i <= n; ++i) {
    sum += term;
    term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return sum;
}

// The margin that fails the claim worst: NaN margins take it, and it orders the worst unit.
double worst_margin(Sense sense) {
  return sense == Sense::above ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity();
}

// How far a margin is on the wrong side (larger: worse).
double badness(double m, Sense sense, double low, double high) {
  switch (sense) {
    case Sense::above: return low - m;
    case Sense::below: return m - low;
    case Sense::within: return std::max(low - m, m - high);
  }
  return 0;
}

}  // namespace

MedianInterval median_interval(std::vector<double> values, double level) {
  MedianInterval out;
  const std::size_t n = values.size();
  if (n == 0) return out;
  std::sort(values.begin(), values.end());
  out.k = 1;
  for (std::size_t k = 2; 2 * k <= n + 1; ++k) {
    if (1 - 2 * binomial_cdf_half(n, k - 1) < level) break;
    out.k = k;
  }
  out.coverage = 1 - 2 * binomial_cdf_half(n, out.k - 1);
  out.low = values[out.k - 1];
  out.high = values[n - out.k];
  return out;
}

bool holds_on(double margin, Sense sense, double low, double high) {
  switch (sense) {
    case Sense::above: return margin > low;
    case Sense::below: return margin < low;
    case Sense::within: return margin >= low && margin <= high;
  }
  return false;
}

Evidence judge(const std::vector<double>& margins, Sense sense, double low, double high, bool seed_free) {
  Evidence e;
  e.n = margins.size();
  if (e.n == 0) {
    e.why = "no seed has runs of every method the claim compares";
    return e;
  }
  std::vector<double> m(margins);
  for (auto& v : m)
    if (std::isnan(v)) v = worst_margin(sense);
  for (std::size_t u = 0; u < e.n; ++u) {
    e.holds_on += holds_on(m[u], sense, low, high);
    if (badness(m[u], sense, low, high) > badness(m[e.worst], sense, low, high)) e.worst = u;
  }
  e.median = median(m);
  e.seed_free = seed_free && e.n >= 2;
  if (e.seed_free) {
    // Every unit gave the same bits: the interval is the one margin, known exactly.
    e.interval = {m.front(), m.front(), 1.0, 1};
    e.verdict = holds_on(m.front(), sense, low, high) ? Verdict::holds : Verdict::contradicted;
    return e;
  }
  e.interval = median_interval(m);
  if (e.n < kMinUnitsForVerdict) {
    e.why = "n = " + std::to_string(e.n) + " < " + std::to_string(kMinUnitsForVerdict) + " seeds";
    return e;
  }
  const double lo = e.interval.low, hi = e.interval.high;
  bool in_favour = false, against = false;
  switch (sense) {
    case Sense::above:
      in_favour = lo > low;
      against = hi <= low;
      break;
    case Sense::below:
      in_favour = hi < low;
      against = lo >= low;
      break;
    case Sense::within:
      in_favour = lo >= low && hi <= high;
      against = hi < low || lo > high;
      break;
  }
  e.verdict = in_favour ? Verdict::holds : against ? Verdict::contradicted : Verdict::inconclusive;
  if (e.verdict == Verdict::inconclusive) e.why = "the interval straddles the claim's threshold";
  return e;
}

std::size_t count_collapsed(const std::vector<double>& values, Direction direction) {
  std::vector<double> v;
  for (double x : values)
    if (std::isfinite(x)) v.push_back(x);
  if (v.size() < 3) return 0;
  const bool log_scale = std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  if (log_scale)
    for (auto& x : v) x = std::log10(x);
  const double med = median(v);
  std::vector<double> deviation;
  for (double x : v) deviation.push_back(std::abs(x - med));
  const double scale = 1.4826 * median(std::move(deviation));
  if (scale == 0) return 0;  // most seeds agree exactly: no spread to measure an outlier by
  std::size_t out = 0;
  for (double x : v) out += (direction == Direction::max ? med - x : x - med) > 5 * scale;
  return out;
}

}  // namespace fedbench::suite
