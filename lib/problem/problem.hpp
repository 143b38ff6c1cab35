// The base of every federated problem: M clients, client i holding m_i component functions,
// a model z = (x, y) of two blocks, a feasible set, known constants, an optional exact
// solution and the metrics recorded on the evaluation schedule. Two families derive from it:
// MinimaxProblem (problem/minimax_problem.hpp: min_x max_y, an operator oracle) and
// BilevelProblem (problem/bilevel_problem.hpp: min_x f(x, y*(x)), y*(x) = argmin_y g(x, y)).
//
// Problem files implement only the math (protected do_* methods, IOHprofiler-style); the
// public, non-virtual oracle methods of each family check shapes, count every call in the
// caller's OracleCounts and forward. Metrics use the uncounted internals: evaluation is not
// the solver's work.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/data_provenance.hpp"
#include "core/types.hpp"
#include "problem/constant_names.hpp"
#include "problem/instance_writer.hpp"
#include "problem/oracle_counts.hpp"

namespace fedbench {

//! Known constants of a problem instance, keyed by their names in problem/constant_names.hpp
//! (the run-file keys), with how this problem computed each. Constants that cost real work
//! (an eigenproblem per client or per sample) are registered with `later` and computed on
//! first use, once: a run pays only for what its theory presets read. Thread-safe.
class Constants {
 public:
  Constants();
  Constants(Constants&&) noexcept;
  Constants& operator=(Constants&&) noexcept;
  ~Constants();

  void set(Constant c, double value, std::string how);
  //! `fill` sets (some of) `names` when one of them is first asked for; it may set fewer
  //! (e.g. a cocoercivity only for monotone operators).
  void later(std::vector<Constant> names, std::function<void(Constants&)> fill);
  //! May compute a deferred group.
  bool has(Constant c) const;
  //! Throws UserError naming the constant and `who` needs it (a theory preset, usually).
  double get(Constant c, const std::string& who) const;
  //! The doc of a constant that has() (how it was computed).
  std::string doc(Constant c) const;
  //! Every constant, deferred ones computed (describe, instance files, tests).
  const std::map<std::string, double>& values() const;
  const std::map<std::string, std::string>& docs() const;
  //! The constants set without deferred work (what every run file records).
  std::map<std::string, double> eager_values() const;
  std::map<std::string, std::string> eager_docs() const;

 private:
  struct Deferred;
  void compute(Deferred& group) const;                    // caller holds the lock
  void compute_group_of(const std::string& name) const;  // caller holds the lock
  void compute_all() const;
  std::unique_ptr<std::mutex> mutex_;
  mutable std::map<std::string, double> values_;
  mutable std::map<std::string, std::string> docs_;
  mutable std::vector<Deferred> deferred_;
  std::set<std::string> eager_;
};

//! How labelled data is spread over the clients (stored with every run).
struct ClientLabels {
  std::vector<double> classes;                    //!< sorted label values
  std::vector<std::vector<std::int64_t>> counts;  //!< clients x classes
};

//! What one run's evaluations keep for the next (warm starts of exact reference solves). Made
//! per run, never shared: a run's metric values depend only on its own evaluation schedule.
struct MetricState {
  virtual ~MetricState() = default;
};

//! Which oracle family a problem offers (and a solver needs).
enum class ProblemKind { minimax, bilevel };
const char* kind_name(ProblemKind kind);

class Problem {
 public:
  virtual ~Problem() = default;

  virtual ProblemKind kind() const = 0;
  int num_clients() const { return static_cast<int>(samples_per_client_.size()); }
  Index dim_x() const { return dim_x_; }
  Index dim_y() const { return dim_y_; }
  Index dim() const { return dim_x_ + dim_y_; }
  //! Component functions of client i (for bilevel problems: of its lower level).
  Index num_samples(int client) const { return samples_per_client_[client]; }

