#include "linalg/projections.hpp"

#include <algorithm>
#include <functional>

#include "core/error.hpp"

namespace fedbench::linalg {

void project_simplex(Eigen::Ref<Vec> x, Vec& scratch, double radius) {
  FEDBENCH_CHECK(radius > 0, "simplex radius must be positive");
  const Index d = x.size();
  scratch = x;
  std::sort(scratch.data(), scratch.data() + d, std::greater<double>());
  // The threshold tau = (sum of the k largest - r) / k for the largest k with u_k > tau.
  double cumulative = 0, tau = 0;
  for (Index k = 0; k < d; ++k) {
    cumulative += scratch(k);
    const double t = (cumulative - radius) / static_cast<double>(k + 1);
    if (scratch(k) > t) tau = t;
  }
  x = (x.array() - tau).cwiseMax(0.0);
}

void project_ball(Eigen::Ref<Vec> x, double radius) {
  const double n = x.norm();
  if (n > radius) x *= radius / n;
}

void project_box(Eigen::Ref<Vec> x, double lo, double hi) {
  FEDBENCH_CHECK(lo <= hi, "box bounds must satisfy lo <= hi");
  x = x.cwiseMax(lo).cwiseMin(hi);
}

}  // namespace fedbench::linalg
