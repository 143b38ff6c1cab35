// The federated bilevel problem family (Y. Zhang et al., IJCAI 2025, Section 3.1, eq. (1);
// F. Huang, arXiv 2211.01122, 2022, eq. (1)):
//   min_x F(x) = f(x, y*(x)),   y*(x) = argmin_y g(x, y),
//   f = (1/M) sum_i f_i (upper level), g = (1/M) sum_i g_i (lower level, strongly convex in y).
// z = (x, y) stacks the upper variable x and the lower variable y. Client i holds m_i lower
// components (training rows, num_samples) and n_i upper components (validation rows,
// num_upper_samples); f_i and g_i are the means over them.
//
// Counted oracles (the only way solvers see a problem): gradients of f_i and g_i in x and in y
// (counted as grad_x / grad_y calls: one kind per block, whichever level), values (value),
// Hessian-vector products grad^2_yy g_i v (hvp) and mixed products grad^2_xy g_i v (jvp).
//
// Exact reference, uncounted and independent of any solver's estimates: y*(x) by damped
// inexact Newton-CG on the averaged lower level, to ||grad_y g|| <= 1e-14 (1 + ||grad_y g(y0)||)
// or the rounding floor of double precision, whichever comes first;
// the hypergradient by the implicit-function theorem
//   grad F(x) = grad_x f(x, y*) - grad^2_xy g(x, y*) [grad^2_yy g(x, y*)]^-1 grad_y f(x, y*),
// with the linear solve by conjugate gradients (preconditioned where the problem offers an
// approximate inverse: lower_hessian_preconditioner), or by a factor of the Hessian where the
// problem offers one (factor_lower_hessian); metrics follow from them (our choice: the papers plot
// losses and accuracies only).
#pragma once
#include <memory>
#include <mutex>

#include "problem/lower_hessian_factor.hpp"
#include "problem/problem.hpp"

namespace fedbench {

class BilevelProblem : public Problem {
 public:
  ProblemKind kind() const final { return ProblemKind::bilevel; }

  //! Upper-level (validation) components of client i.
  Index num_upper_samples(int client) const { return upper_samples_[client]; }
  //! True when the lower level is the average of the clients' g_i (one y*(x) for all; eq. (1)
  //! of Zhang et al. 2025, the heterogeneous setting of FedNest, FedMBO and FedBiOAcc). Every
  //! problem here is.
  virtual bool lower_level_is_global() const { return true; }
  //! Blocks of client i's upper-level (validation) and lower-level (training) rows in the exact
  //! metrics (row blocks, below): 1 unless the problem splits its clients' rows.
  virtual int upper_row_blocks(int /*client*/) const { return 1; }
  virtual int lower_row_blocks(int /*client*/) const { return 1; }

  // ---- counted oracles; `samples` index the level's own components (empty: all of them).
  void upper_grad_x(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                    OracleCounts& counts) const;
  void upper_grad_y(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                    OracleCounts& counts) const;
  void lower_grad_x(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                    OracleCounts& counts) const;
  void lower_grad_y(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                    OracleCounts& counts) const;
  //! out = grad^2_yy g_i(z) v (v, out in R^dim_y).
  void lower_hvp(int client, std::span<const Index> samples, const Vec& z, const Vec& v,
                 Vec& out, OracleCounts& counts) const;
  //! out = grad^2_xy g_i(z) v (v in R^dim_y, out in R^dim_x).
  void lower_jvp(int client, std::span<const Index> samples, const Vec& z, const Vec& v,
                 Vec& out, OracleCounts& counts) const;
  double upper_value(int client, std::span<const Index> samples, const Vec& z,
                     OracleCounts& counts) const;
  double lower_value(int client, std::span<const Index> samples, const Vec& z,
                     OracleCounts& counts) const;

