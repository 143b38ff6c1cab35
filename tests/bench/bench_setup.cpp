// Set-up of the default quadratic game (20 clients x 100 samples, d = 20 per player), against
// the random draws it is made of: the floor under any generator of this instance. `make bench`.
#include <benchmark/benchmark.h>

#include "core/random.hpp"
#include "problem/problem_registry.hpp"

using namespace fedbench;

namespace {

// The whole instance, as a run builds it (all cores).
void instance_build(benchmark::State& state) {
  for (auto _ : state) {
    auto problem = make_problem("quadratic-game", {});
    benchmark::DoNotOptimize(problem.get());
  }
}

// Only the standard normals the generator draws, on one core: per component, W for each of A,
// C and B (3 x 20 x 20) and zeta (40); 2000 components.
void instance_normal_draws(benchmark::State& state) {
  constexpr long long kDraws = 2000LL * (3 * 20 * 20 + 40);
  for (auto _ : state) {
    Stream rng(1, "bench");
    double sum = 0;
    for (long long k = 0; k < kDraws; ++k) sum += rng.normal();
    benchmark::DoNotOptimize(sum);
  }
  state.counters["draws"] = static_cast<double>(kDraws);
}

}  // namespace

BENCHMARK(instance_build)->Unit(benchmark::kMillisecond);
BENCHMARK(instance_normal_draws)->Unit(benchmark::kMillisecond);
