// The WGAN and matrix-game problems: finite-difference oracles, the WGAN's closed-form saddle
// point and best response (derived for the problem of Shen et al. 2024, Section 4.1), the matrix
// game's gap as the supremum it is, the server projection, and Local SGDA, ProxSkip and every
// registered minimax solver running on every registered minimax problem.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/random.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"
#include "support/probe.hpp"
#include <armadillo>
#include "support/run_helpers.hpp"

using namespace fedbench;

TEST_CASE("nonlinear problems: oracles equal finite differences of the value") {
  const std::vector<std::pair<std::string, ParamMap>> cases{
      {"wgan-gaussian", {{"clients", "3"}, {"samples", "20"}}},
      {"wgan-gaussian", {{"clients", "3"}, {"samples", "20"}, {"paired", "false"}}},
      {"matrix-game", {{"clients", "3"}, {"dim", "4"}, {"weights", "entry"}, {"identical_clients", "false"}}},
      {"auc", {{"dataset", "heart"}, {"clients", "3"}, {"partition", "dirichlet:1"}}},
      {"fair-classification", {{"dataset", "heart"}, {"clients", "3"}, {"regularizer", "nonconvex"}, {"rho", "0.1"}}},
      {"fair-classification", {{"dataset", "heart"}, {"clients", "3"}, {"rho", "0.1"}}},
      {"robust-training", {{"dataset", "heart"}, {"clients", "3"}, {"lambda", "0.5"}}},
      {"two-sided-pl", {{"clients", "3"}, {"heterogeneity", "0.7"}}},
      {"nc-sc-quadratic", {{"clients", "3"}, {"dim", "3"}}},
      {"robust-training", {{"dataset", "heart"}, {"clients", "3"}, {"hidden", "4,3"}, {"pixels", "raw"}}},
      {"robust-training", {{"dataset", "heart"}, {"clients", "3"}, {"rows", "100"}}}};
  for (const auto& entry : cases) {
    const auto& name = entry.first;  // not a structured binding: CAPTURE is a lambda (clang 14)
    const auto& params = entry.second;
    CAPTURE(name);
    const auto p = fedbench::testing::make_minimax(name, params);
    Stream rng(9, "test");
    Vec z(p->dim());
    for (Index k = 0; k < z.size(); ++k) z(k) = 0.5 * rng.normal();
    OracleCounts c;
    for (int i = 0; i < p->num_clients(); ++i)
      for (const auto& s : std::vector<std::vector<Index>>{{}, {0}, {p->num_samples(i) - 1, 0}}) {
        Vec op(p->dim());
        p->op(i, s, z, op, c);
        CHECK((op - testing::fd_operator(*p, i, s, z, 1e-6)).norm() <= 1e-6 * (1 + op.norm()));
      }
  }
}

TEST_CASE("wgan: (mu_real, sigma_real, 0, 0) is a saddle point of every client and minibatch") {
  const auto p = fedbench::testing::make_minimax("wgan-gaussian", {{"clients", "4"}, {"samples", "50"}, {"lambda", "0.01"}});
  const Vec star = *p->reference_solution();
  OracleCounts c;
  Vec op(4);
  for (int i = 0; i < 4; ++i)
    for (const auto& s : std::vector<std::vector<Index>>{{}, {3, 7}}) {
      p->op(i, s, star, op, c);
      CHECK(op.norm() <= 1e-15);
    }
  // Phi(mu, sigma) = max_phi f = (A^2 + B^2)/(4 lambda): the metric equals f at the best
  // response phi* = (A, B)/(2 lambda), found here by solving grad_phi f = 0 from the oracle.
  Vec z(4);
  z << 0.3, 0.7, 0, 0;
  Vec g;
  p->global_op(z, g);  // at phi = 0: -grad_phi f = -(A, B)
  z(2) = -g(2) / (2 * 0.01);
  z(3) = -g(3) / (2 * 0.01);
  std::vector<double> m(p->metric_names().size());
  p->metrics(z, m);
  CHECK(m[3] == doctest::Approx(p->global_value(z)).epsilon(1e-10));  // rel_error, op_norm, param_error, phi
  CHECK(m[2] == doctest::Approx(0.09 + 0.36));
}

