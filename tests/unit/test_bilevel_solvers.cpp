// Bilevel solvers on bilevel-quadratic: the Neumann estimator's bias against its bound and its
// expectation over k, each solver's progress on ||grad F|| (the exact hypergradient, never the
// solver's estimate), communication and second-order counts per round, thread independence.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "solvers/common/adaptive_matrix.hpp"
#include "solvers/common/neumann_hypergradient.hpp"
#include "core/text.hpp"
#include "engine/runner.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;
using fedbench::testing::RunSpec;

namespace {
const ParamMap kQuad{{"clients", "4"}, {"samples", "6"}, {"dim_x", "3"}, {"dim_y", "4"}};
const Index kDx = 3, kDy = 4;
const ParamMap kNestSteps{{"theta", "0.2"}, {"neumann_terms", "20"}, {"gamma_in", "0.1"}, {"gamma_out", "0.1"}};
const ParamMap kAdaSteps{{"theta", "0.2"}, {"neumann_terms", "20"}, {"gamma", "0.1"}, {"lambda", "0.5"}};

std::shared_ptr<const BilevelProblem> quad(const ParamMap& params = kQuad) {
  return fedbench::testing::bilevel_problem("bilevel-quadratic", params);
}
MemoryTrajectory run_quad(const RunSpec& spec) {
  static auto q = quad();
  return fedbench::testing::run(q, "bilevel-quadratic", kQuad, spec);
}
double metric(const MemoryTrajectory& t, const BilevelProblem& p, const std::string& name,
              bool last = true) {
  const auto names = p.metric_names();
  const auto k = static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  REQUIRE(k < names.size());
  return (last ? t.rows.back() : t.rows.front()).metrics[k];
}
}  // namespace

TEST_CASE("bilevel: Neumann hypergradient bias is within ||J|| (1 - theta mu)^K ||grad_y f|| / mu") {
  // One client, so its Hessians are the global ones and the only error is the truncation.
  const ParamMap one{{"clients", "1"}, {"samples", "5"}, {"dim_x", "3"}, {"dim_y", "4"}};
  const auto p = quad(one);
  const Vec x = Vec::LinSpaced(kDx, -1, 1);
  const Vec y_star = p->lower_solution(x, Vec::Zero(kDy));
  Vec z(p->dim());
  z << x, y_star;
  const Vec exact = p->hypergradient(x, y_star);
  const double mu = p->constants().get(Constant::mu_g, "test"), L = p->constants().get(Constant::lipschitz_g_client_max, "test");
  const double J = p->constants().get(Constant::cross_lipschitz_g, "test");
  OracleCounts counts;
  BilevelOracle oracle(*p, 0, counts, 1);
  Vec fy;
  oracle.upper_grad_y({}, z, fy);
  const double theta = 1 / L;
  double previous = INFINITY;
  for (int K : {2, 5, 10, 20}) {
    CAPTURE(K);
    solvers::NeumannHypergradient det({K, theta, false, 0, 0});
    Stream coins(1, "test");
    det.draw(oracle, coins);
    Vec hg;
    det.evaluate(oracle, z, hg);
    const double bias = (hg - exact).norm();
    CHECK(bias <= J * std::pow(1 - theta * mu, K) * fy.norm() / mu * (1 + 1e-12));
    CHECK(bias < previous);  // geometric decay in K
    previous = bias;
    // The randomized estimator with k ~ U{0..K-1} has the deterministic sum as its mean.
    solvers::NeumannHypergradient rnd({K, theta, true, 0, 0});
    rnd.draw(oracle, coins);
    Vec mean = Vec::Zero(kDx), one_k;
    for (int k = 0; k < K; ++k) {
      rnd.set_k(k);
      rnd.evaluate(oracle, z, one_k);
      mean += one_k / K;
    }
    CHECK((mean - hg).norm() < 1e-12 * (1 + hg.norm()));
  }
  CHECK(previous > 0);
}

