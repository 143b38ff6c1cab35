// Reductions between algorithms and fixed points, on the same oracle streams (most are derived
// from the update rules, not stated in the papers).
#include <doctest/doctest.h>

#include <cmath>

#include "support/run_helpers.hpp"
#include "support/start_at.hpp"

using namespace fedbench;
using fedbench::testing::RunSpec;

namespace {
const ParamMap kSmallGame{{"clients", "4"}, {"samples", "6"}, {"dim", "3"}};

MemoryTrajectory run_small(const RunSpec& spec) {
  static auto game = fedbench::testing::problem("quadratic-game", kSmallGame);
  return fedbench::testing::run(game, "quadratic-game", kSmallGame, spec);
}

void require_bitwise_equal(const MemoryTrajectory& a, const MemoryTrajectory& b) {
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t r = 0; r < a.rows.size(); ++r)
    for (std::size_t k = 0; k < a.rows[r].metrics.size(); ++k)
      REQUIRE(a.rows[r].metrics[k] == b.rows[r].metrics[k]);  // exact, not approximate
}
}  // namespace

TEST_CASE("proxskip-gda-fl with comm_prob = 1 equals local-gda with one local step, bit for bit") {
  const auto prox = run_small({"proxskip-gda-fl", {{"step_size", "0.3"}, {"comm_prob", "1"}}, 30});
  const auto lgda = run_small({"local-gda",
                               {{"step_size", "0.3"}, {"schedule", "constant"}, {"local_steps", "1"}},
                               30});
  require_bitwise_equal(prox, lgda);
  CHECK(prox.rows.back().metrics[0] < 1e-3);  // and it does converge: the test is not vacuous
}

TEST_CASE("proxskip-sgda-fl with comm_prob = 1 equals local-sgda with one local step, bit for bit") {
  const auto prox = run_small({"proxskip-sgda-fl", {{"step_size", "0.2"}, {"comm_prob", "1"}}, 30});
  const auto lsgda = run_small({"local-sgda",
                                {{"step_size", "0.2"}, {"schedule", "constant"}, {"local_steps", "1"}},
                                30});
  require_bitwise_equal(prox, lsgda);
}

TEST_CASE("local-sgda with one local step and full participation equals distributed sgda") {
  const auto local = run_small({"local-sgda",
                                {{"step_size", "0.2"}, {"schedule", "constant"}, {"local_steps", "1"}},
                                40});
  const auto sgda = run_small({"sgda", {{"step_size", "0.2"}}, 40});
  REQUIRE(local.rows.size() == sgda.rows.size());
  // Different but equal arithmetic (average of models vs. model minus average step).
  for (std::size_t r = 0; r < local.rows.size(); ++r)
    CHECK(local.rows[r].metrics[0] == doctest::Approx(sgda.rows[r].metrics[0]).epsilon(1e-10));
  CHECK(local.rows.back().metrics[0] < 0.5 * local.rows.front().metrics[0]);
}

TEST_CASE("fedgda-gt with one local step is distributed gda") {
  const auto gt = run_small({"fedgda-gt", {{"step_size", "0.3"}, {"local_steps", "1"}}, 30});
  const auto gda = run_small({"gda", {{"step_size", "0.3"}}, 30});
  for (std::size_t r = 0; r < gt.rows.size(); ++r)
    CHECK(gt.rows[r].metrics[0] == doctest::Approx(gda.rows[r].metrics[0]).epsilon(1e-9));
}

TEST_CASE("the equilibrium is a fixed point of fedgda-gt but not of local-gda under heterogeneity") {
  auto game = fedbench::testing::problem("quadratic-game", kSmallGame);
  const Vec z_star = *game->reference_solution();
  auto start = std::make_shared<fedbench::testing::StartAt>(game, z_star);
  const auto run_from_star = [&](const RunSpec& spec) {
    return fedbench::testing::run(start, "quadratic-game", kSmallGame, spec);
  };
  const auto gt = run_from_star({"fedgda-gt", {{"step_size", "0.1"}, {"local_steps", "5"}}, 20});
  const auto lgda = run_from_star(
      {"local-gda", {{"step_size", "0.1"}, {"schedule", "constant"}, {"local_steps", "5"}}, 20});
  // rel_error with z0 = z* is the plain squared distance ||z - z*||^2.
  CHECK(gt.rows.back().metrics[0] < 1e-28);
  CHECK(lgda.rows.back().metrics[0] > 1e-8);  // client drift moves it off z*
  // SAGDA's control variates remove the drift too (full batches, every client), FSGDA's don't.
  const ParamMap local{{"eta_xl", "0.1"}, {"eta_yl", "0.1"}, {"local_steps", "5"}, {"batch_size", "0"}};
  CHECK(run_from_star({"sagda", local, 20}).rows.back().metrics[0] < 1e-28);
  CHECK(run_from_star({"fsgda", local, 20}).rows.back().metrics[0] > 1e-8);
}

