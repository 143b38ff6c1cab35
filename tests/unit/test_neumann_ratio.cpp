// The Neumann-series diagnostics: the share of the exact hypergradient that a truncated series
// keeps (neumann_ratio) against its closed form through an eigendecomposition of the averaged
// lower Hessian, the data problems' smoothness bound from the spectrum of each client's rows
// against a dense eigensolver, and on a9a the series length at which the ratio passes 0.9 with
// theta = 1/L_g from that bound (and not with the worst-row bound it replaced).
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "core/random.hpp"
#include "problems/common/gram_spectrum.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

//! The averaged lower Hessian, grad_y f and grad_x f of the counted full-batch oracles at z.
struct DenseParts {
  Mat hessian;
  Vec fy, fx;
};
DenseParts dense_parts(const BilevelProblem& p, const Vec& z) {
  OracleCounts c;
  const double m = p.num_clients();
  DenseParts d{Mat::Zero(p.dim_y(), p.dim_y()), Vec::Zero(p.dim_y()), Vec::Zero(p.dim_x())};
  Vec e(p.dim_y()), part;
  for (int i = 0; i < p.num_clients(); ++i) {
    p.upper_grad_y(i, {}, z, part, c);
    d.fy += part / m;
    p.upper_grad_x(i, {}, z, part, c);
    d.fx += part / m;
    for (Index j = 0; j < p.dim_y(); ++j) {
      e.setZero();
      e(j) = 1;
      p.lower_hvp(i, {}, z, e, part, c);
      d.hessian.col(j) += part / m;
    }
  }
  return d;
}

//! grad_x f - grad^2_xy g v, the mixed product by the counted oracles.
Vec hypergradient_shape(const BilevelProblem& p, const Vec& z, const Vec& fx, const Vec& v) {
  OracleCounts c;
  Vec h = fx, part;
  for (int i = 0; i < p.num_clients(); ++i) {
    p.lower_jvp(i, {}, z, v, part, c);
    h -= part / p.num_clients();
  }
  return h;
}

//! <h_Q, h*> / ||h*||^2 with theta sum_{j<Q} (I - theta H)^j = H^-1 (I - (I - theta H)^Q), by
//! the eigendecomposition of H: no series is summed here.
double closed_form_ratio(const BilevelProblem& p, const Vec& z_star, double theta, int terms) {
  const DenseParts d = dense_parts(p, z_star);
  const Eigen::SelfAdjointEigenSolver<Mat> eig(d.hessian);
  const Vec& lambda = eig.eigenvalues();
  Vec kept(lambda.size()), full(lambda.size());
  for (Index k = 0; k < lambda.size(); ++k) {
    full(k) = 1 / lambda(k);
    kept(k) = (1 - std::pow(1 - theta * lambda(k), terms)) / lambda(k);
  }
  const Mat& V = eig.eigenvectors();
  const Vec coords = V.transpose() * d.fy;
  const Vec exact = hypergradient_shape(p, z_star, d.fx, V * full.cwiseProduct(coords));
  const Vec truncated = hypergradient_shape(p, z_star, d.fx, V * kept.cwiseProduct(coords));
  return truncated.dot(exact) / exact.squaredNorm();
}

Vec at_lower_solution(const BilevelProblem& p, const Vec& x) {
  Vec z(p.dim());
  z << x, p.lower_solution(x, Vec::Zero(p.dim_y()));
  return z;
}

}  // namespace

TEST_CASE("neumann_ratio equals its closed form through the Hessian's eigendecomposition") {
  const ParamMap params{{"clients", "3"}, {"samples", "4"}, {"dim_x", "3"}, {"dim_y", "5"}, {"lipschitz_g", "6"}};
  const auto p = testing::bilevel_problem("bilevel-quadratic", params);
  Stream rng(3, "test-neumann-ratio");
  Vec x(p->dim_x());
  for (Index k = 0; k < x.size(); ++k) x(k) = rng.normal();
  const Vec z_star = at_lower_solution(*p, x);
  const double theta = 1 / p->constants().get(Constant::lipschitz_g_client_max, "test");
  for (int terms : {1, 2, 5, 20}) {
    CAPTURE(terms);
    const double expected = closed_form_ratio(*p, z_star, theta, terms);
    CHECK(p->neumann_ratio(z_star, theta, terms) == doctest::Approx(expected).epsilon(1e-10));
  }
  // Short series miss a visible part; a long one keeps all of it (kappa is at most 6 here).
  CHECK(std::abs(p->neumann_ratio(z_star, theta, 1) - 1) > 0.02);
  CHECK(p->neumann_ratio(z_star, theta, 400) == doctest::Approx(1).epsilon(1e-10));
  // A model away from y*: the ratio is taken at y*(x), whatever the model's y.
  Vec z_off = z_star;
  z_off.tail(p->dim_y()).setConstant(3.0);
  CHECK(p->neumann_ratio(z_off, theta, 5) == doctest::Approx(p->neumann_ratio(z_star, theta, 5)).epsilon(1e-10));
}

