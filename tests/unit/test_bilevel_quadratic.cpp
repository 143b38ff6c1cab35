// The bilevel problem interface on bilevel-quadratic: every counted oracle against finite
// differences of the value oracles, the counting by kind, and the exact reference (Newton-CG
// y*(x), implicit-function hypergradient by CG) against central differences of
// F(x) = f(x, y*(x)) and against the problem's own closed form.
#include <doctest/doctest.h>

#include <cmath>

#include "core/random.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {
const ParamMap kSmall{{"clients", "3"}, {"samples", "4"}, {"dim_x", "3"}, {"dim_y", "4"}};

std::shared_ptr<const BilevelProblem> quad() {
  static auto p = fedbench::testing::bilevel_problem("bilevel-quadratic", kSmall);
  return p;
}

Vec random_point(Index d, std::uint64_t seed) {
  Stream s(seed, "test-point");
  Vec z(d);
  for (Index k = 0; k < d; ++k) z(k) = s.normal();
  return z;
}

//! Central difference of value(z) along unit vector k of the block starting at `offset`.
template <class Value>
Vec fd_gradient(Value&& value, const Vec& z, Index offset, Index size, double h = 1e-5) {
  Vec g(size);
  for (Index k = 0; k < size; ++k) {
    Vec a = z, b = z;
    a(offset + k) += h;
    b(offset + k) -= h;
    g(k) = (value(a) - value(b)) / (2 * h);
  }
  return g;
}
}  // namespace

TEST_CASE("bilevel: quadratic oracles equal finite differences, on minibatches too") {
  const auto& p = *quad();
  const Index dx = p.dim_x(), dy = p.dim_y();
  const Vec z = random_point(p.dim(), 1);
  OracleCounts counts;
  for (const std::vector<Index>& s : {std::vector<Index>{}, std::vector<Index>{2, 0, 2}}) {
    for (int i = 0; i < p.num_clients(); ++i) {
      CAPTURE(i);
      const auto f = [&](const Vec& w) { return p.upper_value(i, s, w, counts); };
      const auto g = [&](const Vec& w) { return p.lower_value(i, s, w, counts); };
      Vec out;
      p.upper_grad_x(i, s, z, out, counts);
      CHECK((out - fd_gradient(f, z, 0, dx)).norm() < 1e-7 * (1 + out.norm()));
      p.upper_grad_y(i, s, z, out, counts);
      CHECK((out - fd_gradient(f, z, dx, dy)).norm() < 1e-7 * (1 + out.norm()));
      p.lower_grad_x(i, s, z, out, counts);
      CHECK((out - fd_gradient(g, z, 0, dx)).norm() < 1e-7 * (1 + out.norm()));
      p.lower_grad_y(i, s, z, out, counts);
      CHECK((out - fd_gradient(g, z, dx, dy)).norm() < 1e-7 * (1 + out.norm()));
      // HVP: directional derivative of grad_y g along (0, v); JVP: of grad_x g along (0, v)
      // (grad^2_xy g v = d/dt grad_x g(x, y + t v), the mixed block applied to v).
      const Vec v = random_point(dy, 2 + i);
      Vec up = z, down = z, gu, gd, hv, jv;
      up.tail(dy) += 1e-5 * v;
      down.tail(dy) -= 1e-5 * v;
      p.lower_hvp(i, s, z, v, hv, counts);
      p.lower_grad_y(i, s, up, gu, counts);
      p.lower_grad_y(i, s, down, gd, counts);
      CHECK((hv - (gu - gd) / 2e-5).norm() < 1e-7 * (1 + hv.norm()));
      p.lower_jvp(i, s, z, v, jv, counts);
      p.lower_grad_x(i, s, up, gu, counts);
      p.lower_grad_x(i, s, down, gd, counts);
      CHECK((jv - (gu - gd) / 2e-5).norm() < 1e-7 * (1 + jv.norm()));
    }
  }
  // Counting by kind: one hvp and one jvp per client and batch choice; samples per batch.
  CHECK(counts[OracleKind::hvp] == 2 * p.num_clients());
  CHECK(counts[OracleKind::jvp] == 2 * p.num_clients());
}

