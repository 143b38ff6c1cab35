// What a solver sees. ClientCtx: the client's id, the round, counted oracles (ClientOracle)
// and purpose-named random streams. ServerCtx: the model, the sampled clients, aggregation
// helpers and server streams. Neither exposes counters, clocks, files or the problem's
// uncounted internals: solver code holds only algorithm state and arithmetic.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/random.hpp"
#include "core/types.hpp"
#include "problem/bilevel_problem.hpp"
#include "problem/evaluation_threads.hpp"
#include "problem/minimax_problem.hpp"

namespace fedbench {

//! Counted oracles of one client. Minibatch indices are drawn here, uniformly with
//! replacement, from a stream keyed by (seed, "oracle-batch", client, round, draw number).
class ClientOracle {
 public:
  ClientOracle(const MinimaxProblem& problem, int client, OracleCounts& counts, std::uint64_t seed)
      : problem_(&problem), client_(client), counts_(&counts), seed_(seed) {}
  //! Unbound: the engine's, bound to a client before each use.
  ClientOracle(const MinimaxProblem& problem, std::uint64_t seed) : problem_(&problem), seed_(seed) {}

  Index num_samples() const { return problem_->num_samples(client_); }

  //! A fresh minibatch of `batch` component indices (0 = the full local batch: empty span).
  //! The span stays valid until the next draw.
  std::span<const Index> draw(int batch);
  //! The next minibatch by random reshuffling (J. Xie et al., arXiv 2105.14216, 2021,
  //! Section 4.3, Theorem 3): a fresh permutation of the client's samples each local epoch,
  //! cut into consecutive chunks of `batch` (the last chunk of an epoch may be shorter). The
  //! iterator restarts every round and phase.
  std::span<const Index> next_reshuffled(int batch);

  //! The operator (grad_x f_i, -grad_y f_i) on `samples` (empty = full batch).
  void op_on(std::span<const Index> samples, const Vec& z, Vec& out) {
    problem_->op(client_, samples, z, out, *counts_);
  }
  //! The operator on a fresh minibatch of size `batch` (0 = full local batch).
  void op(const Vec& z, Vec& out, int batch) { op_on(draw(batch), z, out); }
  void grad_x_on(std::span<const Index> samples, const Vec& z, Vec& out) {
    problem_->grad_x(client_, samples, z, out, *counts_);
  }
  void grad_y_on(std::span<const Index> samples, const Vec& z, Vec& out) {
    problem_->grad_y(client_, samples, z, out, *counts_);
  }
  double value_on(std::span<const Index> samples, const Vec& z) {
    return problem_->value(client_, samples, z, *counts_);
  }

 private:
  friend class ClientCtx;
  void bind(int client, OracleCounts& counts) {
    client_ = client;
    counts_ = &counts;
  }
  void start_round(std::int64_t round, int phase, int occurrence) {
    round_ = round;
    // Phases of a round, and repeated draws of one client (iid sampling), use disjoint keys.
    draws_ = (static_cast<std::int64_t>(phase) << 32) | (static_cast<std::int64_t>(occurrence) << 40);
    epoch_ = draws_;
    epoch_pos_ = -1;  // no permutation yet this round
  }

  const MinimaxProblem* problem_;
  int client_ = -1;
  OracleCounts* counts_ = nullptr;
  std::uint64_t seed_;
  std::int64_t round_ = 0;
  std::int64_t draws_ = 0;
  std::vector<Index> batch_;
  std::vector<Index> permutation_;
  std::int64_t epoch_ = 0, epoch_pos_ = -1;
};

//! Counted oracles of one client of a bilevel problem: gradients of the upper level f_i and
//! the lower level g_i, Hessian- and Jacobian-vector products of g_i, on minibatches drawn
//! (uniformly with replacement) from the level's own components.
class BilevelOracle {
 public:
  BilevelOracle(const BilevelProblem& problem, int client, OracleCounts& counts, std::uint64_t seed)
      : problem_(&problem), client_(client), counts_(&counts), seed_(seed) {}
  //! Unbound: the engine's, bound to a client before each use.
  BilevelOracle(const BilevelProblem& problem, std::uint64_t seed) : problem_(&problem), seed_(seed) {}

