// Micro-benchmarks: one client oracle call per problem, and communication rounds per solver on
// the 20-client quadratic game with d = 20 per player (Zhang et al. 2024, eq. (5), at the size of
// the authors' code). `make bench`.
#include <benchmark/benchmark.h>

#include <memory>

#include "core/text.hpp"
#include "engine/context.hpp"
#include "engine/runner.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

using namespace fedbench;

namespace {

std::shared_ptr<const Problem> cached(const std::string& name) {
  static std::map<std::string, std::shared_ptr<const Problem>> problems;
  auto& p = problems[name];
  if (!p) p = std::shared_ptr<const Problem>(make_problem(name, {}));
  return p;
}

// One counted oracle call through the same path a solver uses (ClientOracle).
void oracle_call(benchmark::State& state, const std::string& problem, int batch) {
  auto p = cached(problem);
  OracleCounts counts;
  ClientOracle oracle(dynamic_cast<const MinimaxProblem&>(*p), 0, counts, 1);
  Vec z = Vec::Constant(p->dim(), 0.1), out(p->dim());
  for (auto _ : state) {
    oracle.op(z, out, batch);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["samples/call"] = static_cast<double>(counts.samples) / static_cast<double>(state.iterations());
}

// Rounds per second of a solver with its theory parameters (plus `params`, "k=v,k=v");
// evaluation is excluded (the engine's wall time is solver work only).
void solver_rounds(benchmark::State& state, const std::string& solver, const std::string& params = "") {
  auto game = cached("quadratic-game");
  const std::int64_t rounds = 50;
  ParamMap solver_params;
  for (const auto& item : split(params, ','))
    if (const auto eq = item.find('='); eq != std::string::npos) solver_params[item.substr(0, eq)] = item.substr(eq + 1);
  for (auto _ : state) {
    RunRequest req;
    req.problem = "quadratic-game";
    req.solver = solver;
    req.solver_params = solver_params;
    req.budget.rounds = rounds;
    req.eval.every = rounds;
    PreparedRun run = prepare_run(req, game);
    MemoryTrajectory t;
    const RunSummary s = execute(run, static_cast<int>(state.range(0)), t);
    state.SetIterationTime(s.wall_time);  // one iteration = `rounds` rounds of solver work
  }
  state.counters["rounds/s"] =
      benchmark::Counter(static_cast<double>(rounds), benchmark::Counter::kIsIterationInvariantRate);

}

}  // namespace

BENCHMARK_CAPTURE(oracle_call, quadratic_game_sample, std::string("quadratic-game"), 1);
BENCHMARK_CAPTURE(oracle_call, quadratic_game_full, std::string("quadratic-game"), 0);
BENCHMARK_CAPTURE(oracle_call, robust_least_squares_sample, std::string("robust-least-squares"), 1);
BENCHMARK_CAPTURE(oracle_call, robust_least_squares_full, std::string("robust-least-squares"), 0);

#define FEDBENCH_ROUND_BENCH(id, name) \
  BENCHMARK_CAPTURE(solver_rounds, id, std::string(name))->Arg(1)->Arg(2)->UseManualTime()
FEDBENCH_ROUND_BENCH(proxskip_gda_fl, "proxskip-gda-fl");
FEDBENCH_ROUND_BENCH(proxskip_sgda_fl, "proxskip-sgda-fl");
FEDBENCH_ROUND_BENCH(proxskip_l_svrgda_fl, "proxskip-l-svrgda-fl");
FEDBENCH_ROUND_BENCH(local_gda, "local-gda");
FEDBENCH_ROUND_BENCH(local_sgda, "local-sgda");
FEDBENCH_ROUND_BENCH(local_eg, "local-eg");
FEDBENCH_ROUND_BENCH(local_seg, "local-seg");
FEDBENCH_ROUND_BENCH(fedgda_gt, "fedgda-gt");
FEDBENCH_ROUND_BENCH(sgda, "sgda");
// About 3 ms of client work per round (20 clients x 20 steps x 10 samples): what two threads
// should speed up.
BENCHMARK_CAPTURE(solver_rounds, local_sgda_heavy, std::string("local-sgda"),
                  std::string("local_steps=20,batch_size=10,step_size=0.01"))
    ->Arg(1)->Arg(2)->UseManualTime();