TEST_CASE("bilevel: exact hypergradient equals differences of F(x) = f(x, y*(x)) and the closed form") {
  const auto& p = *quad();
  const Index dx = p.dim_x(), dy = p.dim_y();
  const Vec x = random_point(dx, 5);
  const Vec y_star = p.lower_solution(x, Vec::Zero(dy));
  // y*(x) solves the averaged lower level: its gradient in y vanishes.
  Vec z(p.dim());
  z << x, y_star;
  Vec grad = Vec::Zero(dy), tmp;
  OracleCounts scratch;
  for (int i = 0; i < p.num_clients(); ++i) {
    p.lower_grad_y(i, {}, z, tmp, scratch);
    grad += tmp / p.num_clients();
  }
  CHECK(grad.norm() < 1e-11);
  const auto F = [&](const Vec& xs) {
    Vec w(p.dim());
    w << xs, p.lower_solution(xs, y_star);
    return p.global_upper_value(w);
  };
  const Vec hyper = p.hypergradient(x, y_star);
  const Vec fd = fd_gradient(F, x, 0, dx);
  CHECK((hyper - fd).norm() < 1e-6 * (1 + hyper.norm()));
  CHECK(hyper.norm() > 0.1);  // not at the solution: the comparison is not vacuous
  // The reference solution is stationary for F and the metrics say so.
  const Vec z_star = *p.reference_solution();
  const Vec x_star = z_star.head(dx);
  CHECK(p.hypergradient(x_star, p.lower_solution(x_star, Vec::Zero(dy))).norm() < 1e-10);
  const auto names = p.metric_names();
  std::vector<double> m(names.size());
  p.metrics(z_star, m);
  for (std::size_t k = 0; k < names.size(); ++k) {
    CAPTURE(names[k]);
    if (names[k] == "hypergrad_norm" || names[k] == "lower_gap" || names[k] == "rel_error")
      CHECK(std::abs(m[k]) < 1e-10);
  }
  CHECK(p.primary_metric() == "hypergrad_norm");
}

TEST_CASE("bilevel: minimax solvers refuse bilevel problems with a one-line error") {
  RunRequest req;
  req.problem = "bilevel-quadratic";
  req.solver = "gda";
  CHECK_THROWS_WITH_AS(prepare_run(req),
                       "solver gda needs a minimax problem, but bilevel-quadratic is bilevel; see "
                       "the kinds in `fedbench list problems`",
                       UserError);
}

TEST_CASE("bilevel: quadratic's x0 and y0 set the initial point; the defaults keep the old instance") {
  const auto& base = *quad();
  const Index dx = base.dim_x(), dy = base.dim_y();
  ParamMap moved = kSmall;
  moved["x0"] = "0.5";
  moved["y0"] = "-0.75";
  const auto shifted = fedbench::testing::bilevel_problem("bilevel-quadratic", moved);
  const Vec z0 = shifted->initial_point();
  REQUIRE(z0.size() == dx + dy);
  CHECK(z0.head(dx) == Vec::Constant(dx, 0.5));
  CHECK(z0.tail(dy) == Vec::Constant(dy, -0.75));
  CHECK(base.initial_point() == Vec::Zero(dx + dy));
  // The starting point leaves the data alone: every oracle agrees bit for bit.
  const Vec z = random_point(base.dim(), 3);
  OracleCounts counts;
  for (int i = 0; i < base.num_clients(); ++i) {
    Vec a, b;
    base.lower_grad_y(i, {}, z, a, counts);
    shifted->lower_grad_y(i, {}, z, b, counts);
    CHECK(a == b);
    base.upper_grad_x(i, {}, z, a, counts);
    shifted->upper_grad_x(i, {}, z, b, counts);
    CHECK(a == b);
    base.upper_grad_y(i, {}, z, a, counts);
    shifted->upper_grad_y(i, {}, z, b, counts);
    CHECK(a == b);
  }
  CHECK(*shifted->reference_solution() == *base.reference_solution());
  // An explicit y0 = 0 is the default instance.
  ParamMap zero = kSmall;
  zero["y0"] = "0";
  CHECK(fedbench::testing::bilevel_problem("bilevel-quadratic", zero)->initial_point() ==
        base.initial_point());
}
