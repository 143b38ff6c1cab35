// The federated minimax / variational-inequality problem family.
//
// A problem is min_x max_y (1/M) sum_i f_i(x, y) over M clients, client i holding m_i
// component functions f_i = (1/m_i) sum_j f_ij. z = (x, y) stacks both players; the operator
// is F(z) = (grad_x f, -grad_y f) (the VIP operator of a minimax problem), so that a descent
// step z - gamma F(z) is a gradient descent-ascent step. Shape, constants, metrics and the
// registry live in the base (problem/problem.hpp).
#pragma once
#include "problem/problem.hpp"

namespace fedbench {

class MinimaxProblem : public Problem {
 public:
  ProblemKind kind() const final { return ProblemKind::minimax; }

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

 protected:
  MinimaxProblem() = default;

  virtual void do_op(int client, std::span<const Index> samples, const Vec& z,
                     Vec& out) const = 0;
  virtual double do_value(int client, std::span<const Index> samples, const Vec& z) const = 0;
  //! Defaults slice do_op; override when a block alone is cheaper.
  virtual void do_grad_x(int client, std::span<const Index> samples, const Vec& z,
                         Vec& out) const;
  virtual void do_grad_y(int client, std::span<const Index> samples, const Vec& z,
                         Vec& out) const;
  //! op_norm = ||F(z)||.
  std::vector<std::string> core_metric_names() const override { return {"op_norm"}; }
  void core_metrics(const Vec& z, std::span<double> out, MetricState* state) const override;

 private:
  Index batch_size(int client, std::span<const Index> samples) const {
    return samples.empty() ? num_samples(client) : static_cast<Index>(samples.size());
  }
};

}  // namespace fedbench