TEST_CASE("two-client game: plain averaging of local gda has no drift when client matrices agree") {
  // Zhang et al. 2024, App. H.4: M_1 = M_2 = I, so Local GDA's relative error curve is the same
  // for every delta.
  const ParamMap d0{{"delta", "0"}}, d6{{"delta", "1000000"}};
  const RunSpec spec{"local-gda", {{"step_size", "0.05"}, {"schedule", "constant"}, {"local_steps", "5"}}, 10};
  const auto a = fedbench::testing::run(fedbench::testing::problem("two-client-game", d0),
                                        "two-client-game", d0, spec);
  const auto b = fedbench::testing::run(fedbench::testing::problem("two-client-game", d6),
                                        "two-client-game", d6, spec);
  for (std::size_t r = 0; r < a.rows.size(); ++r)
    CHECK(a.rows[r].metrics[0] == doctest::Approx(b.rows[r].metrics[0]).epsilon(1e-9));
  // Closed form: x_{k+1} - x* = (1 - gamma)^K (x_k - x*), so rel_error = (1 - gamma)^(2 K r).
  CHECK(a.rows.back().metrics[0] == doctest::Approx(std::pow(0.95, 2 * 5 * 10)).epsilon(1e-9));
}

TEST_CASE("op_scale s with step gamma equals op_scale 1 with step gamma s") {
  // 0.4 * 0.5 = 0.2 exactly, so the arithmetic is the same and so must be the bits.
  for (const char* solver : {"proxskip-gda-fl", "proxskip-l-svrgda-fl"}) {
    CAPTURE(solver);
    ParamMap scaled_params{{"step_size", "0.4"}, {"op_scale", "0.5"}, {"comm_prob", "0.3"}};
    ParamMap plain_params{{"step_size", "0.2"}, {"comm_prob", "0.3"}};
    if (std::string(solver) == "proxskip-l-svrgda-fl")  // q is fixed: theory q uses gamma
      scaled_params["ref_prob"] = plain_params["ref_prob"] = "0.2";
    const auto scaled = run_small({solver, scaled_params, 25});
    const auto plain = run_small({solver, plain_params, 25});
    require_bitwise_equal(scaled, plain);
  }
}

TEST_CASE("fess-gda with p = 0 and global rates 1 equals local-sgda, bit for bit (Shen et al. 2024, Sec. 3.1)") {
  const auto fess = run_small({"fess-gda",
                               {{"p", "0"}, {"eta_xl", "0.05"}, {"eta_yl", "0.05"}, {"local_steps", "4"},
                                {"batch_size", "2"}},
                               25, 1, "uniform:3"});
  const auto lsgda = run_small({"local-sgda",
                                {{"step_size", "0.05"}, {"schedule", "constant"}, {"local_steps", "4"},
                                 {"batch_size", "2"}},
                                25, 1, "uniform:3"});
  require_bitwise_equal(fess, lsgda);
  CHECK(fess.rows.back().metrics[0] < fess.rows.front().metrics[0]);
}

TEST_CASE("fess-gda with beta = 1 (z = x every round) equals fsgda, bit for bit") {
  const ParamMap common{{"eta_xl", "0.04"}, {"eta_yl", "0.02"}, {"eta_xg", "1.5"},
                        {"eta_yg", "0.8"}, {"local_steps", "3"}, {"batch_size", "1"}};
  ParamMap anchored = common;
  anchored["p"] = "0.7";
  anchored["beta"] = "1";
  require_bitwise_equal(run_small({"fess-gda", anchored, 25}), run_small({"fsgda", common, 25}));
  // And the penalty does act when the anchor lags (beta < 1): a different trajectory.
  anchored["beta"] = "0.1";
  const auto lagging = run_small({"fess-gda", anchored, 25});
  const auto plain = run_small({"fsgda", common, 25});
  CHECK(lagging.rows.back().metrics[0] != plain.rows.back().metrics[0]);
}

TEST_CASE("fed-norm-sgda is fsgda up to rounding, with K = 1 and S = 1 the "
          "snapshot variant is the plain one, bit for bit") {
  const ParamMap rates{{"eta_xl", "0.05"}, {"eta_yl", "0.03"}, {"local_steps", "3"}, {"batch_size", "1"}};
  ParamMap norm = rates, fsgda = rates;
  norm["gamma_x"] = fsgda["eta_xg"] = "1.3";
  norm["gamma_y"] = fsgda["eta_yg"] = "0.9";
  const auto a = run_small({"fed-norm-sgda", norm, 30, 1, "uniform:2"});
  const auto b = run_small({"fsgda", fsgda, 30, 1, "uniform:2"});
  for (std::size_t r = 0; r < a.rows.size(); ++r)
    CHECK(a.rows[r].metrics[0] == doctest::Approx(b.rows[r].metrics[0]).epsilon(1e-9));
  ParamMap one{{"local_steps", "1"}, {"batch_size", "2"}, {"eta_xl", "0.1"}, {"eta_yl", "0.1"}};
  ParamMap plus = one;
  plus["snapshot_period"] = "1";
  require_bitwise_equal(run_small({"fed-norm-sgda", one, 20}), run_small({"fed-norm-sgda", plus, 20}));
}

