// AUC: the rank formula against a brute-force pairwise count; the linear-AUC saddle point
// against the closed form theta* = -M^{-1} Delta / (1 + s) (derived for the linear score from the
// minimax AUC form of Xie et al. 2021, App. B.2; not in the paper) computed with
// Armadillo from the raw data; the identity min_{a,b} max_lambda f = tau(1-tau)(L_sq - 1).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support/run_helpers.hpp"

#include "core/random.hpp"
#include "datasets/registry.hpp"
#include "metrics/auc.hpp"
#include "problem/problem_registry.hpp"
#include "support/probe.hpp"

using namespace fedbench;

TEST_CASE("auc: the rank formula equals the pairwise count, ties counted half") {
  Stream rng(3, "test-auc");
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = 5 + rng.below(60);
    std::vector<double> s(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = static_cast<double>(rng.below(7));  // many ties
      y[i] = rng.bernoulli(0.4) ? 1 : -1;
    }
    y[0] = 1;
    y[1] = -1;
    double pairs = 0, good = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (y[i] > 0 && y[j] < 0) {
          pairs += 1;
          good += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
        }
    CHECK(metrics::exact_auc(s, y) == doctest::Approx(good / pairs).epsilon(1e-14));
  }
  const std::vector<double> bad{1, NAN}, labels{1, -1};
  CHECK(metrics::exact_auc(bad, labels) == 0.0);
}

TEST_CASE("auc: the saddle point is the closed form of the linear-score objective (one client, exact tau)") {
  const auto p = fedbench::testing::make_minimax("auc", {{"dataset", "heart"}, {"clients", "1"}});
  const auto data = datasets::load_data("heart");
  const arma::uword n = data.X.rows, d = data.X.cols;
  const Mat dense = data.X.dense();
  arma::mat W(dense.data(), n, d);
  arma::uvec pos = arma::find(arma::vec(data.labels) > 0), neg = arma::find(arma::vec(data.labels) < 0);
  const arma::mat Wp = W.rows(pos), Wn = W.rows(neg);
  const arma::rowvec mp = arma::mean(Wp, 0), mn = arma::mean(Wn, 0);
  const arma::mat M = arma::cov(Wp, 1) + arma::cov(Wn, 1);  // population covariances
  const arma::vec delta = (mn - mp).t();
  const arma::vec Minv_delta = arma::solve(M, delta);
  const double s = arma::dot(delta, Minv_delta);
  const arma::vec theta = -Minv_delta / (1 + s);
  const Vec z = *p->reference_solution();
  CHECK((z.head(d) - testing::to_eigen(theta)).norm() <= 1e-8 * (1 + arma::norm(theta)));
  CHECK(z(d) == doctest::Approx(arma::dot(theta, mp.t())).epsilon(1e-8));      // a* = theta^T m+
  CHECK(z(d + 1) == doctest::Approx(arma::dot(theta, mn.t())).epsilon(1e-8));  // b* = theta^T m-
  CHECK(z(d + 2) == doctest::Approx(arma::dot(theta, delta)).epsilon(1e-8));   // lambda* = theta^T Delta
  // Identity at any theta: f(theta, a*, b*, lambda*) = tau(1-tau)(L_sq(theta) - 1).
  const double tau = static_cast<double>(pos.n_elem) / static_cast<double>(n);
  Stream rng(5, "test-auc");
  arma::vec t(d);
  for (arma::uword k = 0; k < d; ++k) t(k) = 0.3 * rng.normal();
  const arma::vec hp = Wp * t, hn = Wn * t;
  double lsq = 0;
  for (double a : hp)
    for (double b : hn) lsq += (1 - a + b) * (1 - a + b);
  lsq /= static_cast<double>(hp.n_elem * hn.n_elem);
  Vec v(d + 3);
  v.head(d) = testing::to_eigen(t);
  v(d) = arma::mean(hp);
  v(d + 1) = arma::mean(hn);
  v(d + 2) = arma::mean(hn) - arma::mean(hp);
  CHECK(p->global_value(v) == doctest::Approx(tau * (1 - tau) * (lsq - 1)).epsilon(1e-10));
}

