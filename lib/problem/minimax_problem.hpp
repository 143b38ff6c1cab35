// The federated minimax / variational-inequality problem interface.
//
// A problem is min_x max_y (1/M) sum_i f_i(x, y) over M clients, client i holding m_i
// component functions f_i = (1/m_i) sum_j f_ij. z = (x, y) stacks both players; the operator
// is F(z) = (grad_x f, -grad_y f) (the VIP operator of a minimax problem), so that a descent
// step z - gamma F(z) is a gradient descent-ascent step.
//
// Problem files implement only the math (protected do_* methods, IOHprofiler-style); the
// public, non-virtual methods check shapes, count every call in the caller's OracleCounts and
// forward. Metrics use the uncounted internals: evaluation is not the solver's work.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "problem/oracle_counts.hpp"

namespace fedbench {

//! Known constants of a problem instance: name -> value, with how each was computed.
struct Constants {
  std::map<std::string, double> values;
  std::map<std::string, std::string> docs;

  void set(const std::string& name, double value, std::string doc) {
    values[name] = value;
    docs[name] = std::move(doc);
  }
  bool has(const std::string& name) const { return values.count(name) > 0; }
  //! Throws UserError naming the constant and `who` needs it (a theory preset, usually).
  double get(const std::string& name, const std::string& who) const;
};

//! How labelled data is spread over the clients (stored with every run).
struct ClientLabels {
  std::vector<double> classes;                    //!< sorted label values
  std::vector<std::vector<std::int64_t>> counts;  //!< clients x classes
};

class MinimaxProblem {
 public:
  virtual ~MinimaxProblem() = default;

  int num_clients() const { return static_cast<int>(samples_per_client_.size()); }
  Index dim_x() const { return dim_x_; }
  Index dim_y() const { return dim_y_; }
  Index dim() const { return dim_x_ + dim_y_; }
  Index num_samples(int client) const { return samples_per_client_[client]; }

  //! Problem class as the papers name it: "SC-SC", "NC-SC", "monotone", ...
  virtual std::string problem_class() const = 0;
  //! Start point z0 (zeros unless the problem says otherwise).
  virtual Vec initial_point() const { return Vec::Zero(dim()); }
  //! The exact solution z*, when one is known (closed form or a high-accuracy solve).
  virtual std::optional<Vec> reference_solution() const { return std::nullopt; }
  //! Euclidean projection onto the feasible set (identity when unconstrained).
  virtual void project(Vec& /*z*/) const {}

  //! Label histogram per client, for problems built on labelled data split by a partitioner.
  virtual std::optional<ClientLabels> client_labels() const { return std::nullopt; }

  //! Constants (mu, L, cocoercivity, ...), computed once on first use and cached.
  const Constants& constants() const;

  // ---- counted oracles. `samples` lists component indices of this client (repeats allowed:
  // sampling with replacement); an empty span means the full local batch.
  //! out = (grad_x f_i, -grad_y f_i) at z; counts one grad_x and one grad_y call.
  void op(int client, std::span<const Index> samples, const Vec& z, Vec& out,
          OracleCounts& counts) const;
  //! out = grad_x f_i at z (size dim_x); counts one grad_x call.
  void grad_x(int client, std::span<const Index> samples, const Vec& z, Vec& out,
              OracleCounts& counts) const;
  //! out = grad_y f_i at z (size dim_y; the ascent direction); counts one grad_y call.
  void grad_y(int client, std::span<const Index> samples, const Vec& z, Vec& out,
              OracleCounts& counts) const;
  //! f_i at z; counts one value call.
  double value(int client, std::span<const Index> samples, const Vec& z,
               OracleCounts& counts) const;

  // ---- uncounted global quantities, for metrics and tests.
  //! F(z) = (1/M) sum_i f_i-operator(z), each client averaged over its full local batch.
  void global_op(const Vec& z, Vec& out) const;
  double global_value(const Vec& z) const;

  // ---- metrics recorded on the evaluation schedule.
  //! Column names, fixed for the instance. The base gives rel_error (when z* is known) and
  //! op_norm; problems append their own through extra_metric_names / extra_metrics.
  std::vector<std::string> metric_names() const;
  //! Writes metric values in metric_names() order into out (size metric_names().size()).
  void metrics(const Vec& z, std::span<double> out) const;
  //! The metric used for divergence detection and as the default target ("rel_error").
  std::string primary_metric() const;

 protected:
  MinimaxProblem() = default;
  //! Called by the concrete constructor once the shape is known.
  void set_shape(Index dim_x, Index dim_y, std::vector<Index> samples_per_client);

  virtual void do_op(int client, std::span<const Index> samples, const Vec& z,
                     Vec& out) const = 0;
  virtual double do_value(int client, std::span<const Index> samples, const Vec& z) const = 0;
  //! Defaults slice do_op; override when a block alone is cheaper.
  virtual void do_grad_x(int client, std::span<const Index> samples, const Vec& z,
                         Vec& out) const;
  virtual void do_grad_y(int client, std::span<const Index> samples, const Vec& z,
                         Vec& out) const;
  virtual Constants compute_constants() const { return {}; }
  virtual std::vector<std::string> extra_metric_names() const { return {}; }
  //! The primary metric when rel_error / op_norm are not the right one (e.g. a duality gap
  //! under constraints); must be one of metric_names(). Empty: the default rule.
  virtual std::string preferred_metric() const { return {}; }
  virtual void extra_metrics(const Vec& /*z*/, std::span<double> /*out*/) const {}

 private:
  void check_call(int client, std::span<const Index> samples, const Vec& z,
                  const char* what) const;
  Index batch_size(int client, std::span<const Index> samples) const {
    return samples.empty() ? samples_per_client_[client] : static_cast<Index>(samples.size());
  }
  const Vec& reference_cached() const;

  Index dim_x_ = 0, dim_y_ = 0;
  std::vector<Index> samples_per_client_;
  mutable std::once_flag constants_once_, reference_once_;
  mutable Constants constants_;
  mutable std::optional<Vec> reference_;
  mutable Vec z0_;
};

}  // namespace fedbench
