// The textbook set-ups of the data-backed bilevel problems: hyper-logreg with one scalar
// hyperparameter (a reduction to the per-feature problem with equal entries), explicit splits
// (row ranges in file order, a validation or test file: row counts against the files' own
// counts), and data-hypercleaning's fixed-weight baselines (all weights 1 equals learned weights
// saturated at sigmoid(40) = 1 to the last bit; weight 1 on clean rows only has the closed-form
// value (n_clean / n) log C at W = 0).
#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/random.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

Vec random_y(const BilevelProblem& p, std::uint64_t seed) {
  Stream rng(seed, "test-setups");
  Vec y(p.dim_y());
  for (Index k = 0; k < p.dim_y(); ++k) y(k) = 0.3 * rng.normal();
  return y;
}

Vec with_x(const BilevelProblem& p, double x, const Vec& y) {
  Vec z(p.dim());
  z.head(p.dim_x()).setConstant(x);
  z.tail(p.dim_y()) = y;
  return z;
}

double constant(const BilevelProblem& p, Constant c) { return p.constants().get(c, "test"); }

}  // namespace

TEST_CASE("bilevel hyper-logreg: a scalar hyperparameter equals the per-feature one with equal entries") {
  const ParamMap base = {{"dataset", "heart"}, {"clients", "2"}};
  ParamMap scalar_params = base;
  scalar_params["hyperparameter"] = "scalar";
  const auto per_feature = testing::bilevel_problem("hyper-logreg", base);
  const auto scalar = testing::bilevel_problem("hyper-logreg", scalar_params);
  REQUIRE(scalar->dim_x() == 1);
  REQUIRE(scalar->dim_y() == per_feature->dim_y());
  const Vec y = random_y(*scalar, 3), v = random_y(*scalar, 4);
  const Vec zs = with_x(*scalar, 0.7, y), zp = with_x(*per_feature, 0.7, y);
  OracleCounts c;
  for (int i = 0; i < scalar->num_clients(); ++i) {
    CAPTURE(i);
    // Same arithmetic in the same order: the same bits.
    CHECK(scalar->lower_value(i, {}, zs, c) == per_feature->lower_value(i, {}, zp, c));
    Vec gs, gp;
    scalar->lower_grad_y(i, {}, zs, gs, c);
    per_feature->lower_grad_y(i, {}, zp, gp, c);
    CHECK(gs == gp);
    scalar->lower_hvp(i, {}, zs, v, gs, c);
    per_feature->lower_hvp(i, {}, zp, v, gp, c);
    CHECK(gs == gp);
    // d/dx of R(x 1) is the sum of the per-feature partial derivatives (chain rule).
    scalar->lower_grad_x(i, {}, zs, gs, c);
    per_feature->lower_grad_x(i, {}, zp, gp, c);
    CHECK(gs(0) == doctest::Approx(gp.sum()).epsilon(1e-13));
    scalar->lower_jvp(i, {}, zs, v, gs, c);
    per_feature->lower_jvp(i, {}, zp, v, gp, c);
    CHECK(gs(0) == doctest::Approx(gp.sum()).epsilon(1e-13));
  }
}

TEST_CASE("bilevel hyper-logreg: explicit splits take the rows they name") {
  // letter ships train (15000), test (5000) and validation (4500) files.
  const auto ranges = testing::bilevel_problem(
      "hyper-logreg", {{"dataset", "satimage"}, {"ranges", "train=0:3000,validation=3000:4000,test=4000:4435"}});
  CHECK(constant(*ranges, Constant::train_rows) == 3000);
  CHECK(constant(*ranges, Constant::validation_rows) == 1000);

  const auto files = testing::bilevel_problem(
      "hyper-logreg", {{"dataset", "letter"}, {"validation_file", "validation"}, {"test_file", "test"}});
  CHECK(constant(*files, Constant::train_rows) == 15000);  // every row of the main file
  CHECK(constant(*files, Constant::validation_rows) == 4500);

  // A validation file with a seeded test fraction: the rest of the main file is all training.
  const auto mixed = testing::bilevel_problem(
      "hyper-logreg", {{"dataset", "letter"}, {"validation_file", "validation"}, {"test_fraction", "0.2"}});
  CHECK(constant(*mixed, Constant::train_rows) == 12000);
  CHECK(constant(*mixed, Constant::validation_rows) == 4500);

  // The same validation file by path gives the same rows.
  const auto by_path = testing::bilevel_problem(
      "hyper-logreg", {{"dataset", "letter"}, {"validation_file", "../shared/datasets/libsvm/letter.scale.val"},
                       {"test_fraction", "0.2"}});
  OracleCounts c;
  const Vec z = with_x(*mixed, 0.0, random_y(*mixed, 5));
  CHECK(by_path->upper_value(0, {}, z, c) == mixed->upper_value(0, {}, z, c));
}