TEST_CASE("auc: clear errors for unusable data") {
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("auc", {{"dataset", "letter"}}),
                    "problem auc: dataset letter has 26 classes; choose one with -p positive_class=K");
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("auc", {{"dataset", "pendigits"}, {"positive_class", "10"}}),
                    "problem auc: positive_class = 10 but pendigits has classes 0..9");
  // A LIBSVM file whose feature index would make the dense operator huge: refused at once,
  // naming the line (before, 10^4 features took 2.4 GB and minutes, 10^5 ended in bad_alloc).
  const std::string wide = (std::filesystem::temp_directory_path() / "fedbench-test-auc-wide.svm").string();
  std::ofstream(wide) << "+1 1:0.5 3:1\n-1 2:0.25 100000:1\n+1 4:1\n";
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("auc", {{"source", "libsvm"}, {"path", wide}, {"clients", "1"}}),
                    (wide + ":2: feature index 100000 gives problem auc 100000 features; it takes at most 2048 "
                            "(its saddle point and constants come from a dense operator of that size); select "
                            "features first").c_str());
  const auto p = fedbench::testing::make_minimax("auc", {{"dataset", "pendigits"}, {"positive_class", "0"}, {"clients", "4"}});
  CHECK(p->metric_names() ==
        std::vector<std::string>{"rel_error", "op_norm", "train_auc", "test_auc", "objective"});
}

TEST_CASE("auc: a LIBSVM path gives the same instance as the registered dataset, and l2 adds l2 w") {
  const ParamMap registered{{"dataset", "heart"}, {"clients", "3"}};
  const ParamMap from_file{{"source", "libsvm"},
                           {"path", testing::dataset_path("libsvm/heart_scale")},
                           {"clients", "3"}};
  const auto a = testing::make_minimax("auc", registered);
  const auto b = testing::make_minimax("auc", from_file);
  REQUIRE(a->dim() == b->dim());
  Stream rng(5, "auc-test");
  Vec z(a->dim());
  for (Index k = 0; k < z.size(); ++k) z(k) = rng.normal();
  Vec fa, fb;
  a->global_op(z, fa);
  b->global_op(z, fb);
  CHECK(fa == fb);  // same rows, labels and partition: the same bits

  ParamMap ridge = registered;
  ridge["l2"] = "0.25";
  const auto c = testing::make_minimax("auc", ridge);
  Vec fc;
  c->global_op(z, fc);
  const Index p = a->dim_x() - 2;  // x = (w, a, b)
  CHECK((fc.head(p) - fa.head(p) - 0.25 * z.head(p)).norm() < 1e-12 * (1 + fa.norm()));
  CHECK(fc.tail(a->dim() - p) == fa.tail(a->dim() - p));
  CHECK(c->global_value(z) - a->global_value(z) == doctest::Approx(0.125 * z.head(p).squaredNorm()));
  // the closed-form saddle point of the regularised problem
  Vec at_star;
  c->global_op(*c->reference_solution(), at_star);
  CHECK(at_star.norm() < 1e-9);
}

TEST_CASE("auc: test_fraction holds out that many rows when the data has no test file") {
  // heart: 270 rows and no test file; 20% held out is 54 rows, the same split on the path form.
  const auto none = testing::make_minimax("auc", {{"dataset", "heart"}, {"clients", "3"}});
  CHECK(none->constants().get(Constant::test_rows, "test") == 0);
  CHECK(none->constants().get(Constant::train_rows, "test") == 270);
  const auto none_names = none->metric_names();
  CHECK(std::find(none_names.begin(), none_names.end(), "test_auc") == none_names.end());

  const auto held = testing::make_minimax("auc", {{"dataset", "heart"}, {"clients", "3"}, {"test_fraction", "0.2"}});
  CHECK(held->constants().get(Constant::test_rows, "test") == 54);
  CHECK(held->constants().get(Constant::train_rows, "test") == 216);
  Index rows = 0;
  for (int i = 0; i < held->num_clients(); ++i) rows += held->num_samples(i);
  CHECK(rows == 216);
  const auto names = held->metric_names();
  CHECK(std::find(names.begin(), names.end(), "test_auc") != names.end());

  const auto file = testing::make_minimax("auc", {{"source", "libsvm"},
                                                  {"path", testing::dataset_path("libsvm/heart_scale")},
                                                  {"clients", "3"}, {"test_fraction", "0.2"}});
  Stream rng(7, "auc-split-test");
  Vec z(held->dim());
  for (Index k = 0; k < z.size(); ++k) z(k) = rng.normal();
  std::vector<double> a(names.size()), b(names.size());
  held->metrics(z, a);
  file->metrics(z, b);
  CHECK(a == b);  // same rows on both sides of the split
}