  // ---- exact reference (uncounted; full local batches averaged over clients).
  double global_upper_value(const Vec& z) const;
  double global_lower_value(const Vec& z) const;
  //! y*(x) to relative gradient norm 1e-14 (or the rounding floor), warm-started at y_start.
  Vec lower_solution(const Vec& x, const Vec& y_start) const;
  //! The same for a run's evaluation: the Newton solve starts at y_start or at the previous
  //! evaluation's y*, whichever has the smaller lower-level gradient, and the answer is kept
  //! in `state` (a repeated request, such as the final iterate's, is answered from it).
  Vec lower_solution(const Vec& x, const Vec& y_start, MetricState* state) const;
  //! grad F(x), given y_star = y*(x). `warm` (may be null or empty) starts the linear solve
  //! and receives its solution.
  Vec hypergradient(const Vec& x, const Vec& y_star, Vec* warm = nullptr) const;
  //! How much of the exact hypergradient h* a truncated Neumann series keeps: <h_Q, h*> / ||h*||^2
  //! at x (z's upper part) and y*(x), where h_Q replaces [grad^2_yy g]^-1 by
  //! theta sum_{j<Q} (I - theta H)^j with H the averaged lower Hessian at (x, y*(x)): the
  //! expectation of every Neumann estimator of the solvers here when their Hessian samples are
  //! unbiased for H (1 when the truncation loses nothing; the shortfall is the series' bias).
  //! `state` as for lower_solution (a metric row's y* and linear solve are reused).
  double neumann_ratio(const Vec& z, double theta, int terms, MetricState* state = nullptr) const;
  //! [grad^2_yy g(x, y)]^-1 rhs: a factorisation of the Hessian when the problem offers one
  //! (factor_lower_hessian), else conjugate gradients to the given relative residual of the system
  //! (||rhs - H v|| <= tol ||rhs||) from `start` (zero when null).
  Vec solve_lower_hessian(const Vec& z, const Vec& rhs, double relative_residual = 1e-13,
                          const Vec* start = nullptr) const;

  std::unique_ptr<MetricState> make_metric_state() const override;

 protected:
  BilevelProblem() = default;
  void set_bilevel_shape(Index dim_x, Index dim_y, std::vector<Index> lower_samples,
                         std::vector<Index> upper_samples);

  virtual void do_upper_grad_x(int client, std::span<const Index> samples, const Vec& z,
                               Vec& out) const = 0;
  virtual void do_upper_grad_y(int client, std::span<const Index> samples, const Vec& z,
                               Vec& out) const = 0;
  virtual void do_lower_grad_x(int client, std::span<const Index> samples, const Vec& z,
                               Vec& out) const = 0;
  virtual void do_lower_grad_y(int client, std::span<const Index> samples, const Vec& z,
                               Vec& out) const = 0;
  virtual void do_lower_hvp(int client, std::span<const Index> samples, const Vec& z,
                            const Vec& v, Vec& out) const = 0;
  virtual void do_lower_jvp(int client, std::span<const Index> samples, const Vec& z,
                            const Vec& v, Vec& out) const = 0;
  virtual double do_upper_value(int client, std::span<const Index> samples, const Vec& z) const = 0;
  virtual double do_lower_value(int client, std::span<const Index> samples, const Vec& z) const = 0;

  //! upper_value f(x, y) at the model; hyper_objective F(x) = f(x, y*(x)); hypergrad_norm
  //! ||grad F(x)||; lower_gap g(x, y) - g(x, y*(x)); then the problem's solution metrics.
  std::vector<std::string> core_metric_names() const final;
  void core_metrics(const Vec& z, std::span<double> out, MetricState* state) const final;
  //! A problem's own metrics, given the exact y*(x) of the model's x (solved once per
  //! evaluation for all metrics): test accuracy of y*(x), of the model's y, ...
  virtual std::vector<std::string> solution_metric_names() const { return {}; }
  virtual void solution_metrics(const Vec& /*z*/, const Vec& /*y_star*/, std::span<double> /*out*/) const {}
  std::string preferred_metric() const override { return "hypergrad_norm"; }

  //! z with the same x and y replaced (a helper for problems' own metrics).
  Vec with_y(const Vec& z, const Vec& y) const;

