// A settable starting x for the bilevel problems: every entry of x starts at x0, y at 0, and
// hyper-logreg's start-dependent constants follow (its regulariser weight is exp(x0)).
#include <doctest/doctest.h>

#include <cmath>

#include "support/run_helpers.hpp"

using namespace fedbench;

TEST_CASE("bilevel: x0 sets every entry of the starting x, y starts at 0") {
  const std::vector<std::pair<std::string, ParamMap>> problems = {
      {"bilevel-quadratic", {{"x0", "0.5"}}},
      {"hyper-logreg", {{"dataset", "mushrooms"}, {"x0", "0.5"}}},
      {"data-hypercleaning", {{"rows", "400"}, {"x0", "0.5"}}},
  };
  for (const auto& entry : problems) {
    const auto& name = entry.first;  // not a structured binding: CAPTURE is a lambda (clang 14)
    const auto& params = entry.second;
    CAPTURE(name);
    const auto p = testing::bilevel_problem(name, params);
    const Vec z0 = p->initial_point();
    CHECK((z0.head(p->dim_x()).array() == 0.5).all());
    CHECK((z0.tail(p->dim_y()).array() == 0.0).all());
    ParamMap at_zero = params;
    at_zero.erase("x0");
    CHECK(testing::bilevel_problem(name, at_zero)->initial_point().isZero(0));
  }
}

TEST_CASE("bilevel: hyper-logreg's mu_g at the start scales with exp(x0)") {
  const auto zero = testing::bilevel_problem("hyper-logreg", {{"dataset", "mushrooms"}});
  const auto half = testing::bilevel_problem("hyper-logreg", {{"dataset", "mushrooms"}, {"x0", "0.5"}});
  const double mu0 = zero->constants().get(Constant::mu_g, "test");
  CHECK(half->constants().get(Constant::mu_g, "test") == doctest::Approx(mu0 * std::exp(0.5)).epsilon(1e-14));
  // the smoothness bound grows by the same regulariser increment
  CHECK(half->constants().get(Constant::lipschitz_g_client_max, "test") -
            zero->constants().get(Constant::lipschitz_g_client_max, "test") ==
        doctest::Approx(mu0 * (std::exp(0.5) - 1)).epsilon(1e-10));
}
