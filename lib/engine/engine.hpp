// The round loop, written once for every solver (ensmallen's SGD loop, benchopt's run()).
// Per round and phase: sample clients, server_begin fills the broadcast, client_round runs on
// the thread pool for each sampled client, uploads are counted and handed to server_end in
// client-id order. Between rounds, outside the timed region: budgets, divergence, evaluation.
// The loop is a template over the solver type: no virtual call per scalar, and after the
// first round it allocates nothing (buffers for Down, Up and client state are reused).
// Per client it keeps only what outlives a round (oracle counts, lasting solver state);
// contexts, uploads and scratch solver state belong to positions in the round.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/build_info.hpp"
#include "core/text.hpp"
#include "engine/client_sampling.hpp"
#include "engine/context.hpp"
#include "engine/message.hpp"
#include "engine/run_config.hpp"
#include "engine/solver_contract.hpp"
#include "core/thread_pool.hpp"
#include "engine/trajectory.hpp"

namespace fedbench {

namespace detail {

RunHeader make_header(const Problem& problem, const RunConfig& config, int threads,
                      const RunMeta& meta);
//! Fills the summary's final iterate (and y*(x) for bilevel problems, uncounted; from the
//! run's metric state when its last row solved it already).
//! Runs its exact solves on `pool`'s threads.
void record_final(const Problem& problem, const Vec& model, RunSummary& summary, MetricState* state,
                  ThreadPool& pool);

//! Evaluation, budgets and divergence: the parts of a run between rounds. Evaluations share
//! the run's threads (the round loop is waiting for them).
class RunMonitor {
 public:
  RunMonitor(const Problem& problem, const RunConfig& config, TrajectorySink& sink, ThreadPool& pool);
  //! Records a row; returns true if the run must stop (sets reason and message).
  bool record(std::int64_t round, const Vec& model, const OracleCounts& oracle,
              const CommCounts& comm, double wall_time);
  //! Checks budgets and a non-finite model after a round; true if the run must stop.
  bool after_round(std::int64_t round, const Vec& model, const OracleCounts& oracle,
                   const CommCounts& comm, double wall_time);
  bool due(std::int64_t round) const { return config_.eval.due(round); }
  std::int64_t last_recorded() const { return last_recorded_; }
  double eval_time() const { return eval_time_; }
  MetricState* metric_state() const { return metric_state_.get(); }
  StopReason reason = StopReason::max_rounds;
  std::string message;