TEST_CASE("cd-mage+ with alpha = 1 equals cd-mage, bit for bit (Xie et al. 2021, App. B.1 schedules)") {
  const ParamMap common{{"local_steps", "3"}, {"batch_size", "2"}, {"c_eta", "0.05"}, {"c_gamma", "0.08"}};
  ParamMap plus = common;
  plus["c_alpha"] = "1e9";  // alpha_t = min{1, c_alpha/(t+1)^(2 rho)} = 1
  plus["rho"] = "0";
  require_bitwise_equal(run_small({"cd-mage-plus", plus, 20, 1, "uniform:3"}),
                        run_small({"cd-mage", common, 20, 1, "uniform:3"}));
}

TEST_CASE("cd-mage keeps the saddle point with every client in the gradient phase, cd-ma does not") {
  auto game = fedbench::testing::problem("quadratic-game", kSmallGame);
  auto start = std::make_shared<fedbench::testing::StartAt>(game, *game->reference_solution());
  const ParamMap steps{{"local_steps", "4"}, {"batch_size", "2"}, {"c_eta", "0.1"}, {"c_gamma", "0.1"}};
  const auto mage = fedbench::testing::run(start, "quadratic-game", kSmallGame, {"cd-mage", steps, 15});
  const auto ma = fedbench::testing::run(start, "quadratic-game", kSmallGame, {"cd-ma", steps, 15});
  CHECK(mage.rows.back().metrics[0] < 1e-25);
  CHECK(ma.rows.back().metrics[0] > 1e-8);
}

TEST_CASE("cd-mage with one local step is distributed GDA (Parallel SGDA as Xie et al. 2021 run it)") {
  const auto mage = run_small({"cd-mage", {{"local_steps", "1"}, {"c_eta", "0.2"}, {"c_gamma", "0.2"}}, 25});
  const auto gda = run_small({"gda", {{"step_size", "0.2"}}, 25});
  for (std::size_t r = 0; r < gda.rows.size(); ++r)
    CHECK(mage.rows[r].metrics[0] == doctest::Approx(gda.rows[r].metrics[0]).epsilon(1e-10));
}

TEST_CASE("coda-plus with theta = 0 within its first stage is cd-ma with eta = gamma, bit for bit") {
  const auto coda = run_small({"coda-plus", {{"local_steps", "3"}, {"batch_size", "2"}, {"eta_l", "0.07"},
                                             {"stage_iterations", "1000"}}, 20, 1, "uniform:3"});
  const auto ma = run_small({"cd-ma", {{"local_steps", "3"}, {"batch_size", "2"}, {"c_eta", "0.07"},
                                        {"c_gamma", "0.07"}}, 20, 1, "uniform:3"});
  require_bitwise_equal(coda, ma);
}

TEST_CASE("catalyst-scaffold-s with theta = 0 and fixed K is cd-mage with eta = gamma, bit for bit") {
  const ParamMap cat{{"round_lengths", "fixed"}, {"local_steps", "3"}, {"batch_size", "2"}, {"eta_l", "0.06"}};
  const ParamMap mage{{"local_steps", "3"}, {"batch_size", "2"}, {"c_eta", "0.06"}, {"c_gamma", "0.06"}};
  require_bitwise_equal(run_small({"catalyst-scaffold-s", cat, 20, 1, "uniform:3"}),
                        run_small({"cd-mage", mage, 20, 1, "uniform:3"}));
  ParamMap prox = cat;  // the proximal term does change the iterates
  prox["theta"] = "0.5";
  CHECK(run_small({"catalyst-scaffold-s", prox, 20, 1, "uniform:3"}).rows.back().metrics[0] !=
        run_small({"cd-mage", mage, 20, 1, "uniform:3"}).rows.back().metrics[0]);
}

TEST_CASE("parallel-sgda with eta = gamma is gda, cd-mage with K = 1 computes parallel-sgda") {
  const auto par = run_small({"parallel-sgda", {{"step_size", "0.2"}, {"dual_step_size", "0.05"}}, 25});
  const auto mage = run_small({"cd-mage", {{"local_steps", "1"}, {"c_eta", "0.2"}, {"c_gamma", "0.05"}}, 25});
  for (std::size_t r = 0; r < par.rows.size(); ++r)
    CHECK(mage.rows[r].metrics[0] == doctest::Approx(par.rows[r].metrics[0]).epsilon(1e-10));
  require_bitwise_equal(run_small({"parallel-sgda", {{"step_size", "0.2"}}, 25}),
                        run_small({"gda", {{"step_size", "0.2"}}, 25}));
  CHECK(par.rows.back().comm.exchanges == 25);  // one exchange per round, unlike cd-mage's two
}