TEST_CASE("the largest eigenvalue of a row set's second-moment matrix equals a dense eigensolver's") {
  Stream rng(5, "test-gram-spectrum");
  datasets::CsrMatrix X;
  X.rows = 40;
  X.cols = 9;
  for (Index r = 0; r < X.rows; ++r) {
    for (std::int32_t c = 0; c < X.cols; ++c)
      if (rng.uniform() < 0.4) {
        X.col.push_back(c);
        X.val.push_back(rng.normal() + (c == 2 ? 2.0 : 0.0));
      }
    X.row_start.push_back(static_cast<std::int32_t>(X.val.size()));
  }
  const std::vector<Index> rows{0, 3, 4, 7, 8, 11, 15, 19, 22, 23, 30, 31, 38};
  for (bool bias : {false, true}) {
    CAPTURE(bias);
    const Mat dense = X.dense();
    Mat moment = Mat::Zero(X.cols + (bias ? 1 : 0), X.cols + (bias ? 1 : 0));
    for (Index r : rows) {
      Vec a(moment.rows());
      a.head(X.cols) = dense.row(r).transpose();
      if (bias) a(X.cols) = 1;
      moment += a * a.transpose() / static_cast<double>(rows.size());
    }
    const double expected = Eigen::SelfAdjointEigenSolver<Mat>(moment).eigenvalues().maxCoeff();
    CHECK(problems::largest_second_moment_eigenvalue(X, rows, bias) == doctest::Approx(expected).epsilon(1e-9));
  }
  CHECK(problems::largest_second_moment_eigenvalue(X, {}, true) == 0);
}

TEST_CASE("hyper-logreg's smoothness bound holds for every client and is attained at y = 0") {
  const auto p = testing::bilevel_problem("hyper-logreg", {{"dataset", "heart"}, {"clients", "3"}});
  const double bound = p->constants().get(Constant::lipschitz_g_client_max, "test");
  Stream rng(9, "test-smoothness-bound");
  double at_zero = 0;
  for (int trial = 0; trial < 2; ++trial) {
    Vec z = p->initial_point();  // x = 0, y = 0 (two classes: pi = (1/2, 1/2) on every row)
    if (trial == 1)
      for (Index k = 0; k < p->dim_y(); ++k) z(p->dim_x() + k) = rng.normal();
    for (int i = 0; i < p->num_clients(); ++i) {
      Mat h(p->dim_y(), p->dim_y());
      Vec e(p->dim_y()), col;
      OracleCounts c;
      for (Index j = 0; j < p->dim_y(); ++j) {
        e.setZero();
        e(j) = 1;
        p->lower_hvp(i, {}, z, e, col, c);
        h.col(j) = col;
      }
      const double top = Eigen::SelfAdjointEigenSolver<Mat>(h).eigenvalues().maxCoeff();
      CHECK(top <= bound * (1 + 1e-9));
      if (trial == 0) at_zero = std::max(at_zero, top);
    }
  }
  CHECK(at_zero == doctest::Approx(bound).epsilon(1e-9));
}

TEST_CASE("a9a: theta = 1/L_g from the spectrum keeps 90% of the hypergradient at Q = 320, the worst-row bound does not") {
  const auto p = testing::bilevel_problem("hyper-logreg", {{"dataset", "a9a"}, {"clients", "8"}});
  const Vec z_star = at_lower_solution(*p, Vec::Zero(p->dim_x()));
  const double lipschitz = p->constants().get(Constant::lipschitz_g_client_max, "test");
  const double theta = 1 / lipschitz;
  // The tuning grid of the a9a experiments: {80, 320}; only its top passes.
  CHECK(p->neumann_ratio(z_star, theta, 320) >= 0.9);
  CHECK(p->neumann_ratio(z_star, theta, 80) < 0.9);
  // a9a's rows hold at most 14 ones: the worst-row bound 14/2 + mu is over twice the spectral one.
  const double mu = p->constants().get(Constant::mu_g_client_min, "test");
  const double worst_row = 14.0 / 2 + mu;
  CHECK(worst_row > 2 * lipschitz);
  CHECK(p->neumann_ratio(z_star, 1 / worst_row, 320) < 0.9);
}

TEST_CASE("Neumann-series solvers record neumann_ratio at every row; other solvers do not") {
  const ParamMap params{{"clients", "3"}, {"samples", "4"}, {"dim_x", "3"}, {"dim_y", "5"}};
  const auto p = testing::bilevel_problem("bilevel-quadratic", params);
  testing::RunSpec spec;
  spec.rounds = 4;
  spec.eval_every = 2;
  spec.solver = "fednest";
  spec.solver_params = {{"neumann_terms", "3"}, {"theta", "0.1"}};
  const auto run = testing::run(p, "bilevel-quadratic", params, spec);
  const auto ratio = run.metric("neumann_ratio");
  REQUIRE(ratio.size() == 3);
  // Row 0 is the start: the same number as asking the problem directly.
  CHECK(ratio[0] == doctest::Approx(p->neumann_ratio(p->initial_point(), 0.1, 3)).epsilon(1e-12));
  CHECK(run.header.metric_names.back() == "neumann_ratio");
  spec.solver = "fedbioacc";
  spec.solver_params = {};
  const auto other = testing::run(p, "bilevel-quadratic", params, spec);
  CHECK(std::find(other.header.metric_names.begin(), other.header.metric_names.end(), "neumann_ratio") ==
        other.header.metric_names.end());
}