TEST_CASE("bilevel: every solver decreases ||grad F|| on the quadratic, full participation") {
  const auto p = quad();
  // Stated factors after 1000 rounds of 4 local steps with the papers' default steps: the
  // penalty and the u-subproblem methods target the global lower level (x10); LocalBSGVRM's
  // local Neumann estimates are biased under heterogeneity (Gao 2022 targets the homogeneous
  // setting; Zhang et al. 2025, Section 2.2), so x4 with
  // theta = 1/L_g-ish and 20 terms.
  const std::map<std::string, std::pair<ParamMap, double>> expect{
      {"fedsvrbgd-fo", {{}, 10}},
      {"fedbioacc", {{}, 10}},
      {"fedbio", {{}, 10}},
      {"local-bsgvrm", {{{"theta", "0.2"}, {"neumann_terms", "20"}}, 4}},
      // Local Neumann too: AdaFBiO stalls at the zero of its surrogate field, not at x* (each
      // client estimates its local hypergradient, Huang 2022, eq. (13)), here at about a quarter
      // of the start.
      {"adafbio", {kAdaSteps, 2}},
      // FedNest's global Neumann series estimates the global hypergradient (x50); FedMBO and
      // LFedNest use local series and stall at their surrogate's zero, like AdaFBiO.
      {"fednest", {kNestSteps, 50}},
      {"lfednest", {kNestSteps, 3}},
      {"fedmbo", {{{"theta", "0.2"}, {"neumann_terms", "20"}, {"gamma_x", "0.1"}, {"gamma_y", "0.1"}}, 3}},
      {"adafbio-nonadaptive", {kAdaSteps, 2}},
  };
  for (const auto& name : fedbench::testing::solvers_of("bilevel")) {
    CAPTURE(name);
    // A solver without an entry must at least halve ||grad F|| at its defaults (its file is all
    // it takes to add one; an entry states a sharper factor).
    const auto entry = expect.count(name) ? expect.at(name) : std::pair<ParamMap, double>{{}, 2};
    const auto& params = entry.first;
    const double factor = entry.second;
    RunSpec spec{name, params, 1000};
    spec.eval_every = 1000;
    const auto t = run_quad(spec);
    REQUIRE(t.summary.status() == "ok");
    const double start = metric(t, *p, "hypergrad_norm", false), end = metric(t, *p, "hypergrad_norm");
    CHECK(end < start / factor);
  }
}

TEST_CASE("bilevel: with one client LocalBSGVRM's local Neumann estimate is the global one and converges") {
  // Its heterogeneity bias gone, only the truncation (1 - theta mu)^K ~ 1e-4 remains.
  const ParamMap same{{"clients", "1"}, {"samples", "6"}, {"dim_x", "3"}, {"dim_y", "4"}, {"noise", "0"}};
  const auto p = quad(same);
  RunSpec spec{"local-bsgvrm", {{"theta", "0.2"}, {"neumann_terms", "40"}, {"neumann", "deterministic"}}, 1500};
  spec.eval_every = 1500;
  const auto t = fedbench::testing::run(p, "bilevel-quadratic", same, spec);
  CHECK(metric(t, *p, "hypergrad_norm") < 1e-3 * metric(t, *p, "hypergrad_norm", false));
}

TEST_CASE("bilevel: communication and second-order counts per round (our accounting of the Zhang et al. 2025 methods)") {
  const std::int64_t rounds = 5, M = 4, p = 3;
  const ParamMap steps{{"local_steps", std::to_string(p)}};
  const auto fo = run_quad({"fedsvrbgd-fo", steps, rounds});
  const auto& c = fo.rows.back().comm;
  CHECK(c.floats_up == rounds * M * (2 * kDx + 4 * kDy));                   // x, y, z, m_x, m_y, m_z
  CHECK(c.floats_down == c.floats_up - M * (kDx + 3 * kDy));              // round 0: the model only
  CHECK(fo.rows.back().oracle[OracleKind::hvp] == 0);                     // fully first order
  CHECK(fo.rows.back().oracle[OracleKind::jvp] == 0);
  const auto acc = run_quad({"fedbioacc", steps, rounds});
  CHECK(acc.rows.back().comm.floats_up == rounds * M * (2 * kDx + 4 * kDy));  // x, y, u, omega, nu, chi
  // 2 HVPs and 2 JVPs per local step, plus one of each for the initial trackers.
  CHECK(acc.rows.back().oracle[OracleKind::hvp] == M * (1 + 2 * p * rounds));
  CHECK(acc.rows.back().oracle[OracleKind::jvp] == M * (1 + 2 * p * rounds));
  // FedBiO (a = 1) has no trackers: one evaluation per local step, not a zero-weighted second.
  const auto plain = run_quad({"fedbio", steps, rounds});
  CHECK(plain.rows.back().oracle[OracleKind::hvp] == M * (1 + p * rounds));
  CHECK(plain.rows.back().oracle[OracleKind::jvp] == M * (1 + p * rounds));
  ParamMap det = steps;
  det["neumann"] = "deterministic";
  det["neumann_terms"] = "5";
  const auto vr = run_quad({"local-bsgvrm", det, rounds});
  CHECK(vr.rows.back().comm.floats_up == rounds * M * (2 * kDx + 2 * kDy));  // x, y, u, v
  // Deterministic sum: K - 1 HVPs and one JVP per evaluation, two evaluations per step.
  CHECK(vr.rows.back().oracle[OracleKind::hvp] == M * 4 * (1 + 2 * p * rounds));
  CHECK(vr.rows.back().oracle[OracleKind::jvp] == M * (1 + 2 * p * rounds));
}

