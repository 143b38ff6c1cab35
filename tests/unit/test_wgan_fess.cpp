// Shen et al. 2024, Section 4.1, Fig. 1 (lambda = 0.001, K = 10, B = 100, local rate 0.1,
// global rate 1): FESS-GDA (p = 1, beta = 0.05) reaches the generator's target while Fed-Norm-SGDA (= FSGDA with equal
// local work) stalls near sigma = 0, as the paper reports. Three seeds, 800 rounds.
#include <doctest/doctest.h>

#include "support/run_helpers.hpp"

using namespace fedbench;

TEST_CASE("wgan: FESS-GDA beats Fed-Norm-SGDA at the smallest regularisation (Shen et al. 2024, Fig. 1)") {
  const ParamMap problem{};  // the problem's defaults, Section 4.1: 10 clients x 1000 samples, lambda 0.001
  auto game = testing::problem("wgan-gaussian", problem);
  const ParamMap rates{{"eta_xl", "0.1"}, {"eta_yl", "0.1"}, {"local_steps", "10"}, {"batch_size", "100"}};
  for (std::uint64_t seed : {0, 1, 2}) {
    CAPTURE(seed);
    const auto fess = testing::run(game, "wgan-gaussian", problem, {"fess-gda", rates, 800, 1, "full", seed, 800});
    const auto norm = testing::run(game, "wgan-gaussian", problem, {"fed-norm-sgda", rates, 800, 1, "full", seed, 800});
    const double fess_error = fess.metric("param_error").back(), norm_error = norm.metric("param_error").back();
    MESSAGE("seed " << seed << ": FESS-GDA " << fess_error << ", Fed-Norm-SGDA " << norm_error);
    CHECK(fess_error < 1e-8);
    CHECK(norm_error > 1e-3);
  }
}