TEST_CASE("bilevel hyper-logreg: bad explicit splits are user errors that name the fix") {
  using testing::bilevel_problem;
  CHECK_THROWS_WITH_AS(bilevel_problem("hyper-logreg", {{"dataset", "heart"}, {"ranges", "train=0:100,validation=50:150"}}),
                       doctest::Contains("ranges overlap at row 50"), UserError);
  CHECK_THROWS_WITH_AS(bilevel_problem("hyper-logreg", {{"dataset", "heart"}, {"ranges", "train=0:100,validation=100:300"}}),
                       doctest::Contains("<= 270 (the file's rows)"), UserError);
  CHECK_THROWS_WITH_AS(bilevel_problem("hyper-logreg", {{"dataset", "heart"}, {"ranges", "train=0:100"}}),
                       doctest::Contains("ranges need train=A:B and validation=C:D"), UserError);
  CHECK_THROWS_WITH_AS(bilevel_problem("hyper-logreg", {{"dataset", "heart"}, {"ranges", "training=0:100"}}),
                       doctest::Contains("use train, validation or test"), UserError);
  CHECK_THROWS_WITH_AS(bilevel_problem("hyper-logreg", {{"dataset", "heart"}, {"ranges", "train=0:100,validation=100:200"},
                                                        {"rows", "200"}}),
                       doctest::Contains("drop rows"), UserError);
  CHECK_THROWS_WITH_AS(bilevel_problem("hyper-logreg", {{"dataset", "heart"}, {"validation_file", "nowhere.txt"}}),
                       doctest::Contains("neither a file of dataset heart"), UserError);
}

TEST_CASE("bilevel data-hypercleaning: the fixed-weight baselines") {
  const ParamMap base = {{"dataset", "satimage"}, {"rows", "300"}, {"clients", "1"}, {"corruption", "0.4"}};
  ParamMap ones_params = base, clean_params = base;
  ones_params["weights"] = "ones";
  clean_params["weights"] = "clean";
  const auto learned = testing::bilevel_problem("data-hypercleaning", base);
  const auto ones = testing::bilevel_problem("data-hypercleaning", ones_params);
  const auto clean = testing::bilevel_problem("data-hypercleaning", clean_params);
  const Vec y = random_y(*learned, 7), v = random_y(*learned, 8);
  OracleCounts c;

  // All weights 1 = learned weights at x = 40 (sigmoid(40) rounds to 1), whatever x the
  // fixed-weight problem is given; grad_x and the mixed product vanish.
  const Vec saturated = with_x(*learned, 40.0, y), any = with_x(*ones, -3.0, y);
  CHECK(ones->lower_value(0, {}, any, c) == learned->lower_value(0, {}, saturated, c));
  Vec a, b;
  ones->lower_grad_y(0, {}, any, a, c);
  learned->lower_grad_y(0, {}, saturated, b, c);
  CHECK(a == b);
  ones->lower_hvp(0, {}, any, v, a, c);
  learned->lower_hvp(0, {}, saturated, v, b, c);
  CHECK(a == b);
  ones->lower_grad_x(0, {}, any, a, c);
  CHECK(a.isZero(0));
  clean->lower_jvp(0, {}, any, v, a, c);
  CHECK(a.isZero(0));

  // At W = 0 every row's cross-entropy is log C: weights on the clean rows only give
  // (n_clean / n) log C, all weights 1 give log C.
  const Vec w0 = with_x(*clean, 0.0, Vec::Zero(clean->dim_y()));
  const double n = constant(*clean, Constant::train_rows), corrupted = constant(*clean, Constant::corrupted_rows);
  REQUIRE(corrupted > 0);
  CHECK(clean->lower_value(0, {}, w0, c) == doctest::Approx((n - corrupted) / n * std::log(6.0)).epsilon(1e-14));
  CHECK(ones->lower_value(0, {}, w0, c) == doctest::Approx(std::log(6.0)).epsilon(1e-14));
  CHECK(n + constant(*clean, Constant::validation_rows) == 300);
}