TEST_CASE("bilevel: every solver gives the same bits with 1 and 3 threads") {
  for (const auto& name : fedbench::testing::solvers_of("bilevel")) {
    CAPTURE(name);
    const auto a = run_quad({name, {}, 12, 1}), b = run_quad({name, {}, 12, 3});
    REQUIRE(a.rows.size() == b.rows.size());
    for (std::size_t r = 0; r < a.rows.size(); ++r) CHECK(a.rows[r].metrics == b.rows[r].metrics);
  }
}

TEST_CASE("bilevel: AdaFBiO whose Adam matrices stay the identity is non-adaptive AdaFBiO, bit for bit") {
  // varrho = 1 keeps a = 0, b = 0, so with rho = 1: A = sqrt(0) + 1 = I and B = 0 + 1 = 1.
  ParamMap adam = kAdaSteps, plain = kAdaSteps;
  adam["matrix"] = "adam";
  adam["varrho"] = "1";
  adam["rho"] = "1";
  const auto a = run_quad({"adafbio", adam, 30}), b = run_quad({"adafbio-nonadaptive", plain, 30});
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t r = 0; r < a.rows.size(); ++r) REQUIRE(a.rows[r].metrics == b.rows[r].metrics);
  CHECK(a.rows.back().metrics != a.rows.front().metrics);  // it moved
  // The adaptive run also ships diag(A) and b: d_x + 1 more floats per client from round 1.
  CHECK(a.rows.back().comm.floats_down - b.rows.back().comm.floats_down == 29 * 4 * (kDx + 1));
}

TEST_CASE("bilevel: AdaFBiO communication per round (Huang 2022, Alg. 1 lines 4-8) and matrix bounds") {
  const std::int64_t rounds = 6, M = 4;
  const auto t = run_quad({"adafbio", kAdaSteps, rounds});
  const auto& c = t.rows.back().comm;
  CHECK(c.floats_up == rounds * M * (2 * kDx + 2 * kDy));  // x, y, v, w
  // round 0: (x, y); round 1: + diag(A), b; later: + vbar, wbar
  CHECK(c.floats_down == M * ((kDx + kDy) + (2 * kDx + kDy + 1) + (rounds - 2) * (3 * kDx + 2 * kDy + 1)));
  // Rule (i) with varrho = 0: diag(A) = |wbar| + rho and B = ||vbar|| + rho (Huang 2022,
  // Algorithm 1, line 6).
  solvers::AdaptiveMatrix m(solvers::MatrixRule::adam, 0.3, 0.0);
  const Vec w = Vec::LinSpaced(kDx, -2, 1), v = Vec::Ones(kDy);
  m.update(w, v);
  CHECK((m.diag_a(kDx) - (w.cwiseAbs().array() + 0.3).matrix()).norm() < 1e-15);
  CHECK(m.b() == doctest::Approx(v.norm() + 0.3));
  solvers::AdaptiveMatrix ams(solvers::MatrixRule::amsgrad, 0.3, 0.5);
  ams.update(w, v);
  const Vec first = ams.diag_a(kDx);
  ams.update(Vec::Zero(kDx), v);  // AMSGrad never shrinks A
  CHECK((ams.diag_a(kDx).array() >= first.array()).all());
  CHECK((ams.diag_a(kDx).array() >= 0.3).all());
  // AdaGrad: A = sqrt(sum wbar^2) + rho and B = sqrt(sum ||vbar||^2) + rho (3-4-5 triangles).
  solvers::AdaptiveMatrix ada(solvers::MatrixRule::adagrad, 0.3, 0.5);
  Vec w1 = Vec::Zero(kDx), w2 = Vec::Zero(kDx), v1 = Vec::Zero(kDy), v2 = Vec::Zero(kDy);
  w1(0) = 3, w2(0) = 4, v1(1) = 3, v2(2) = 4;
  ada.update(w1, v1);
  ada.update(w2, v2);
  CHECK(ada.diag_a(kDx)(0) == doctest::Approx(5.3));
  CHECK(ada.diag_a(kDx)(1) == doctest::Approx(0.3));
  CHECK(ada.b() == doctest::Approx(5.3));
}

