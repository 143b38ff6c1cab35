// Projections against independent references: the simplex projection (sort-based) against a
// bisection on the threshold tau of the KKT conditions sum max(x - tau, 0) = r, and every
// projection against the variational inequality <x - p, y - p> <= 0 for feasible y.
#include <doctest/doctest.h>

#include "core/random.hpp"
#include "linalg/projections.hpp"

using namespace fedbench;

namespace {
Vec random_vec(Index d, std::uint64_t seed, double scale) {
  Stream rng(seed, "test-projections");
  Vec v(d);
  for (Index k = 0; k < d; ++k) v(k) = scale * rng.normal();
  return v;
}

Vec simplex_by_bisection(const Vec& x, double r) {
  double lo = x.minCoeff() - r, hi = x.maxCoeff();
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    ((x.array() - mid).cwiseMax(0.0).sum() > r ? lo : hi) = mid;
  }
  return (x.array() - 0.5 * (lo + hi)).cwiseMax(0.0);
}
}  // namespace

TEST_CASE("projections: simplex matches the bisection reference and the optimality condition") {
  Vec scratch;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const Index d = 1 + static_cast<Index>(seed % 17);
    const double r = seed % 3 == 0 ? 1.0 : 2.5;
    const Vec x = random_vec(d, seed, seed % 2 ? 0.1 : 3.0);
    Vec p = x;
    linalg::project_simplex(p, scratch, r);
    CHECK((p - simplex_by_bisection(x, r)).norm() <= 1e-10);
    CHECK(p.minCoeff() >= 0);
    CHECK(p.sum() == doctest::Approx(r).epsilon(1e-12));
    for (Index k = 0; k < d; ++k) {  // <x - p, e_k r - p> <= 0 for every vertex
      Vec y = Vec::Zero(d);
      y(k) = r;
      CHECK((x - p).dot(y - p) <= 1e-10);
    }
  }
  Vec already(3);
  already << 0.2, 0.3, 0.5;
  Vec p = already;
  linalg::project_simplex(p, scratch);
  CHECK((p - already).norm() <= 1e-15);
}

TEST_CASE("projections: ball and box") {
  Vec x = random_vec(5, 1, 3.0);
  Vec b = x;
  linalg::project_ball(b, 0.5);
  CHECK(b.norm() == doctest::Approx(0.5));
  CHECK((b / b.norm() - x / x.norm()).norm() <= 1e-14);
  Vec inside = 0.01 * x;
  Vec same = inside;
  linalg::project_ball(same, 10.0);
  CHECK(same == inside);
  Vec c = x;
  linalg::project_box(c, -0.5, 1.0);
  for (Index k = 0; k < 5; ++k) CHECK(c(k) == std::min(1.0, std::max(-0.5, x(k))));
}