TEST_CASE("matrix game: the gap bounds every unilateral deviation and projection keeps simplices") {
  const auto p = fedbench::testing::make_minimax("matrix-game", {{"clients", "5"}, {"dim", "6"}});
  Stream rng(4, "test");
  auto random_simplex = [&rng](Index d) {
    Vec v(d);
    for (Index k = 0; k < d; ++k) v(k) = -std::log(rng.uniform_open0());
    return Vec(v / v.sum());
  };
  for (int trial = 0; trial < 20; ++trial) {
    Vec z(12);
    z << random_simplex(6), random_simplex(6);
    std::vector<double> m(p->metric_names().size());
    p->metrics(z, m);
    const double gap = m.back();
    CHECK(gap >= 0);
    for (int k = 0; k < 50; ++k) {  // f(x, y') - f(x', y) <= gap for feasible x', y'
      Vec dev = z;
      dev.head(6) = random_simplex(6);
      const double lower = p->global_value(dev);
      dev = z;
      dev.tail(6) = random_simplex(6);
      CHECK(p->global_value(dev) - lower <= gap + 1e-12);
    }
  }
  Vec outside(12);
  for (Index k = 0; k < 12; ++k) outside(k) = rng.normal();
  p->project(outside);
  CHECK(outside.head(6).sum() == doctest::Approx(1.0));
  CHECK(outside.tail(6).sum() == doctest::Approx(1.0));
  CHECK(outside.minCoeff() >= 0);
  CHECK(p->primary_metric() == "duality_gap");
}

TEST_CASE("every registered problem runs every solver, local-sgda and proxskip-vip-fl make no blow-up") {
  const std::map<std::string, ParamMap> small{
      {"quadratic-game", {{"clients", "3"}, {"samples", "4"}, {"dim", "2"}}},
      {"robust-least-squares", {{"rows", "20"}, {"features", "3"}, {"clients", "4"}}},
      {"two-client-game", {}},
      {"wgan-gaussian", {{"clients", "3"}, {"samples", "30"}}},
      {"matrix-game", {{"clients", "3"}, {"dim", "4"}}},
      {"auc", {{"dataset", "heart"}, {"clients", "3"}}},
      {"fair-classification", {{"dataset", "heart"}, {"clients", "3"}}},
      {"robust-training", {{"dataset", "heart"}, {"clients", "3"}, {"hidden", "5"}, {"eval_rows", "50"}}},
      {"two-sided-pl", {{"clients", "3"}, {"heterogeneity", "0.5"}}},
      {"nc-sc-quadratic", {{"clients", "3"}, {"dim", "3"}}}};
  for (const auto& name : problem_registry().names()) {
    if (name.rfind("test-", 0) == 0) continue;  // test-only problems
    if (problem_registry().get(name).family != "minimax") continue;
    CAPTURE(name);
    // A problem without an entry runs at its defaults (an entry keeps a large default small).
    const ParamMap instance = small.count(name) ? small.at(name) : ParamMap{};
    auto p = testing::problem(name, instance);
    for (const auto& solver_entry : std::vector<std::pair<std::string, ParamMap>>{
             {"local-sgda", {{"step_size", "0.01"}, {"schedule", "constant"}, {"local_steps", "3"}}},
             {"proxskip-vip-fl", {{"step_size", "0.01"}, {"comm_prob", "0.3"}, {"batch_size", "1"}}}}) {
      const auto& solver = solver_entry.first;  // not a structured binding: CAPTURE is a lambda (clang 14)
      const auto& solver_params = solver_entry.second;
      CAPTURE(solver);
      const auto t = testing::run(p, name, instance, {solver, solver_params, 30});
      CHECK(t.summary.status() == "ok");
      for (double v : t.rows.back().metrics) CHECK(std::isfinite(v));
      const auto first = t.rows.front().metrics, last = t.rows.back().metrics;
      CHECK(last[0] <= first[0] * 1.5);  // no blow-up
    }
    // Every registered solver runs on it too: theory parameters (which need constants that
    // not every problem declares) replaced by small explicit values, few local steps.
    for (const auto& solver : solver_registry().names()) {
      if (solver_registry().get(solver).family != "minimax") continue;
      CAPTURE(solver);
      ParamMap params;
      const auto& entry = solver_registry().get(solver);
      for (const auto& spec : entry.params) {
        if (spec.name == "local_steps") params[spec.name] = "3";
        if (spec.name == "schedule") params[spec.name] = "constant";
        if (entry.default_of(spec) != "theory") continue;
        params[spec.name] = spec.name.find("prob") != std::string::npos ? "0.3" : "0.01";
      }
      const auto t = testing::run(p, name, instance, {solver, params, 8});
      CHECK(t.summary.status() == "ok");
      for (double v : t.rows.back().metrics) CHECK(std::isfinite(v));
    }
  }
}

