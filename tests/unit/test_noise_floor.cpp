// Statistical checks: ProxSkip-SGDA-FL stalls at a noise floor proportional to gamma (Zhang et
// al. 2024, Thm 3.1 with Lemma 3.4: floor <= 2 gamma sigma*^2 / mu), while the variance-reduced
// ProxSkip-L-SVRGDA-FL has no floor and converges linearly to the exact solution.
#include <doctest/doctest.h>

#include <numeric>

#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {
const ParamMap kGame{{"clients", "5"}, {"samples", "8"}, {"dim", "3"}};

std::shared_ptr<const MinimaxProblem> game() {
  static auto g = testing::problem("quadratic-game", kGame);
  return g;
}

// Mean relative error over rounds 1000..3000 (the plateau), averaged over three seeds.
double plateau(const std::string& step_size) {
  double total = 0;
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto t = testing::run(game(), "quadratic-game", kGame,
                                {"proxskip-sgda-fl",
                                 {{"step_size", step_size}, {"comm_prob", "0.3"}},
                                 3000, 1, "full", seed});
    const auto err = t.metric("rel_error");
    total += std::accumulate(err.begin() + 1000, err.end(), 0.0) /
             static_cast<double>(err.size() - 1000);
  }
  return total / 3;
}
}  // namespace

TEST_CASE("noise floor: halving gamma roughly halves the ProxSkip-SGDA-FL plateau") {
  const double big = plateau("0.08"), small = plateau("0.04");
  MESSAGE("plateau at gamma 0.08: " << big << ", at 0.04: " << small);
  CHECK(big / small > 1.6);
  CHECK(big / small < 2.6);
}

TEST_CASE("noise floor: ProxSkip-L-SVRGDA-FL has none and reaches 1e-10 with theory parameters") {
  const auto t = testing::run(game(), "quadratic-game", kGame,
                              {"proxskip-l-svrgda-fl", {}, 1500, 1, "full", 5, 100});
  MESSAGE("L-SVRGDA after 1500 rounds: " << t.rows.back().metrics[0]);
  CHECK(t.rows.back().metrics[0] < 1e-10);
}