TEST_CASE("bilevel: with one client FedNest, LFedNest and FedMBO (exact oracles) reach the same point") {
  // One client: global and local Neumann series coincide, so the three double-loop methods
  // share their fixed point x with grad F(x) = the truncation bias of Q terms.
  const ParamMap one{{"clients", "1"}, {"samples", "6"}, {"dim_x", "3"}, {"dim_y", "4"}};
  const auto p = quad(one);
  ParamMap nest = kNestSteps, mbo{{"theta", "0.2"}, {"neumann_terms", "20"}, {"gamma_x", "0.1"}, {"gamma_y", "0.1"}};
  nest["batch_size"] = mbo["batch_size"] = "0";
  std::vector<double> ends;
  for (const auto& entry : std::vector<std::pair<std::string, ParamMap>>{
           {"fednest", nest}, {"lfednest", nest}, {"fedmbo", mbo}}) {
    const auto& name = entry.first;  // not a structured binding: CAPTURE is a lambda (clang 14)
    const auto& params = entry.second;
    CAPTURE(name);
    RunSpec spec{name, params, 2000};
    spec.eval_every = 2000;
    const auto t = fedbench::testing::run(p, "bilevel-quadratic", one, spec);
    ends.push_back(metric(t, *p, "hypergrad_norm"));
    CHECK(ends.back() < 1e-4 * metric(t, *p, "hypergrad_norm", false));
  }
  CHECK(ends[1] == doctest::Approx(ends[0]).epsilon(1e-6));
  CHECK(ends[2] == doctest::Approx(ends[0]).epsilon(1e-6));
}

TEST_CASE("bilevel: FedNest, LFedNest and FedMBO exchanges, floats and second-order calls per round") {
  const std::int64_t rounds = 4, M = 4, Q = 5;
  const ParamMap five{{"neumann_terms", "5"}};
  const auto nest = run_quad({"fednest", five, rounds}).rows.back();
  CHECK(nest.comm.exchanges == rounds * (2 + Q + 2));  // 2 T_in + Q + 2
  CHECK(nest.comm.floats_up == rounds * M * ((Q + 2) * kDy + 2 * kDx));
  CHECK(nest.comm.floats_down == rounds * M * (2 * kDx + (Q + 3) * kDy));
  CHECK(nest.oracle[OracleKind::hvp] == rounds * M * (Q - 1));
  CHECK(nest.oracle[OracleKind::jvp] == rounds * M);
  for (const char* name : {"lfednest", "fedmbo"}) {
    CAPTURE(name);
    const auto t = run_quad({name, five, rounds}).rows.back();
    CHECK(t.comm.exchanges == rounds * 2);
    CHECK(t.comm.floats_up == rounds * M * (kDy + kDx));          // y_i; then x_i or h_i
    CHECK(t.comm.floats_down == rounds * M * (kDx + 2 * kDy));    // (x, y); then y
    CHECK(t.oracle[OracleKind::hvp] == rounds * M * (Q - 1));     // deterministic sum
    CHECK(t.oracle[OracleKind::jvp] == rounds * M);
  }
}

