// Fair classification: with one client, the objective at y = e_c is class c's mean
// cross-entropy, max_class_loss (computed by a separate loop over the data) is the largest of
// those, the zero model costs log C, and y stays on the simplex after projection.
#include <doctest/doctest.h>

#include "support/run_helpers.hpp"

#include <cmath>

#include "problem/problem_registry.hpp"

using namespace fedbench;

TEST_CASE("fair classification: the objective at a vertex y = e_c is class c's mean loss") {
  const auto p = fedbench::testing::make_minimax("fair-classification",
                              {{"dataset", "heart"}, {"clients", "1"}, {"rho", "0"}, {"scale", "none"},
                               {"test_fraction", "0.25"}, {"partition_seed", "4"}});
  const Index d = 13, C = 2;
  Vec z = Vec::Zero(p->dim());
  for (Index k = 0; k < C * d; ++k) z(k) = 0.01 * static_cast<double>((k * 7) % 11) - 0.05;
  z(C * d) = 0.2;
  const auto split_probe = p->num_samples(0);  // training rows of the one client
  CHECK(split_probe == 270 - 68);  // 25% held out, rounded
  OracleCounts c;
  std::vector<double> class_loss(C);
  for (Index cls = 0; cls < C; ++cls) {
    Vec v = z;
    v.tail(C).setZero();
    v(C * (d + 1) + cls) = 1.0;
    class_loss[cls] = p->value(0, {}, v, c);  // = pi_c^-1 * mean over rows of class cls = F_c
  }
  std::vector<double> m(p->metric_names().size());
  p->metrics(z, m);
  REQUIRE(p->metric_names()[1] == "max_class_loss");
  CHECK(m[1] == doctest::Approx(std::max(class_loss[0], class_loss[1])).epsilon(1e-12));
  // The same F_c from scratch on the client's rows would need the split; instead check that
  // F_c is a mean cross-entropy: positive and log(2) at the zero model.
  Vec zero = Vec::Zero(p->dim());
  zero(C * (d + 1)) = 1.0;
  CHECK(p->value(0, {}, zero, c) == doctest::Approx(std::log(2.0)).epsilon(1e-12));
  Vec y = Vec::Zero(p->dim());
  y.tail(C) << 3.0, -1.0;
  p->project(y);
  CHECK(y.tail(C).sum() == doctest::Approx(1.0));
  CHECK(y.tail(C).minCoeff() >= 0);
}
