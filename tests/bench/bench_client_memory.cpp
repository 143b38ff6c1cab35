// Cross-device rounds: 100 clients of M per round, M = 10^3 .. 10^5, and the memory floor under
// them. `cross_device_rounds` times Local SGDA (5 local steps) on the quadratic game with one
// sample per client (d = 2 per player): a round does the same work at every M, so what grows
// with M is memory traffic. `cold_client_reads` only reads the bytes of 100 clients drawn at
// random out of M and computes nothing: the growth no engine can avoid once M clients outgrow
// the caches.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <vector>

#include "core/random.hpp"
#include "engine/runner.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

namespace {

using namespace fedbench;

constexpr int kPerRound = 100;

// Arguments: M and the bytes read per client.
void cold_client_reads(benchmark::State& state) {
  const auto clients = static_cast<std::size_t>(state.range(0));
  const auto doubles_per_client = static_cast<std::size_t>(state.range(1)) / sizeof(double);
  std::vector<double> data(clients * doubles_per_client, 1.0);
  Stream rng(1, "bench-clients");
  double sum = 0;
  for (auto _ : state) {
    for (int k = 0; k < kPerRound; ++k) {
      const double* client = data.data() + rng.below(clients) * doubles_per_client;
      for (std::size_t j = 0; j < doubles_per_client; ++j) sum += client[j];
    }
    benchmark::DoNotOptimize(sum);
  }
}

ParamMap game_params(std::int64_t clients) {
  return {{"clients", std::to_string(clients)}, {"samples", "1"}, {"dim", "2"}};
}

void cross_device_rounds(benchmark::State& state) {
  static std::map<std::int64_t, std::shared_ptr<const Problem>> games;
  const std::int64_t clients = state.range(0);
  auto& game = games[clients];
  if (!game) game = std::shared_ptr<const Problem>(make_problem("quadratic-game", game_params(clients)));
  const std::int64_t rounds = 1000;
  double seconds = 0;
  for (auto _ : state) {
    RunRequest req;
    req.problem = "quadratic-game";
    req.problem_params = game_params(clients);
    req.solver = "local-sgda";
    req.solver_params = {{"local_steps", "5"}};
    req.participation = Participation::parse("uniform:" + std::to_string(kPerRound));
    req.budget.rounds = rounds;
    req.eval.every = rounds;
    PreparedRun run = prepare_run(req, game);
    MemoryTrajectory t;
    const RunSummary s = execute(run, 1, t);
    state.SetIterationTime(s.wall_time);  // one iteration = `rounds` rounds of solver work
    seconds += s.wall_time;
  }
  state.counters["us/round"] = 1e6 * seconds / static_cast<double>(rounds * state.iterations());
}

}  // namespace

// 256 bytes: what a round of the game reads per client (its 160-byte operator and offset, its
// oracle counts); 1200: what a client held before its data was packed.
BENCHMARK(cold_client_reads)->ArgsProduct({{1000, 10000, 100000}, {256, 1200}})->Unit(benchmark::kMicrosecond);
BENCHMARK(cross_device_rounds)->Arg(1000)->Arg(10000)->Arg(100000)->UseManualTime()->Unit(benchmark::kMillisecond);
