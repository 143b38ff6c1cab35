// The affine-operator minimax problems (quadratic game, robust least squares, two-client game):
// every oracle against finite differences of the value, exact
// equilibria against an independent Armadillo solve, constants against Armadillo (LAPACK)
// computed from the definitions, closed forms (RLS, two-client game), and oracle counting.
#include <doctest/doctest.h>

#include "support/run_helpers.hpp"

#include <cmath>

#include "core/random.hpp"
#include "problem/problem_registry.hpp"
#include "support/probe.hpp"

using namespace fedbench;
using namespace fedbench::testing;

namespace {

std::unique_ptr<MinimaxProblem> small(const std::string& name) {
  if (name == "quadratic-game")
    return fedbench::testing::make_minimax(name, {{"clients", "3"}, {"samples", "5"}, {"dim", "4"},
                               {"heterogeneity", "0.5"}});
  if (name == "robust-least-squares")
    return fedbench::testing::make_minimax(name, {{"rows", "12"}, {"features", "3"}, {"clients", "4"}});
  return fedbench::testing::make_minimax(name, {{"delta", "3"}});
}

const char* kProblems[] = {"quadratic-game", "robust-least-squares", "two-client-game"};

Vec random_point(Index d, std::uint64_t seed) {
  Stream rng(seed, "test-point");
  Vec z(d);
  for (Index k = 0; k < d; ++k) z(k) = rng.normal();
  return z;
}


}  // namespace

TEST_CASE("problems: every oracle equals finite differences of its value") {
  for (const char* name : kProblems) {
    CAPTURE(name);
    const auto p = small(name);
    const Vec z = random_point(p->dim(), 3);
    OracleCounts counts;
    for (int i = 0; i < p->num_clients(); ++i) {
      const std::vector<std::vector<Index>> batches{{}, {0}, {p->num_samples(i) - 1, 0, 0}};
      for (const auto& s : batches) {
        Vec op(p->dim()), gx(p->dim_x()), gy(p->dim_y());
        p->op(i, s, z, op, counts);
        const Vec fd = testing::fd_operator(*p, i, s, z, 1e-4);
        CHECK((op - fd).norm() <= 1e-6 * (1 + op.norm()));
        p->grad_x(i, s, z, gx, counts);
        p->grad_y(i, s, z, gy, counts);
        CHECK((gx - op.head(p->dim_x())).norm() <= 1e-12 * (1 + op.norm()));
        CHECK((gy + op.tail(p->dim_y())).norm() <= 1e-12 * (1 + op.norm()));
      }
    }
  }
}

TEST_CASE("problems: a minibatch operator is the mean of its samples, repeats included") {
  for (const char* name : {"quadratic-game", "robust-least-squares"}) {
    CAPTURE(name);
    const auto p = small(name);
    const Vec z = random_point(p->dim(), 5);
    OracleCounts c;
    Vec batch(p->dim()), one(p->dim()), sum = Vec::Zero(p->dim()), full(p->dim());
    const std::vector<Index> s{1, 2, 1};
    p->op(1, s, z, batch, c);
    for (Index j : s) {
      p->op(1, std::vector<Index>{j}, z, one, c);
      sum += one;
    }
    CHECK((batch - sum / 3.0).norm() <= 1e-13 * (1 + batch.norm()));
    // The full batch is the mean over every sample of the client.
    sum.setZero();
    for (Index j = 0; j < p->num_samples(1); ++j) {
      p->op(1, std::vector<Index>{j}, z, one, c);
      sum += one;
    }
    p->op(1, {}, z, full, c);
    CHECK((full - sum / static_cast<double>(p->num_samples(1))).norm() <= 1e-12 * (1 + full.norm()));
  }
}

TEST_CASE("problems: the stored solution solves the probed linear system (Armadillo)") {
  for (const char* name : kProblems) {
    CAPTURE(name);
    const auto p = small(name);
    arma::mat J;
    arma::vec b;
    probe_global(*p, J, b);
    const Vec independent = to_eigen(arma::solve(J, -b));
    const Vec z_star = *p->reference_solution();
    CHECK((z_star - independent).norm() <= 1e-10 * (1 + independent.norm()));
    Vec f;
    p->global_op(z_star, f);
    CHECK(f.norm() <= 1e-10 * (1 + arma::norm(b)));
  }
}