  Index num_upper_samples() const { return problem_->num_upper_samples(client_); }
  Index num_lower_samples() const { return problem_->num_samples(client_); }
  //! Fresh minibatches of upper (validation) / lower (training) components; 0 = all (empty
  //! span). Each span stays valid until the next draw of the same level.
  std::span<const Index> draw_upper(int batch) { return draw(batch, num_upper_samples(), "upper", upper_); }
  std::span<const Index> draw_lower(int batch) { return draw(batch, num_lower_samples(), "lower", lower_); }

  void upper_grad_x(std::span<const Index> s, const Vec& z, Vec& out) { problem_->upper_grad_x(client_, s, z, out, *counts_); }
  void upper_grad_y(std::span<const Index> s, const Vec& z, Vec& out) { problem_->upper_grad_y(client_, s, z, out, *counts_); }
  void lower_grad_x(std::span<const Index> s, const Vec& z, Vec& out) { problem_->lower_grad_x(client_, s, z, out, *counts_); }
  void lower_grad_y(std::span<const Index> s, const Vec& z, Vec& out) { problem_->lower_grad_y(client_, s, z, out, *counts_); }
  void lower_hvp(std::span<const Index> s, const Vec& z, const Vec& v, Vec& out) {
    problem_->lower_hvp(client_, s, z, v, out, *counts_);
  }
  void lower_jvp(std::span<const Index> s, const Vec& z, const Vec& v, Vec& out) {
    problem_->lower_jvp(client_, s, z, v, out, *counts_);
  }
  double upper_value(std::span<const Index> s, const Vec& z) { return problem_->upper_value(client_, s, z, *counts_); }
  double lower_value(std::span<const Index> s, const Vec& z) { return problem_->lower_value(client_, s, z, *counts_); }

 private:
  friend class ClientCtx;
  void bind(int client, OracleCounts& counts) {
    client_ = client;
    counts_ = &counts;
  }
  void start_round(std::int64_t round, int phase, int occurrence) {
    round_ = round;
    draws_ = (static_cast<std::int64_t>(phase) << 32) | (static_cast<std::int64_t>(occurrence) << 40);
  }
  std::span<const Index> draw(int batch, Index m, std::string_view level, std::vector<Index>& buffer);

  const BilevelProblem* problem_;
  int client_ = -1;
  OracleCounts* counts_ = nullptr;
  std::uint64_t seed_;
  std::int64_t round_ = 0, draws_ = 0;
  std::vector<Index> upper_, lower_;
};

//! A context holds no state from one round to the next (the oracles' streams are keyed by
//! client and round, their buffers are scratch), so the engine keeps one per client running
//! at a time and binds it to a client before its work: a run with 10^5 clients keeps as many
//! contexts as clients per round, and a round touches no per-client context memory.
class ClientCtx {
 public:
  ClientCtx(const Problem& problem, std::uint64_t seed)
      : problem_(&problem), seed_(seed),
        minimax_(dynamic_cast<const MinimaxProblem*>(&problem)),
        bilevel_(dynamic_cast<const BilevelProblem*>(&problem)) {
    if (minimax_) oracle_.emplace(*minimax_, seed);
    if (bilevel_) bilevel_oracle_.emplace(*bilevel_, seed);
  }

  int id() const { return client_; }
  std::int64_t round() const { return round_; }
  int phase() const { return phase_; }
  int num_clients() const { return problem_->num_clients(); }
  Index dim() const { return problem_->dim(); }
  Index dim_x() const { return problem_->dim_x(); }
  Index dim_y() const { return problem_->dim_y(); }
  //! The minimax oracles (solvers of minimax problems; the adapter checks the kind).
  ClientOracle& oracle() { return *oracle_; }
  //! The bilevel oracles (solvers of bilevel problems).
  BilevelOracle& bilevel() { return *bilevel_oracle_; }
  //! A stream for this client, round and purpose; `step` tells apart several in one round.
  Stream stream(std::string_view purpose, std::int64_t step = 0) const {
    return Stream(StreamKey{seed_, hash_name(purpose), client_, round_, step | occurrence_key_});
  }
  //! Public coins: the stream the server gets from ServerCtx::stream(purpose, step) in this
  //! round. Server and clients see the same draws without sending them (the paper's
  //! broadcast coin bits, which are not counted as communication).
  Stream shared_stream(std::string_view purpose, std::int64_t step = 0) const {
    return Stream(StreamKey{seed_, hash_name(purpose), -1, round_, step});
  }
  void project(Vec& z) const { problem_->project(z); }
  Vec initial_point() const { return problem_->initial_point(); }

