#include "problems/common/gram_spectrum.hpp"

#include <cmath>

namespace fedbench::problems {

double largest_second_moment_eigenvalue(const datasets::CsrMatrix& X, std::span<const Index> rows, bool bias) {
  if (rows.empty()) return 0;
  const Index n = X.cols + (bias ? 1 : 0);
  // Not a constant vector: a start orthogonal to the top eigenvector is then unlikely even for
  // centred data (power iteration cannot leave that subspace).
  Vec v(n);
  for (Index k = 0; k < n; ++k) v(k) = 1.0 + static_cast<double>(k % 7) / 7.0;
  v.normalize();
  Vec w(n);
  double lambda = 0;
  for (int it = 0; it < 5000; ++it) {
    w.setZero();
    for (Index row : rows) {
      const std::int32_t begin = X.row_start[row], end = X.row_start[row + 1];
      double dot = bias ? v(n - 1) : 0.0;
      for (std::int32_t e = begin; e < end; ++e) dot += X.val[e] * v(X.col[e]);
      for (std::int32_t e = begin; e < end; ++e) w(X.col[e]) += X.val[e] * dot;
      if (bias) w(n - 1) += dot;
    }
    w /= static_cast<double>(rows.size());
    const double next = v.dot(w);  // Rayleigh quotient: v has norm 1
    const double norm = w.norm();
    if (!(norm > 0)) return 0;
    v = w / norm;
    const bool settled = std::abs(next - lambda) <= 1e-12 * next;
    lambda = next;
    if (settled) break;
  }
  return lambda;
}

}  // namespace fedbench::problems