TEST_CASE("bilevel: every bilevel solver runs on every bilevel problem") {
  const std::map<std::string, ParamMap> small{
      {"bilevel-quadratic", kQuad},
      {"hyper-logreg", {{"dataset", "heart"}, {"clients", "3"}}},
      {"data-hypercleaning", {{"dataset", "heart"}, {"rows", "100"}, {"clients", "3"}}},
      {"hyper-representation", {{"dataset", "heart"}, {"hidden", "4"}, {"clients", "3"}}}};
  for (const auto& problem : problem_registry().names()) {
    if (problem_registry().get(problem).family != "bilevel") continue;
    CAPTURE(problem);
    // A problem without an entry runs at its defaults (an entry keeps a large default small).
    const ParamMap params = small.count(problem) ? small.at(problem) : ParamMap{};
    const auto p = fedbench::testing::bilevel_problem(problem, params);
    for (const auto& solver : fedbench::testing::solvers_of("bilevel")) {
      CAPTURE(solver);
      RunSpec spec{solver, {}, 6};
      spec.eval_every = 6;
      const auto t = fedbench::testing::run(p, problem, params, spec);
      CHECK(t.summary.status() == "ok");
      for (double v : t.rows.back().metrics) CHECK(std::isfinite(v));
    }
  }
}

TEST_CASE("bilevel: theta = theory is 1/L_g from the problem's bound (AdaFBiO, LocalBSGVRM)") {
  const double L = quad()->constants().get(Constant::lipschitz_g_client_max, "test");
  std::ostringstream explicit_theta;
  explicit_theta << std::setprecision(17) << 1.0 / L;
  for (const char* name : {"adafbio", "local-bsgvrm"}) {
    CAPTURE(name);
    const auto a = run_quad({name, {{"theta", "theory"}}, 6});
    const auto b = run_quad({name, {{"theta", explicit_theta.str()}}, 6});
    REQUIRE(a.rows.size() == b.rows.size());
    for (std::size_t r = 0; r < a.rows.size(); ++r) CHECK(a.rows[r].metrics == b.rows[r].metrics);
    const auto c = run_quad({name, {{"theta", "0.05"}}, 6});
    CHECK(c.rows.back().metrics != a.rows.back().metrics);  // theta reaches the estimator
  }
}

TEST_CASE("bilevel: theory Neumann settings: theta = 1/L_g and the least Q with truncation error <= 1/T") {
  // With theta = 1/L_g the truncated series misses at most (1 - 1/kappa)^Q of H^{-1}: the
  // theory Q is the first count at which that bound reaches 1/T (T = the run's rounds).
  const auto p = quad();
  const double L = p->constants().get(Constant::lipschitz_g_client_max, "test");
  const double kappa = L / p->constants().get(Constant::mu_g_client_min, "test");
  for (const char* solver : {"fednest", "lfednest", "fedmbo", "local-bsgvrm", "adafbio"}) {
    for (const std::int64_t T : {10, 4000}) {
      CAPTURE(solver);
      CAPTURE(T);
      RunRequest req;
      req.problem = "bilevel-quadratic";
      req.problem_params = kQuad;
      req.solver = solver;
      req.budget.rounds = T;
      const PreparedRun run = prepare_run(req, p);
      double theta = 0, q = 0;
      REQUIRE(parse_real(run.config.solver_params.at("theta"), theta));
      REQUIRE(parse_real(run.config.solver_params.at("neumann_terms"), q));
      CHECK(theta == 1.0 / L);
      CHECK(std::pow(1 - 1 / kappa, q) <= 1.0 / static_cast<double>(T));
      CHECK(std::pow(1 - 1 / kappa, q - 1) > 1.0 / static_cast<double>(T));
    }
  }
  // A condition number that would take more than 10^5 terms is refused with the fix.
  RunRequest req;
  req.problem = "hyper-logreg";
  req.problem_params = {{"dataset", "heart"}, {"clients", "2"}};
  req.solver = "fednest";
  req.budget.rounds = 1000;
  req.problem_params["x0"] = "-12";  // ridge e^-12: kappa ~ 10^6
  CHECK_THROWS_WITH_AS(prepare_run(req), doctest::Contains("give -s neumann_terms=Q"), UserError);
}
