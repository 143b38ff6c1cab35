// One run's federated mechanics, phase by phase: set-up of the server and client state, then
// per round and phase: sample, prefetch, broadcast, client work on the thread pool, counting of
// the uploads and the server's aggregation. run_rounds (engine/engine.hpp) drives it and keeps
// what happens between rounds (evaluation, budgets, divergence).
// A template over the solver type: no virtual call per scalar, and after the first round it
// allocates nothing (buffers for Down, Up and client state are reused). Per client it keeps
// only what outlives a round (oracle counts, lasting solver state); contexts, uploads and
// scratch solver state belong to positions in the round.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/core_share.hpp"
#include "core/thread_pool.hpp"
#include "engine/client_sampling.hpp"
#include "engine/context.hpp"
#include "engine/message.hpp"
#include "engine/run_config.hpp"
#include "engine/solver_contract.hpp"
#include "engine/state_visitor.hpp"
#include "engine/trajectory.hpp"

namespace fedbench::detail {

template <class S>
class RoundLoop final : public SolverStates {
  using Up = typename S::Up;

 public:
  RoundLoop(S& solver, const Problem& problem, const RunConfig& config, int threads,
            CoreShare* share = nullptr)
      : solver_(solver),
        problem_(problem),
        num_clients_(problem.num_clients()),
        ledger_(num_clients_),
        server_(problem, config.seed),
        sampler_(config.participation, num_clients_, config.seed),
        per_round_(static_cast<std::size_t>(sampler_.max_per_round())),
        state_per_slot_(solver_client_is_scratch<S>() && !config.scratch_per_client),
        states_(state_per_slot_ ? per_round_ : static_cast<std::size_t>(num_clients_)),
        ready_(contract::declares_init_client<S> ? static_cast<std::size_t>(num_clients_) : 0, 1),
        uploads_(per_round_),
        pool_(threads),
        share_(share) {
    if (share_) share_->run_started();
    contexts_.reserve(per_round_);
    for (std::size_t k = 0; k < per_round_; ++k) contexts_.emplace_back(problem, config.seed);
    group_start_.reserve(per_round_ + 1);
    counted_before_.reserve(per_round_);
  }

  ~RoundLoop() override {
    if (share_) share_->run_finished(pool_.threads() - started_with_);
  }
  RoundLoop(const RoundLoop&) = delete;
  RoundLoop& operator=(const RoundLoop&) = delete;

  //! The solver's set-up (init, init_client), drawn under round -1.
  void set_up() {
    server_.enter(0, 0, {});
    if constexpr (contract::declares_init<S>) solver_.init(server_);
    if constexpr (contract::declares_init_client<S>) set_up_clients();
    if constexpr (contract::declares_phases<S>) phases_ = solver_.phases();
    totals_ = ledger_.total();
  }

  //! Every phase of round r.
  void round(std::int64_t r) {
    for (int phase = 0; phase < phases_; ++phase) run_phase(r, phase);
  }

  const Vec& model() const { return server_.model(); }
  //! Oracle totals over all clients, kept current phase by phase.
  const OracleCounts& totals() const { return totals_; }
  const CommCounts& comm() const { return comm_; }
  OracleLedger& ledger() { return ledger_; }
  ThreadPool& pool() { return pool_; }

  //! The solver's lasting states (server_states, then client_states of every client whose state
  //! is set up, in id order; none when client state is per-slot scratch), between rounds.
  void visit_states(StateSink& out) const override {
    OwnedStates owned(out);
    if constexpr (contract::declares_server_states<S>) solver_.server_states(owned);
    if constexpr (contract::declares_client_states<S>) {
      if (state_per_slot_) return;
      for (int id = 0; id < num_clients_; ++id) {
        if constexpr (contract::declares_init_client<S>)
          if (!ready_[id]) continue;  // not set up yet (lazy init_client): no state to show
        owned.own(id);
        solver_.client_states(states_[id], owned);
      }
    }
  }

  //! Threads of the run that a round leaves idle (more threads than clients per round).
  int idle_threads() const { return std::max(0, pool_.threads() - static_cast<int>(per_round_)); }

  //! Takes the suite's spare cores this run can use (between rounds): a thread per client of a
  //! round, or per client of an evaluation over every client, whichever is more.
  void grow() {
    if (!share_) return;
    const int useful = std::max(static_cast<int>(per_round_), num_clients_);
    const int threads = share_->grow(pool_.threads(), useful);
    if (threads > pool_.threads()) pool_.grow_to(threads);
  }

 private:
  // When client 0's set-up makes no oracle call, every other client is set up when it first
  // takes part: a client that never does costs no state (cross-device runs), and its streams
  // are the same either way.
  void set_up_clients() {
    ClientCtx& ctx = contexts_[0];
    ctx.bind(0, ledger_.client(0));
    ctx.enter(-1, 0);
    solver_.init_client(ctx, states_[0]);
    const OracleCounts& first = ledger_.client(0);
    const bool lazy = first.samples == 0 &&
                      std::all_of(first.calls.begin(), first.calls.end(), [](std::int64_t n) { return n == 0; });
    for (int i = 1; i < num_clients_; ++i) {
      if (lazy) {
        ready_[i] = 0;
        continue;
      }
      ctx.bind(i, ledger_.client(i));
      ctx.enter(-1, 0);
      solver_.init_client(ctx, states_[i]);
    }
  }