TEST_CASE("problems: quadratic game at the paper's size has the constants of the authors' code") {
  // The authors' code (github.com/isayantan/ProxSkipVIP, numpy seed 1024) gives, for the paper's
  // generator at d = 20, mu ~ 0.439, max_i L_i ~ 0.786,
  // ell_i in [1.05, 1.11], max ell_ij ~ 5.2 (numpy streams differ from ours: same law).
  const auto p = fedbench::testing::make_minimax("quadratic-game", {});
  const Constants& k = p->constants();
  CHECK(k.values().at("mu") == doctest::Approx(0.44).epsilon(0.03));
  CHECK(k.values().at("lipschitz_client_max") == doctest::Approx(0.786).epsilon(0.03));
  CHECK(k.values().at("cocoercivity_client_max") == doctest::Approx(1.11).epsilon(0.05));
  CHECK(k.values().at("cocoercivity_sample_max") == doctest::Approx(5.25).epsilon(0.2));
  CHECK(k.values().at("cocoercivity_sample_max_exact") > k.values().at("cocoercivity_sample_max"));
}

TEST_CASE("problems: constants agree with Armadillo computed from the definitions") {
  for (const char* name : kProblems) {
    CAPTURE(name);
    const auto p = small(name);
    arma::mat J;
    arma::vec b;
    probe_global(*p, J, b);
    double mu_clients = INFINITY, lip_clients = 0, ell_clients = 0, ell_samples = 0;
    for (int i = 0; i < p->num_clients(); ++i) {
      arma::mat Ji;
      probe_affine(*p, i, {}, Ji, b);
      mu_clients = std::min(mu_clients, arma_mu(Ji));
      lip_clients = std::max(lip_clients, arma_lipschitz(Ji));
      ell_clients = std::max(ell_clients, arma_cocoercivity_eig(Ji));
      for (Index j = 0; j < p->num_samples(i); ++j) {
        arma::mat Jij;
        probe_affine(*p, i, {j}, Jij, b);
        ell_samples = std::max(ell_samples, arma_cocoercivity_eig(Jij));
      }
    }
    const Constants& k = p->constants();
    const double tol = 1e-8;
    CHECK(k.values().at("mu_global") == doctest::Approx(arma_mu(J)).epsilon(tol));
    CHECK(k.values().at("mu") ==
          doctest::Approx(mu_clients > 1e-12 ? mu_clients : arma_mu(J)).epsilon(tol));
    CHECK(k.values().at("lipschitz") == doctest::Approx(arma_lipschitz(J)).epsilon(tol));
    CHECK(k.values().at("lipschitz_client_max") == doctest::Approx(lip_clients).epsilon(tol));
    CHECK(k.values().at("cocoercivity") == doctest::Approx(arma_cocoercivity_eig(J)).epsilon(tol));
    CHECK(k.values().at("cocoercivity_client_max") == doctest::Approx(ell_clients).epsilon(1e-6));
    CHECK(k.values().at("cocoercivity_sample_max") == doctest::Approx(ell_samples).epsilon(1e-6));
    if (k.has(Constant::cocoercivity_exact)) {  // 1/lambda_min(sym(J^-1))
      const arma::mat inv = arma::inv(J);
      CHECK(k.values().at("cocoercivity_exact") ==
            doctest::Approx(1.0 / arma_mu(inv)).epsilon(tol));
    }
  }
}