  //! Problem class as the papers name it: "SC-SC", "NC-SC", "monotone", ...
  virtual std::string problem_class() const = 0;
  //! Start point z0 (zeros unless the problem says otherwise).
  virtual Vec initial_point() const { return Vec::Zero(dim()); }
  //! The exact solution z*, when one is known (closed form or a high-accuracy solve).
  virtual std::optional<Vec> reference_solution() const { return std::nullopt; }
  //! Euclidean projection onto the feasible set (identity when unconstrained).
  virtual void project(Vec& /*z*/) const {}

  //! Writes the problem's own data (matrices, vectors, data rows per client, ...) for
  //! `fedbench instance`; constants, z0, z* and shapes are written by the caller.
  virtual void write_instance(InstanceWriter& /*out*/) const {}

  //! A hint that client i is about to run (a round's clients are known before they do): brings
  //! its first cache lines in, so that a round over clients drawn from 10^5 does not wait for
  //! each client's memory in turn. Changes no result.
  void prefetch_client(int client) const {
    __builtin_prefetch(&samples_per_client_[client]);
    prefetch_client_data(client);
  }

  //! Label histogram per client, for problems built on labelled data split by a partitioner.
  virtual std::optional<ClientLabels> client_labels() const { return std::nullopt; }

  //! Constants (mu, L, cocoercivity, ...), computed once on first use and cached.
  const Constants& constants() const;
  //! Computes what every run of this instance reads first (the reference solution, the eager
  //! constants), on the threads of the caller's EvaluationThreads scope: a suite does this
  //! once on all cores before its runs start, instead of its first run doing it on one.
  void warm_up() const;

  // ---- metrics recorded on the evaluation schedule.
  //! Column names, fixed for the instance: rel_error (when z* is known), the family's own
  //! (core_metric_names) and the problem's (extra_metric_names).
  std::vector<std::string> metric_names() const;
  //! Writes metric values in metric_names() order into out (size metric_names().size()).
  //! `state` (from make_metric_state, one per run) lets exact solves start from the previous
  //! evaluation's solution; without it every evaluation starts cold.
  void metrics(const Vec& z, std::span<double> out, MetricState* state = nullptr) const;
  virtual std::unique_ptr<MetricState> make_metric_state() const { return nullptr; }
  //! The metric used for divergence detection and as the default target.
  std::string primary_metric() const;

  //! The data files this instance was built from (path, location, size, SHA-256), recorded by
  //! the registry while it constructed the instance; empty for generated instances.
  const std::vector<DataFileRecord>& data_files() const { return data_files_; }

 protected:
  Problem() = default;
  //! Called by the concrete constructor once the shape is known.
  void set_shape(Index dim_x, Index dim_y, std::vector<Index> samples_per_client);
  //! Shape checks shared by the oracle methods of both families.
  void check_call(int client, std::span<const Index> samples, Index num_samples, const Vec& z,
                  const char* what) const;

  virtual Constants compute_constants() const { return {}; }
  //! The family's metrics (op_norm for minimax; F(x), ||grad F|| ... for bilevel).
  virtual std::vector<std::string> core_metric_names() const = 0;
  virtual void core_metrics(const Vec& z, std::span<double> out, MetricState* state) const = 0;
  virtual std::vector<std::string> extra_metric_names() const { return {}; }
  //! The primary metric when the default rule (rel_error, else the first core metric) is not
  //! the right one (e.g. a duality gap under constraints); must be one of metric_names().
  virtual std::string preferred_metric() const { return {}; }
  virtual void extra_metrics(const Vec& /*z*/, std::span<double> /*out*/) const {}

  // ---- optional speed hooks: a problem may leave them alone; overriding one changes time,
  // never a result (the tests compare both ways).
  //! The problem's part of prefetch_client: `__builtin_prefetch` the first lines that client's
  //! oracles read (nothing by default).
  virtual void prefetch_client_data(int /*client*/) const {}

 private:
  const Vec& reference_cached() const;

  template <class P>
  friend struct ProblemRegistrar;
  std::vector<DataFileRecord> data_files_;
    Index dim_x_ = 0, dim_y_ = 0;
  std::vector<Index> samples_per_client_;
  mutable std::once_flag constants_once_, reference_once_;
  mutable Constants constants_;
  mutable std::optional<Vec> reference_;
  mutable Vec z0_;
};

}  // namespace fedbench