  void run_phase(std::int64_t r, int phase) {
    // Two-stage methods that talk to one client set per round (SAGDA, CD-MAGE's `same`) say
    // so with the same_clients_every_phase hook.
    // CD-MAGE's `same-candidates` keeps the candidates and redraws who of them respond.
    int sample_phase = phase;
    if constexpr (contract::declares_same_clients<S>)
      if (solver_.same_clients_every_phase()) sample_phase = 0;
    bool redraw = false;
    if constexpr (contract::declares_same_candidates<S>) redraw = solver_.same_candidates_every_phase();
    const auto sampled = redraw ? sampler_.redraw_responders(r, phase) : sampler_.sample(r, sample_phase);
    server_.enter(r, phase, sampled);
    if (sampled.empty()) return;  // nobody showed up: nothing is sent, nothing changes
    prefetch(sampled);
    broadcast(sampled);
    run_clients(r, phase, sampled);
    aggregate(sampled);
  }

  // The clients' first cache lines are requested all at once, before the server's broadcast:
  // with clients drawn from 10^5 the misses overlap instead of each client waiting.
  void prefetch(std::span<const int> sampled) const {
    for (const int id : sampled) {
      if (!state_per_slot_) __builtin_prefetch(&states_[id]);
      __builtin_prefetch(&ledger_.client(id));
      problem_.prefetch_client(id);
    }
  }

  void broadcast(std::span<const int> sampled) {
    solver_.server_begin(server_, down_);
    const auto n = static_cast<std::int64_t>(sampled.size());
    const MessageSize size = message_size(down_);
    comm_.messages_down += n;
    comm_.floats_down += n * size.floats;
    comm_.bytes_down += n * size.bytes;
  }

  // One task per distinct client; a client drawn several times (iid sampling) runs its draws in
  // order on one thread, each with fresh streams, updating its state in turn.
  void run_clients(std::int64_t r, int phase, std::span<const int> sampled) {
    const auto n = static_cast<int>(sampled.size());
    group_start_.clear();
    for (int k = 0; k < n; ++k)
      if (k == 0 || sampled[k] != sampled[k - 1]) group_start_.push_back(k);
    group_start_.push_back(n);
    const int groups = static_cast<int>(group_start_.size()) - 1;
    counted_before_.resize(static_cast<std::size_t>(groups));
    for (int g = 0; g < groups; ++g) counted_before_[g] = ledger_.client(sampled[group_start_[g]]);
    auto work = [&](int g) { run_group(r, phase, sampled, g); };
    pool_.parallel_for(groups, work);
    // Counts are integers: the same totals in any order, and O(sampled clients) per round.
    for (int g = 0; g < groups; ++g) {
      totals_ += ledger_.client(sampled[group_start_[g]]);
      totals_ -= counted_before_[g];
    }
  }

  void run_group(std::int64_t r, int phase, std::span<const int> sampled, int g) {
    ClientCtx& ctx = contexts_[g];
    for (int k = group_start_[g]; k < group_start_[g + 1]; ++k) {
      const int id = sampled[k];
      ctx.bind(id, ledger_.client(id));
      if constexpr (contract::declares_init_client<S>)
        if (!ready_[id]) {
          ctx.enter(-1, 0);
          solver_.init_client(ctx, states_[id]);
          ready_[id] = 1;
        }
      ctx.enter(r, phase, k - group_start_[g]);
      solver_.client_round(ctx, states_[state_per_slot_ ? g : id], down_, uploads_[k]);
    }
  }

  void aggregate(std::span<const int> sampled) {
    const auto n = static_cast<std::int64_t>(sampled.size());
    for (std::int64_t k = 0; k < n; ++k) {
      const MessageSize size = message_size(uploads_[k]);
      comm_.floats_up += size.floats;
      comm_.bytes_up += size.bytes;
    }
    comm_.messages_up += n;
    ++comm_.exchanges;
    const EvaluationThreads server_threads(&pool_);  // long averages split by elements
    solver_.server_end(server_, std::span<const Up>(uploads_.data(), sampled.size()));
    // Constrained problems: the server projects the aggregate onto the feasible set (the prox
    // of consensus + indicator); the identity when unconstrained.
    problem_.project(server_.model());
  }

  S& solver_;
  const Problem& problem_;
  const int num_clients_;
  OracleLedger ledger_;
  ServerCtx server_;
  ClientSampler sampler_;
  const std::size_t per_round_;
  const bool state_per_slot_;
  std::vector<ClientCtx> contexts_;  // one per client running at a time, bound when it runs
  std::vector<typename S::Client> states_;
  std::vector<char> ready_;  // client state set up
  std::vector<Up> uploads_;
  std::vector<int> group_start_;               // sampled positions where a new client id begins
  std::vector<OracleCounts> counted_before_;  // per group: its client's counts before the phase
  typename S::Down down_{};
  ThreadPool pool_;
  CoreShare* const share_;  // a suite's spare cores (null: the threads stay as they started)
  const int started_with_ = pool_.threads();
  CommCounts comm_;
  OracleCounts totals_;
  int phases_ = 1;
};

}  // namespace fedbench::detail
