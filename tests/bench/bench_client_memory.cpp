// The memory floor of cross-device rounds: reading the data of 100 clients drawn at random
// out of M, each with about as many bytes as a client of the 2-d quadratic game holds (data and
// solver state, 1.2 kB measured from the process size). Nothing is computed: what grows with
// M here is cache misses alone, which no engine can avoid once M clients outgrow the caches.
#include <benchmark/benchmark.h>

#include <vector>

#include "core/random.hpp"

namespace {

void cold_client_reads(benchmark::State& state) {
  constexpr std::size_t kDoublesPerClient = 150;  // 1.2 kB
  constexpr int kPerRound = 100;
  const auto clients = static_cast<std::size_t>(state.range(0));
  std::vector<double> data(clients * kDoublesPerClient, 1.0);
  fedbench::Stream rng(1, "bench-clients");
  double sum = 0;
  for (auto _ : state) {
    for (int k = 0; k < kPerRound; ++k) {
      const double* client = data.data() + rng.below(clients) * kDoublesPerClient;
      for (std::size_t j = 0; j < kDoublesPerClient; ++j) sum += client[j];
    }
    benchmark::DoNotOptimize(sum);
  }
}

}  // namespace

BENCHMARK(cold_client_reads)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