  // ---- optional speed hooks (besides Problem's prefetch_client_data): a problem may leave
  // them alone; overriding one makes the same quantities cheaper to compute. Warm starts
  // between a run's evaluations (make_metric_state) are kept by this family for every problem.
  //! g_i and grad_y g_i over the client's whole lower batch, bit for bit equal to the two calls
  //! (the default makes them); a problem may share its per-row work between the two.
  virtual double do_lower_value_and_grad_y(int client, const Vec& z, Vec& grad) const;
  //! The dense Hessian grad^2_yy g(z) of the averaged lower level, when the problem can build
  //! it for less than a few dozen Hessian-vector products (small dim_y, sparse rows): the
  //! exact solves then factor it instead of running conjugate gradients. False: not offered.
  //! Unlike the other hooks not bit-neutral: the factored and the CG solve agree to the solve's
  //! tolerance, not to the last bit.
  virtual bool lower_hessian(const Vec& /*z*/, Mat& /*hessian*/) const { return false; }
  //! A factor of grad^2_yy g(z) for the exact solves; null: none (conjugate gradients). By
  //! default the Cholesky factor of lower_hessian(z) where the problem builds it; a problem
  //! whose Hessian has structure that a dense factor would not use may factor it its own way
  //! (not bit-neutral either: solves agree to rounding).
  virtual std::unique_ptr<LowerHessianFactor> factor_lower_hessian(const Vec& z) const;
  //! An approximate inverse of grad^2_yy g(z) (its solve applies it) that the conjugate-gradient
  //! solves precondition with, where no factor is offered; null: plain conjugate gradients.
  //! The solves stop on the same residual test, so it changes their work, not the accuracy
  //! asked for; not bit-neutral (the iterates differ within that tolerance).
  virtual std::unique_ptr<LowerHessianFactor> lower_hessian_preconditioner(const Vec& /*z*/) const {
    return nullptr;
  }

  // ---- row blocks of the exact metrics (optional). An evaluation's parts are its clients'
  // full batches, so a few large clients leave evaluation threads idle. A problem whose f_i
  // and g_i are means over the client's rows (g_i plus terms without rows: a regulariser) may
  // split every client's rows into blocks of a fixed number of rows, never the thread count
  // (upper_row_blocks, lower_row_blocks). A client of several blocks contributes (1/n_i) times
  // the sum of its block sums, added in block order, plus its terms without rows; a client of
  // one block is computed by the full-batch do_* oracles, so problems that do not opt in keep
  // their bits. grad_x f and the mixed products (jvp) stay per client: a problem opts in where
  // they are cheap (hyper-logreg's have no rows).
  //! Sums over block b of client i's rows of the row terms alone: no mean, no regulariser
  //! (called only where the level has more than one block).
  virtual double do_upper_block_value(int client, int block, const Vec& z) const;
  virtual void do_upper_block_grad_y(int client, int block, const Vec& z, Vec& out) const;
  virtual double do_lower_block_value(int client, int block, const Vec& z) const;
  virtual void do_lower_block_grad_y(int client, int block, const Vec& z, Vec& out) const;
  virtual void do_lower_block_hvp(int client, int block, const Vec& z, const Vec& v, Vec& out) const;
  //! Both sums of one block, bit for bit the two calls (the default makes them).
  virtual double do_lower_block_value_and_grad_y(int client, int block, const Vec& z, Vec& grad) const;
  //! g_i's terms without rows, added to the mean of a client's blocks: the value, its gradient
  //! in y and its Hessian in y times v (each added to `out`).
  virtual double lower_client_terms(int /*client*/, const Vec& /*z*/) const { return 0; }
  virtual void add_lower_client_terms_grad_y(int /*client*/, const Vec& /*z*/, Vec& /*out*/) const {}
  virtual void add_lower_client_terms_hvp(int /*client*/, const Vec& /*z*/, const Vec& /*v*/,
                                          Vec& /*out*/) const {}

 private:
  Index lower_batch(int client, std::span<const Index> s) const {
    return s.empty() ? num_samples(client) : static_cast<Index>(s.size());
  }
  Index upper_batch(int client, std::span<const Index> s) const {
    return s.empty() ? upper_samples_[client] : static_cast<Index>(s.size());
  }
  void global_lower_grad_y(const Vec& z, Vec& out) const;
  double global_lower_value_and_grad_y(const Vec& z, Vec& grad) const;
  void global_lower_hvp(const Vec& z, const Vec& v, Vec& out) const;

  Vec solve_lower(const Vec& x, const Vec& y_start) const;
  //! grad_y f and grad_x f at z, means over the clients of the full local batches.
  void global_upper_grads(const Vec& z, Vec& fy, Vec& fx) const;
  //! grad_x f - grad^2_xy g v (the hypergradient's shape, for any v approximating H^-1 grad_y f).
  Vec hypergradient_with(const Vec& z, const Vec& fx, const Vec& v) const;
  double lower_grad_norm(const Vec& x, const Vec& y) const;

  std::vector<Index> upper_samples_;
  // The last solve, by its inputs: a run's final iterate asks again for the y*(x) that its
  // last metric row just solved (same x, same start, so the same bits).
  mutable std::mutex last_solve_mutex_;
  mutable Vec last_x_, last_y_start_, last_y_star_;
};

}  // namespace fedbench
