#include "metrics/auc.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace fedbench::metrics {

double exact_auc(std::span<const double> scores, std::span<const double> labels) {
  const std::size_t n = scores.size();
  for (double s : scores)
    if (!std::isfinite(s)) return 0.0;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  double rank_sum_positive = 0, positives = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && scores[order[j]] == scores[order[i]]) ++j;
    const double midrank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1..j share it
    for (std::size_t k = i; k < j; ++k)
      if (labels[order[k]] > 0) {
        rank_sum_positive += midrank;
        positives += 1;
      }
    i = j;
  }
  const double negatives = static_cast<double>(n) - positives;
  if (positives == 0 || negatives == 0) return NAN;
  return (rank_sum_positive - positives * (positives + 1) / 2) / (positives * negatives);
}

}  // namespace fedbench::metrics