 private:
  const Problem& problem_;
  const RunConfig& config_;
  TrajectorySink& sink_;
  ThreadPool& pool_;
  std::vector<std::string> names_;
  std::size_t primary_ = 0;
  std::ptrdiff_t target_ = -1;
  std::unique_ptr<MetricState> metric_state_;  // this run's warm starts
  double initial_primary_ = 0;
  std::int64_t last_recorded_ = -1;
  double eval_time_ = 0;
};

}  // namespace detail

template <class S>
RunSummary run_rounds(S& solver, const Problem& problem, const RunConfig& config,
                      int threads, TrajectorySink& sink, const RunMeta& meta) {
  static_assert(check_solver_contract<S>());
  using Clock = std::chrono::steady_clock;
  using Up = typename S::Up;
  const int num_clients = problem.num_clients();

  OracleLedger ledger(num_clients);
  ServerCtx server(problem, config.seed);
  ClientSampler sampler(config.participation, num_clients, config.seed);
  const auto per_round = static_cast<std::size_t>(sampler.max_per_round());
  std::vector<ClientCtx> contexts;  // one per client running at a time, bound to it when it runs
  contexts.reserve(per_round);
  for (std::size_t k = 0; k < per_round; ++k) contexts.emplace_back(problem, config.seed);
  const bool state_per_slot = solver_client_is_scratch<S>() && !config.scratch_per_client;
  std::vector<typename S::Client> states(state_per_slot ? per_round : static_cast<std::size_t>(num_clients));
  std::vector<char> ready(contract::declares_init_client<S> ? static_cast<std::size_t>(num_clients) : 0,
                          1);  // client state set up
  std::vector<Up> uploads(per_round);
  std::vector<int> group_start;  // sampled positions where a new client id begins
  group_start.reserve(per_round + 1);
  std::vector<OracleCounts> counted_before;  // per group: its client's counts before the phase
  counted_before.reserve(per_round);
  typename S::Down down{};
  ThreadPool pool(threads);
  CommCounts comm;

  sink.begin(detail::make_header(problem, config, threads, meta));
  detail::RunMonitor monitor(problem, config, sink, pool);
  double wall = 0;
  std::int64_t completed = 0;
  try {
    const auto t0 = Clock::now();
    server.enter(0, 0, {});
    if constexpr (contract::declares_init<S>) solver.init(server);
    // Set-up work (e.g. a first full pass) draws under round -1. When client 0's set-up makes
    // no oracle call, every other client is set up when it first takes part: a client that
    // never does costs no state (cross-device runs), and its streams are the same either way.
    if constexpr (contract::declares_init_client<S>) {
      ClientCtx& ctx = contexts[0];
      ctx.bind(0, ledger.client(0));
      ctx.enter(-1, 0);
      solver.init_client(ctx, states[0]);
      const OracleCounts& first = ledger.client(0);
      const bool lazy = first.samples == 0 &&
                        std::all_of(first.calls.begin(), first.calls.end(), [](std::int64_t n) { return n == 0; });
      for (int i = 1; i < num_clients; ++i) {
        if (lazy) {
          ready[i] = 0;
          continue;
        }
        ctx.bind(i, ledger.client(i));
        ctx.enter(-1, 0);
        solver.init_client(ctx, states[i]);
      }
    }
    wall += std::chrono::duration<double>(Clock::now() - t0).count();
    int phases = 1;
    if constexpr (contract::declares_phases<S>) phases = solver.phases();

    // The oracle totals, kept up to date from the clients of each phase: a round costs O(sampled
    // clients), not O(M) (counts are integers: the same totals in any order).
    OracleCounts totals = ledger.total();
    bool stop = monitor.record(0, server.model(), totals, comm, wall);
    for (std::int64_t r = 0; !stop && r < config.budget.rounds; ++r) {
      const auto start = Clock::now();
      for (int phase = 0; phase < phases; ++phase) {
        // Two-stage methods that talk to one client set per round (SAGDA, CD-MAGE's `same`)
        // say so with the same_clients_every_phase hook.
        int sample_phase = phase;
        if constexpr (contract::declares_same_clients<S>)
          if (solver.same_clients_every_phase()) sample_phase = 0;
        const auto sampled = sampler.sample(r, sample_phase);
        server.enter(r, phase, sampled);
        if (sampled.empty()) continue;  // nobody showed up: nothing is sent, nothing changes
        const auto n = static_cast<std::int64_t>(sampled.size());
        // The clients' first cache lines are requested all at once, before the server's broadcast:
        // with clients drawn from 10^5 the misses overlap instead of each client waiting.
        for (std::int64_t k = 0; k < n; ++k) {
          const int id = sampled[k];
          if (!state_per_slot) __builtin_prefetch(&states[id]);
          __builtin_prefetch(&ledger.client(id));
          problem.prefetch_client(id);
        }
        solver.server_begin(server, down);
        const MessageSize down_size = message_size(down);
        comm.messages_down += n;
        comm.floats_down += n * down_size.floats;
        comm.bytes_down += n * down_size.bytes;
        // One task per distinct client; a client drawn several times (iid sampling) runs its
        // draws in order on one thread, each with fresh streams, updating its state in turn.
        group_start.clear();
        for (std::int64_t k = 0; k < n; ++k)
          if (k == 0 || sampled[k] != sampled[k - 1]) group_start.push_back(static_cast<int>(k));
        group_start.push_back(static_cast<int>(n));
        auto client_work = [&](int g) {
          ClientCtx& ctx = contexts[g];
          for (int k = group_start[g]; k < group_start[g + 1]; ++k) {
            const int id = sampled[k];
            ctx.bind(id, ledger.client(id));
            if constexpr (contract::declares_init_client<S>)
              if (!ready[id]) {
                ctx.enter(-1, 0);
                solver.init_client(ctx, states[id]);
                ready[id] = 1;
              }
            ctx.enter(r, phase, k - group_start[g]);
            solver.client_round(ctx, states[state_per_slot ? g : id], down, uploads[k]);
          }
        };
        const int groups = static_cast<int>(group_start.size()) - 1;
        counted_before.resize(static_cast<std::size_t>(groups));
        for (int g = 0; g < groups; ++g) counted_before[g] = ledger.client(sampled[group_start[g]]);
        pool.parallel_for(groups, client_work);
        for (int g = 0; g < groups; ++g) {
          totals += ledger.client(sampled[group_start[g]]);
          totals -= counted_before[g];
        }
        for (std::int64_t k = 0; k < n; ++k) {
          const MessageSize up_size = message_size(uploads[k]);
          comm.floats_up += up_size.floats;
          comm.bytes_up += up_size.bytes;
        }
        comm.messages_up += n;
        ++comm.exchanges;
        solver.server_end(server, std::span<const Up>(uploads.data(), sampled.size()));
        // Constrained problems: the server projects the aggregate onto the feasible set (the
        // prox of consensus + indicator); the identity when unconstrained.
        problem.project(server.model());
      }
      wall += std::chrono::duration<double>(Clock::now() - start).count();
      completed = r + 1;
      stop = monitor.after_round(completed, server.model(), totals, comm, wall);
      if (stop || monitor.due(completed) || completed == config.budget.rounds)
        stop = monitor.record(completed, server.model(), totals, comm, wall) || stop;
    }
  } catch (const WriteError&) {
    throw;  // the results cannot be stored: not an outcome of the run
  } catch (const std::exception& e) {
    monitor.reason = StopReason::error;
    monitor.message = e.what();
  }
  if (monitor.last_recorded() != completed && monitor.reason != StopReason::error)
    monitor.record(completed, server.model(), ledger.total(), comm, wall);

  RunSummary summary;
  summary.reason = monitor.reason;
  summary.message = monitor.message;
  summary.rounds = completed;
  summary.wall_time = wall;
  summary.eval_time = monitor.eval_time();
  summary.per_client = std::move(ledger).release();
  detail::record_final(problem, server.model(), summary, monitor.metric_state(), pool);
  sink.end(summary);
  return summary;
}

}  // namespace fedbench