TEST_CASE("nc-sc quadratic: Phi's curvature and mu_y against Armadillo, no monotone theory") {
  const auto p = fedbench::testing::make_minimax("nc-sc-quadratic", {{"clients", "4"}, {"dim", "5"}, {"a_min", "-1"}});
  arma::mat J;
  arma::vec b;
  testing::probe_global(*p, J, b);
  const arma::mat A = J.submat(0, 0, 4, 4), B = J.submat(0, 5, 4, 9), C = J.submat(5, 5, 9, 9);
  CHECK(arma::eig_sym(0.5 * (A + A.t())).min() < 0);  // nonconvex in x
  const arma::mat H = A + B * arma::solve(C, B.t());
  const auto& k = p->constants().values();
  CHECK(k.at("phi_mu") == doctest::Approx(arma::eig_sym(0.5 * (H + H.t())).min()).epsilon(1e-9));
  CHECK(k.at("phi_mu") > 0);
  CHECK(k.at("mu_y") == doctest::Approx(arma::eig_sym(0.5 * (C + C.t())).min()).epsilon(1e-9));
  CHECK(k.count("mu") == (k.at("mu_global") > 0 ? 1u : 0u));
  Vec f;
  p->global_op(*p->reference_solution(), f);
  CHECK(f.norm() < 1e-10);
  if (!k.count("mu"))
    CHECK_THROWS_WITH(testing::run(testing::problem("nc-sc-quadratic", {{"clients", "4"}, {"dim", "5"}, {"a_min", "-1"}}),
                                   "nc-sc-quadratic", {{"clients", "4"}, {"dim", "5"}, {"a_min", "-1"}},
                                   {"proxskip-gda-fl", {}, 5}),
                      doctest::Contains("needs the problem constant"));
}

TEST_CASE("two-sided PL: the saddle point (0, 0) is stationary for the average, not per client") {
  const auto p = fedbench::testing::make_minimax("two-sided-pl", {{"clients", "3"}, {"heterogeneity", "1"}});
  Vec f;
  p->global_op(Vec::Zero(2), f);
  CHECK(f.norm() <= 1e-15);
  OracleCounts c;
  Vec fi(2);
  p->op(0, {}, Vec::Zero(2), fi, c);
  CHECK(fi.norm() > 1e-3);  // heterogeneous clients
}

TEST_CASE("robust training: rows keeps that many training rows, the test set whole") {
  // heart: 270 rows, a seeded 20% test split (54 rows), then 100 of the 216 training rows.
  const auto p = fedbench::testing::make_minimax("robust-training", {{"dataset", "heart"}, {"clients", "4"}, {"rows", "100"}});
  CHECK(p->constants().get(Constant::train_rows, "test") == 100);
  CHECK(p->constants().get(Constant::test_rows, "test") == 54);
  Index held = 0;
  for (int i = 0; i < p->num_clients(); ++i) held += p->num_samples(i);
  CHECK(held == 100);
  CHECK_THROWS_WITH_AS(fedbench::testing::make_minimax("robust-training", {{"dataset", "heart"}, {"rows", "500"}}),
                       doctest::Contains("lower rows"), UserError);
}

TEST_CASE("robust training: the MLP starts as PyTorch's nn.Linear does, or with He's normal weights") {
  // heart has 13 features and 2 classes: layers 13 -> 300 -> 200 -> 2.
  const ParamMap base{{"dataset", "heart"}, {"clients", "2"}, {"hidden", "300,200"}};
  const std::vector<Index> widths{13, 300, 200, 2};
  auto check_layers = [&](const Vec& x0, bool pytorch) {
    Index at = 0;
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      const double fan_in = static_cast<double>(widths[l]), bound = 1 / std::sqrt(fan_in);
      const Vec W = x0.segment(at, widths[l + 1] * widths[l]);
      const Vec b = x0.segment(at + W.size(), widths[l + 1]);
      at += W.size() + b.size();
      const double var = W.squaredNorm() / static_cast<double>(W.size());
      if (pytorch) {  // U(-bound, bound): variance bound^2 / 3
        CHECK(W.cwiseAbs().maxCoeff() <= bound);
        CHECK(b.cwiseAbs().maxCoeff() <= bound);
        CHECK(b.cwiseAbs().maxCoeff() > 0.5 * bound);
        if (W.size() > 10000) CHECK(var == doctest::Approx(bound * bound / 3).epsilon(0.03));
      } else {  // N(0, 2 / fan_in), zero biases
        CHECK(b.isZero(0));
        if (W.size() > 10000) CHECK(var == doctest::Approx(2 / fan_in).epsilon(0.03));
      }
    }
    CHECK(at == x0.size() - 13);      // then y, the perturbation, which starts at 0
    CHECK(x0.tail(13).isZero(0));
  };
  check_layers(testing::make_minimax("robust-training", base)->initial_point(), true);
  ParamMap he = base;
  he["init"] = "he";
  check_layers(testing::make_minimax("robust-training", he)->initial_point(), false);
  ParamMap linear = base;
  linear["hidden"] = "";
  CHECK(testing::make_minimax("robust-training", linear)->initial_point().isZero(0));
}
