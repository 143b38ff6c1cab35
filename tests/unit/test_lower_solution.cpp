// The exact reference's lower-level solver where double precision runs out: a lower level
// whose value carries a large constant, so that Armijo's decrease test drowns in the rounding
// of g long before the gradient is small. lower_solution must still reach the gradient floor,
// and must stop there instead of backtracking forever.
#include <doctest/doctest.h>

#include <cmath>

#include "problem/bilevel_problem.hpp"

using namespace fedbench;

namespace {

//! One client, x in R, y in R^n:
//!   g(x, y) = offset + sum_k softplus(y_k - c_k) + (e^x / 2) ||y||^2,  f(x, y) = ||y||^2 / 2.
//! The minimiser of each coordinate solves sigma(y - c) + e^x y = 0: checked by bisection.
class OffsetSoftplus : public BilevelProblem {
 public:
  OffsetSoftplus(double offset, Vec centres) : offset_(offset), c_(std::move(centres)) {
    set_bilevel_shape(1, c_.size(), {1}, {1});
  }
  std::string problem_class() const override { return "test"; }
  mutable long value_calls = 0;

  //! y*_k by bisection on the monotone sigma(y - c) + e^x y (independent of Newton).
  double bisected_solution(double x, Index k) const {
    double lo = -10, hi = 10;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (sigmoid(mid - c_(k)) + std::exp(x) * mid > 0 ? hi : lo) = mid;
    }
    return 0.5 * (lo + hi);
  }

 protected:
  static double sigmoid(double t) { return 1 / (1 + std::exp(-t)); }
  const Eigen::Ref<const Vec> y(const Vec& z) const { return z.tail(dim_y()); }
  void do_upper_grad_x(int, std::span<const Index>, const Vec&, Vec& out) const override { out.setZero(); }
  void do_upper_grad_y(int, std::span<const Index>, const Vec& z, Vec& out) const override { out = y(z); }
  void do_lower_grad_x(int, std::span<const Index>, const Vec& z, Vec& out) const override {
    out(0) = 0.5 * std::exp(z(0)) * y(z).squaredNorm();
  }
  void do_lower_grad_y(int, std::span<const Index>, const Vec& z, Vec& out) const override {
    for (Index k = 0; k < dim_y(); ++k) out(k) = sigmoid(z(1 + k) - c_(k)) + std::exp(z(0)) * z(1 + k);
  }
  void do_lower_hvp(int, std::span<const Index>, const Vec& z, const Vec& v, Vec& out) const override {
    for (Index k = 0; k < dim_y(); ++k) {
      const double s = sigmoid(z(1 + k) - c_(k));
      out(k) = (s * (1 - s) + std::exp(z(0))) * v(k);
    }
  }
  void do_lower_jvp(int, std::span<const Index>, const Vec& z, const Vec& v, Vec& out) const override {
    out(0) = std::exp(z(0)) * y(z).dot(v);
  }
  double do_upper_value(int, std::span<const Index>, const Vec& z) const override {
    return 0.5 * y(z).squaredNorm();
  }
  double do_lower_value(int, std::span<const Index>, const Vec& z) const override {
    ++value_calls;
    double g = offset_;
    for (Index k = 0; k < dim_y(); ++k) g += std::log1p(std::exp(z(1 + k) - c_(k)));
    return g + 0.5 * std::exp(z(0)) * y(z).squaredNorm();
  }

 private:
  double offset_;
  Vec c_;
};

}  // namespace

TEST_CASE("bilevel: lower_solution reaches the gradient floor when g's rounding hides its decrease") {
  Vec centres(6);
  centres << -2, -1, 0, 0.5, 1, 3;
  // offset 1e12: g is rounded to ~1e-4, so Armijo's test fails once the decrease
  // ~||grad||^2 / (2 L) drops below that, from ||grad|| ~ 1e-2 on: the case of hyper-logreg on
  // a9a (g ~ 0.3, ||grad|| ~ 1e-11) made certain to happen. Offset 0 is the ordinary case.
  for (double offset : {0.0, 1e12}) {
    CAPTURE(offset);
    const OffsetSoftplus p(offset, centres);
    const double x = std::log(0.05);  // weak ridge: strongly curved softplus matters
    Vec y_star(6);
    for (Index k = 0; k < 6; ++k) y_star(k) = p.bisected_solution(x, k);
    Vec x_vec(1);
    x_vec << x;
    p.value_calls = 0;
    const Vec y = p.lower_solution(x_vec, Vec::Constant(6, 5.0));
    CHECK((y - y_star).norm() < 1e-12);
    // Newton from ||grad|| ~ 1: a handful of iterations, each a few values (backtracking
    // tries 1, 1/2, ...); stalling at the rounding floor would cost 60 values per iteration.
    CHECK(p.value_calls < 60);
  }
}