  //! Engine use: make this the context of `client`, whose oracle calls count in `counts`.
  void bind(int client, OracleCounts& counts) {
    client_ = client;
    if (oracle_) oracle_->bind(client, counts);
    if (bilevel_oracle_) bilevel_oracle_->bind(client, counts);
  }
  //! Engine use: position the context at (round, phase) before client work; `occurrence`
  //! counts earlier draws of this client in the same round (iid sampling), 0 otherwise.
  void enter(std::int64_t round, int phase, int occurrence = 0) {
    round_ = round;
    phase_ = phase;
    occurrence_key_ = static_cast<std::int64_t>(occurrence) << 40;
    if (oracle_) oracle_->start_round(round, phase, occurrence);
    if (bilevel_oracle_) bilevel_oracle_->start_round(round, phase, occurrence);
  }

 private:
  const Problem* problem_;
  int client_ = -1;
  std::uint64_t seed_;
  std::int64_t round_ = 0;
  int phase_ = 0;
  std::int64_t occurrence_key_ = 0;
  const MinimaxProblem* minimax_;
  const BilevelProblem* bilevel_;
  std::optional<ClientOracle> oracle_;
  std::optional<BilevelOracle> bilevel_oracle_;
};

class ServerCtx {
 public:
  ServerCtx(const Problem& problem, std::uint64_t seed)
      : problem_(&problem), seed_(seed), model_(problem.initial_point()) {}

  //! The server's iterate z = (x, y): what metrics are evaluated on.
  Vec& model() { return model_; }
  const Vec& model() const { return model_; }
  std::int64_t round() const { return round_; }
  int phase() const { return phase_; }
  int num_clients() const { return problem_->num_clients(); }
  //! Clients taking part in this round (sorted); uploads arrive in this order.
  std::span<const int> sampled() const { return sampled_; }
  Index dim() const { return problem_->dim(); }
  Index dim_x() const { return problem_->dim_x(); }
  Index dim_y() const { return problem_->dim_y(); }
  Stream stream(std::string_view purpose, std::int64_t step = 0) const {
    return Stream(StreamKey{seed_, hash_name(purpose), -1, round_, step});
  }
  void project(Vec& z) const { problem_->project(z); }

  //! Engine use.
  void enter(std::int64_t round, int phase, std::span<const int> sampled) {
    round_ = round;
    phase_ = phase;
    sampled_ = sampled;
  }

 private:
  const Problem* problem_;
  std::uint64_t seed_;
  Vec model_;
  std::int64_t round_ = 0;
  int phase_ = 0;
  std::span<const int> sampled_;
};

//! out = mean over uploads of (upload.*field), summed in upload (client-id) order so that the
//! result does not depend on which thread finished first. Leaves out unchanged when empty.
//! Long models are averaged on the run's threads, each range of elements by one of them (the
//! same operations per element: the same bits).
template <class Up>
void mean_into(std::span<const Up> uploads, Vec Up::*field, Vec& out) {
  if (uploads.empty()) return;
  const Index size = (uploads[0].*field).size();
  out.resize(size);
  const auto n = static_cast<long long>(uploads.size());
  for_element_ranges(size, n, [&](long long begin, long long end) {
    auto range = out.segment(begin, end - begin);
    range = (uploads[0].*field).segment(begin, end - begin);
    for (std::size_t k = 1; k < uploads.size(); ++k) range += (uploads[k].*field).segment(begin, end - begin);
    range /= static_cast<double>(n);
  });
}

}  // namespace fedbench