TEST_CASE("problems: robust least squares has the closed-form solution (minimum-norm least squares)") {
  const auto p = fedbench::testing::make_minimax("robust-least-squares",
                              {{"rows", "30"}, {"features", "4"}, {"clients", "5"}, {"lambda", "7"}});
  // Recover A, y0 from the oracle: row k's operator is 2 (a_k r_k, e_k (a_k^T b + 6 y_k - 7 y0_k)).
  const Index s = 4, r = 30;
  arma::mat A(r, s);
  arma::vec y0(r);
  OracleCounts c;
  for (int i = 0; i < 5; ++i)
    for (Index j = 0; j < 6; ++j) {
      const Index k = i * 6 + j;
      Vec z = Vec::Zero(s + r), out(s + r);
      p->op(i, std::vector<Index>{j}, z, out, c);
      y0(k) = -out(s + k) / (2 * 7);
      for (Index l = 0; l < s; ++l) {
        z.setZero();
        z(l) = 1;
        p->op(i, std::vector<Index>{j}, z, out, c);
        A(k, l) = out(s + k) / 2 + 7 * y0(k);
      }
    }
  const arma::vec beta = arma::solve(A, y0);  // least squares (OLS)
  const arma::vec y = (7 * y0 - A * beta) / 6;
  const Vec z_star = *p->reference_solution();
  CHECK((z_star.head(s) - to_eigen(beta)).norm() <= 1e-10 * (1 + arma::norm(beta)));
  CHECK((z_star.tail(r) - to_eigen(y)).norm() <= 1e-10 * (1 + arma::norm(y)));
  // mu = 2 min(lambda_min(A^T A), lambda - 1) / r (the code's value is half of it).
  const double mu = 2 * std::min(arma::eig_sym(A.t() * A).min(), 6.0) / r;
  CHECK(p->constants().values().at("mu") == doctest::Approx(mu).epsilon(1e-10));
  CHECK(p->constants().values().at("mu_code") == doctest::Approx(mu / 2).epsilon(1e-10));
}

TEST_CASE("problems: two-client game has x* = (delta/2, delta/2) and heterogeneity delta^2/2") {
  const auto p = fedbench::testing::make_minimax("two-client-game", {{"delta", "1e6"}});
  const Vec z = *p->reference_solution();
  CHECK(z(0) == doctest::Approx(5e5));
  CHECK(z(1) == doctest::Approx(5e5));
  CHECK(p->constants().values().at("heterogeneity") == doctest::Approx(0.5e12));
  CHECK(p->initial_point() == Vec::Ones(2));
}

TEST_CASE("problems: the problem layer counts every call and every sample") {
  const auto p = small("quadratic-game");
  OracleCounts c;
  Vec z = Vec::Zero(p->dim()), out(p->dim());
  p->op(0, {}, z, out, c);                          // full batch: 5 samples
  p->op(0, std::vector<Index>{1, 1}, z, out, c);    // minibatch of 2
  Vec gx(p->dim_x());
  p->grad_x(2, std::vector<Index>{3}, z, gx, c);    // 1 sample
  p->value(1, {}, z, c);                            // 5 samples
  CHECK(c[OracleKind::grad_x] == 3);
  CHECK(c[OracleKind::grad_y] == 2);
  CHECK(c[OracleKind::value] == 1);
  CHECK(c.samples == 5 + 2 + 1 + 5);
}

TEST_CASE("problems: bad parameters are rejected with the problem's name") {
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("quadratic-game", {{"mu_min", "2"}}),
                    "problem quadratic-game: mu_min = 2 must be below mu_max = 1");
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("robust-least-squares", {{"source", "libsvm"}}),
                    "problem robust-least-squares: source=libsvm needs -p path=FILE");
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("robust-least-squares", {{"rows", "5"}, {"clients", "6"}}),
                    "problem robust-least-squares: 5 rows cannot be split over 6 clients; lower clients");
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("robust-least-squares", {{"lambda", "1"}}),
                    "problem robust-least-squares: lambda = 1 violates 1 < lambda");
}

TEST_CASE("problems: every problem states its exact objective") {
  // `fedbench describe` prints it: scalings, 1/2 factors, averages and regularisers included.
  for (const auto& name : problem_registry().names()) {
    if (name.rfind("test-", 0) == 0) continue;  // the unit tests' own stand-ins
    CAPTURE(name);
    const std::string objective = problem_registry().get(name).objective;
    CHECK(objective.size() > 40);
  }
}
