#include "problem/bilevel_problem.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "problem/evaluation_threads.hpp"

namespace fedbench {

void BilevelProblem::set_bilevel_shape(Index dim_x, Index dim_y, std::vector<Index> lower_samples,
                                       std::vector<Index> upper_samples) {
  FEDBENCH_CHECK(lower_samples.size() == upper_samples.size(),
                 "bilevel problem: one upper and one lower sample count per client");
  for (Index n : upper_samples) FEDBENCH_CHECK(n > 0, "every client needs an upper-level sample");
  set_shape(dim_x, dim_y, std::move(lower_samples));
  upper_samples_ = std::move(upper_samples);
}

// ---- counted oracles: check, count, forward.
void BilevelProblem::upper_grad_x(int client, std::span<const Index> samples, const Vec& z,
                                  Vec& out, OracleCounts& counts) const {
  check_call(client, samples, upper_samples_[client], z, "upper_grad_x");
  counts.add(OracleKind::grad_x, upper_batch(client, samples));
  out.resize(dim_x());
  do_upper_grad_x(client, samples, z, out);
}

void BilevelProblem::upper_grad_y(int client, std::span<const Index> samples, const Vec& z,
                                  Vec& out, OracleCounts& counts) const {
  check_call(client, samples, upper_samples_[client], z, "upper_grad_y");
  counts.add(OracleKind::grad_y, upper_batch(client, samples));
  out.resize(dim_y());
  do_upper_grad_y(client, samples, z, out);
}

void BilevelProblem::lower_grad_x(int client, std::span<const Index> samples, const Vec& z,
                                  Vec& out, OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "lower_grad_x");
  counts.add(OracleKind::grad_x, lower_batch(client, samples));
  out.resize(dim_x());
  do_lower_grad_x(client, samples, z, out);
}

void BilevelProblem::lower_grad_y(int client, std::span<const Index> samples, const Vec& z,
                                  Vec& out, OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "lower_grad_y");
  counts.add(OracleKind::grad_y, lower_batch(client, samples));
  out.resize(dim_y());
  do_lower_grad_y(client, samples, z, out);
}

void BilevelProblem::lower_hvp(int client, std::span<const Index> samples, const Vec& z,
                               const Vec& v, Vec& out, OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "lower_hvp");
  FEDBENCH_CHECK(v.size() == dim_y(), "lower_hvp: v must have dim_y entries");
  counts.add(OracleKind::hvp, lower_batch(client, samples));
  out.resize(dim_y());
  do_lower_hvp(client, samples, z, v, out);
}

void BilevelProblem::lower_jvp(int client, std::span<const Index> samples, const Vec& z,
                               const Vec& v, Vec& out, OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "lower_jvp");
  FEDBENCH_CHECK(v.size() == dim_y(), "lower_jvp: v must have dim_y entries");
  counts.add(OracleKind::jvp, lower_batch(client, samples));
  out.resize(dim_x());
  do_lower_jvp(client, samples, z, v, out);
}

double BilevelProblem::upper_value(int client, std::span<const Index> samples, const Vec& z,
                                   OracleCounts& counts) const {
  check_call(client, samples, upper_samples_[client], z, "upper_value");
  counts.add(OracleKind::value, upper_batch(client, samples));
  return do_upper_value(client, samples, z);
}

double BilevelProblem::lower_value(int client, std::span<const Index> samples, const Vec& z,
                                   OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "lower_value");
  counts.add(OracleKind::value, lower_batch(client, samples));
  return do_lower_value(client, samples, z);
}

// ---- exact reference.
// The averages over clients below add the clients' parts in client order, and a client's row
// blocks in block order (evaluation_threads.hpp): the same bits with any number of evaluation
// threads.
namespace {
using fedbench::add_part;  // numbers and vectors; the parts of two quantities below
struct ValueAndGrad {
  double value;
  Vec grad;
};
void add_part(ValueAndGrad& total, const ValueAndGrad& part) {
  total.value += part.value;
  total.grad += part.grad;
}
struct UpperGrads {
  Vec y, x;
};
void add_part(UpperGrads& total, const UpperGrads& part) {
  total.y += part.y;
  total.x += part.x;
}
void divide(double& total, double n) { total /= n; }
void divide(Vec& total, double n) { total /= n; }
void divide(ValueAndGrad& total, double n) {
  total.value /= n;
  total.grad /= n;
}
void divide(UpperGrads& total, double n) {
  total.y /= n;
  total.x /= n;
}

//! The mean over clients of their parts: whole(i, slot) for a client of one block, else the
//! sums block(i, b, slot) of its blocks added in order from `zero` and made its part by
//! finish(i, sum). With one block everywhere: the plain loop over the full-batch oracles.
template <class Slot, class Blocks, class Whole, class Block, class Finish>
Slot mean_over_clients(int clients, const Slot& zero, Blocks&& blocks, Whole&& whole, Block&& block,
                       Finish&& finish) {
  Slot total = zero, client = zero;
  fold_blocks_in_order(
      clients, blocks, zero,
      [&](int i, int b, Slot& slot) {
        if (blocks(i) == 1) {
          whole(i, slot);
        } else {
          block(i, b, slot);
        }
      },
      [&](int i, int b, Slot& slot) {
        const int n = blocks(i);
        if (n == 1) {
          add_part(total, slot);
          return;
        }
        if (b == 0) client = zero;
        add_part(client, slot);
        if (b + 1 < n) return;
        finish(i, client);
        add_part(total, client);
      });
  divide(total, static_cast<double>(clients));
  return total;
}
}  // namespace

double BilevelProblem::global_upper_value(const Vec& z) const {
  return mean_over_clients(
      num_clients(), 0.0, [&](int i) { return upper_row_blocks(i); },
      [&](int i, double& part) { part = do_upper_value(i, {}, z); },
      [&](int i, int b, double& part) { part = do_upper_block_value(i, b, z); },
      [&](int i, double& sum) { sum /= static_cast<double>(num_upper_samples(i)); });
}

double BilevelProblem::global_lower_value(const Vec& z) const {
  return mean_over_clients(
      num_clients(), 0.0, [&](int i) { return lower_row_blocks(i); },
      [&](int i, double& part) { part = do_lower_value(i, {}, z); },
      [&](int i, int b, double& part) { part = do_lower_block_value(i, b, z); },
      [&](int i, double& sum) {
        sum = sum / static_cast<double>(num_samples(i)) + lower_client_terms(i, z);
      });
}

void BilevelProblem::global_lower_grad_y(const Vec& z, Vec& out) const {
  out = mean_over_clients(
      num_clients(), Vec(Vec::Zero(dim_y())), [&](int i) { return lower_row_blocks(i); },
      [&](int i, Vec& part) { do_lower_grad_y(i, {}, z, part); },
      [&](int i, int b, Vec& part) { do_lower_block_grad_y(i, b, z, part); },
      [&](int i, Vec& sum) {
        sum /= static_cast<double>(num_samples(i));
        add_lower_client_terms_grad_y(i, z, sum);
      });
}

double BilevelProblem::global_lower_value_and_grad_y(const Vec& z, Vec& grad) const {
  ValueAndGrad mean = mean_over_clients(
      num_clients(), ValueAndGrad{0.0, Vec(Vec::Zero(dim_y()))}, [&](int i) { return lower_row_blocks(i); },
      [&](int i, ValueAndGrad& part) { part.value = do_lower_value_and_grad_y(i, z, part.grad); },
      [&](int i, int b, ValueAndGrad& part) {
        part.value = do_lower_block_value_and_grad_y(i, b, z, part.grad);
      },
      [&](int i, ValueAndGrad& sum) {
        const double n = static_cast<double>(num_samples(i));
        sum.grad /= n;
        add_lower_client_terms_grad_y(i, z, sum.grad);
        sum.value = sum.value / n + lower_client_terms(i, z);
      });
  grad = std::move(mean.grad);
  return mean.value;
}

double BilevelProblem::do_lower_value_and_grad_y(int client, const Vec& z, Vec& grad) const {
  grad.resize(dim_y());
  do_lower_grad_y(client, {}, z, grad);
  return do_lower_value(client, {}, z);
}

void BilevelProblem::global_lower_hvp(const Vec& z, const Vec& v, Vec& out) const {
  out = mean_over_clients(
      num_clients(), Vec(Vec::Zero(dim_y())), [&](int i) { return lower_row_blocks(i); },
      [&](int i, Vec& part) { do_lower_hvp(i, {}, z, v, part); },
      [&](int i, int b, Vec& part) { do_lower_block_hvp(i, b, z, v, part); },
      [&](int i, Vec& sum) {
        sum /= static_cast<double>(num_samples(i));
        add_lower_client_terms_hvp(i, z, v, sum);
      });
}

// Row blocks are opt-in: a problem that declares them overrides these.
namespace {
[[noreturn]] void missing_block_kernel(const char* kernel) {
  throw InternalError(std::string("bilevel problem: row blocks declared without ") + kernel);
}
}  // namespace
double BilevelProblem::do_upper_block_value(int, int, const Vec&) const {
  missing_block_kernel("do_upper_block_value");
}
void BilevelProblem::do_upper_block_grad_y(int, int, const Vec&, Vec&) const {
  missing_block_kernel("do_upper_block_grad_y");
}
double BilevelProblem::do_lower_block_value(int, int, const Vec&) const {
  missing_block_kernel("do_lower_block_value");
}
void BilevelProblem::do_lower_block_grad_y(int, int, const Vec&, Vec&) const {
  missing_block_kernel("do_lower_block_grad_y");
}
void BilevelProblem::do_lower_block_hvp(int, int, const Vec&, const Vec&, Vec&) const {
  missing_block_kernel("do_lower_block_hvp");
}
double BilevelProblem::do_lower_block_value_and_grad_y(int client, int block, const Vec& z, Vec& grad) const {
  grad.resize(dim_y());
  do_lower_block_grad_y(client, block, z, grad);
  return do_lower_block_value(client, block, z);
}

Vec BilevelProblem::with_y(const Vec& z, const Vec& y) const {
  Vec w = z;
  w.tail(dim_y()) = y;
  return w;
}

std::unique_ptr<LowerHessianFactor> BilevelProblem::factor_lower_hessian(const Vec& z) const {
  Mat hessian;
  if (!lower_hessian(z, hessian)) return nullptr;
  return DenseCholeskyFactor::of(hessian);
}

Vec BilevelProblem::solve_lower_hessian(const Vec& z, const Vec& rhs, double relative_residual,
                                        const Vec* start) const {
  if (const auto factor = factor_lower_hessian(z)) return factor->solve(rhs);
  // Conjugate gradients on the SPD Hessian of the averaged lower level, preconditioned where
  // the problem offers an approximate inverse. The stopping test is on the system's own
  // residual, so a warm start or a preconditioner changes the work, not the accuracy asked for.
  const auto preconditioner = lower_hessian_preconditioner(z);
  const bool warm = start && start->size() == dim_y() && start->allFinite();
  Vec v = warm ? *start : Vec::Zero(dim_y()), Hp(dim_y());
  Vec r = rhs;
  if (warm) {
    global_lower_hvp(z, v, Hp);
    r -= Hp;
  }
  Vec p = preconditioner ? preconditioner->solve(r) : r;
  double rr = r.squaredNorm();
  double rs = preconditioner ? r.dot(p) : rr;  // r^T M^-1 r (M = I without a preconditioner)
  const double stop = relative_residual * relative_residual * std::max(rhs.squaredNorm(), 1e-300);
  for (Index k = 0; k < 10 * dim_y() + 100 && rr > stop; ++k) {
    global_lower_hvp(z, p, Hp);
    const double pHp = p.dot(Hp);
    if (!(pHp > 0)) break;  // not SPD along p (numerically): keep what we have
    const double a = rs / pHp;
    v += a * p;
    r -= a * Hp;
    rr = r.squaredNorm();
    if (!preconditioner) {
      p = r + (rr / rs) * p;
      rs = rr;
      continue;
    }
    const Vec s = preconditioner->solve(r);
    const double rs_next = r.dot(s);
    p = s + (rs_next / rs) * p;
    rs = rs_next;
  }
  return v;
}

Vec BilevelProblem::lower_solution(const Vec& x, const Vec& y_start) const {
  {
    std::lock_guard<std::mutex> lock(last_solve_mutex_);
    if (last_x_.size() == x.size() && last_y_start_.size() == y_start.size() && last_x_ == x &&
        last_y_start_ == y_start)
      return last_y_star_;
  }
  Vec y_star = solve_lower(x, y_start);  // deterministic: a cache hit gives the same bits
  std::lock_guard<std::mutex> lock(last_solve_mutex_);
  last_x_ = x;
  last_y_start_ = y_start;
  last_y_star_ = y_star;
  return y_star;
}

namespace {
// One run's previous exact solves: consecutive evaluations see nearby x, so they start the next
// solves close to their answers.
struct BilevelMetricState : MetricState {
  Vec x, y_start, y_star;  // the last y*(x) asked for, by its request
  Vec hessian_solution;    // the last solve of the hypergradient's linear system
};
}  // namespace

double BilevelProblem::lower_grad_norm(const Vec& x, const Vec& y) const {
  Vec z(dim()), grad(dim_y());
  z << x, y;
  global_lower_grad_y(z, grad);
  return grad.norm();
}

Vec BilevelProblem::lower_solution(const Vec& x, const Vec& y_start, MetricState* state) const {
  auto* warm = dynamic_cast<BilevelMetricState*>(state);
  if (!warm) return lower_solution(x, y_start);
  if (warm->x.size() == x.size() && warm->x == x && warm->y_start == y_start) return warm->y_star;
  Vec start = y_start;
  if (warm->y_star.size() == dim_y() && warm->y_star.allFinite() &&
      lower_grad_norm(x, warm->y_star) < lower_grad_norm(x, y_start))
    start = warm->y_star;
  warm->y_star = solve_lower(x, start);
  warm->x = x;
  warm->y_start = y_start;
  return warm->y_star;
}

Vec BilevelProblem::solve_lower(const Vec& x, const Vec& y_start) const {
  // Inexact damped Newton: CG solves each Newton system to the relative residual
  // min(0.1, ||grad|| / scale) (Eisenstat-Walker forcing, which keeps the local convergence
  // quadratic while early, far-off steps take a few CG iterations instead of a full solve),
  // with Armijo backtracking on g(x, .), which is strongly convex. Near y* the decrease of g
  // falls below the rounding of its value; there a step is accepted when it shrinks the
  // gradient instead, and when no step does, y is as good as double precision allows.
  // Where the problem factors its Hessian, one factor serves several steps: it is renewed
  // only after a step that shrank the gradient less than 4x (chord steps converge
  // linearly, at a rate set by how far the Hessian moved since the factor).
  Vec z(dim());
  z.head(dim_x()) = x;
  z.tail(dim_y()) = y_start;
  Vec grad(dim_y()), trial_grad(dim_y());
  double value = global_lower_value_and_grad_y(z, grad);
  const double scale = 1.0 + grad.norm();
  std::unique_ptr<LowerHessianFactor> factor;
  bool renew = true;
  for (int it = 0; it < 100 && grad.norm() > 1e-14 * scale; ++it) {
    if (renew) {
      factor = factor_lower_hessian(z);
      renew = false;
    }
    const double forcing = std::max(1e-13, std::min(0.1, grad.norm() / scale));
    const Vec step = factor ? Vec(factor->solve(grad)) : solve_lower_hessian(z, grad, forcing);
    const double g0 = value, slope = grad.dot(step);
    const double rounding = 64 * std::numeric_limits<double>::epsilon() * (1 + std::abs(g0));
    Vec trial = z;
    bool accepted = false;
    double g = g0;
    for (double t = 1.0; t > 1e-18 && !accepted; t *= 0.5) {
      trial.tail(dim_y()) = z.tail(dim_y()) - t * step;
      // The full step is accepted almost always: one pass for its value and gradient.
      const bool full_step = t == 1.0;
      g = full_step ? global_lower_value_and_grad_y(trial, trial_grad) : global_lower_value(trial);
      const bool armijo = g <= g0 - 1e-4 * t * slope;
      if (!armijo && g - g0 > rounding) continue;  // a real increase: halve without a gradient
      if (!full_step) global_lower_grad_y(trial, trial_grad);
      accepted = armijo || trial_grad.norm() < grad.norm();
    }
    if (!accepted) break;
    renew = factor && trial_grad.norm() > 0.25 * grad.norm();
    z = trial;
    grad = trial_grad;
    value = g;
  }
  return z.tail(dim_y());
}

void BilevelProblem::global_upper_grads(const Vec& z, Vec& fy, Vec& fx) const {
  // grad_x f stays per client (no rows in it where clients are split): a split client's comes
  // with its first block's part, its other blocks add zeros.
  UpperGrads f = mean_over_clients(
      num_clients(), UpperGrads{Vec(Vec::Zero(dim_y())), Vec(Vec::Zero(dim_x()))},
      [&](int i) { return upper_row_blocks(i); },
      [&](int i, UpperGrads& part) {
        do_upper_grad_y(i, {}, z, part.y);
        do_upper_grad_x(i, {}, z, part.x);
      },
      [&](int i, int b, UpperGrads& part) {
        do_upper_block_grad_y(i, b, z, part.y);
        if (b == 0) {
          do_upper_grad_x(i, {}, z, part.x);
        } else {
          part.x.setZero();
        }
      },
      [&](int i, UpperGrads& sum) { sum.y /= static_cast<double>(num_upper_samples(i)); });
  fy = std::move(f.y);
  fx = std::move(f.x);
}

Vec BilevelProblem::hypergradient_with(const Vec& z, const Vec& fx, const Vec& v) const {
  const Vec jv = sum_clients_in_order(num_clients(), Vec(Vec::Zero(dim_x())),
                                      [&](int i, Vec& part) { do_lower_jvp(i, {}, z, v, part); });
  return fx - jv / static_cast<double>(num_clients());
}

Vec BilevelProblem::hypergradient(const Vec& x, const Vec& y_star, Vec* warm) const {
  Vec z(dim());
  z.head(dim_x()) = x;
  z.tail(dim_y()) = y_star;
  Vec fy, fx;
  global_upper_grads(z, fy, fx);
  const Vec v = solve_lower_hessian(z, fy, 1e-13, warm);
  if (warm) *warm = v;
  return hypergradient_with(z, fx, v);
}

double BilevelProblem::neumann_ratio(const Vec& z, double theta, int terms, MetricState* state) const {
  auto* warm = dynamic_cast<BilevelMetricState*>(state);
  const Vec x = z.head(dim_x());
  const Vec z_star = with_y(z, lower_solution(x, z.tail(dim_y()), state));
  Vec fy, fx;
  global_upper_grads(z_star, fy, fx);
  // The metric row's solve of this same system starts CG at its answer: no iteration repeated.
  const Vec exact = hypergradient_with(z_star, fx, solve_lower_hessian(z_star, fy, 1e-13,
                                                                        warm ? &warm->hessian_solution : nullptr));
  Vec term = fy, series = fy, h_term(dim_y());
  for (int j = 1; j < terms; ++j) {
    global_lower_hvp(z_star, term, h_term);
    term -= theta * h_term;
    series += term;
  }
  series *= theta;
  const Vec truncated = hypergradient_with(z_star, fx, series);
  const double norm2 = exact.squaredNorm();
  if (norm2 == 0) return truncated.squaredNorm() == 0 ? 1.0 : std::numeric_limits<double>::quiet_NaN();
  return truncated.dot(exact) / norm2;
}

std::vector<std::string> BilevelProblem::core_metric_names() const {
  std::vector<std::string> names{"upper_value", "hyper_objective", "hypergrad_norm", "lower_gap"};
  for (auto& n : solution_metric_names()) names.push_back(std::move(n));
  return names;
}

std::unique_ptr<MetricState> BilevelProblem::make_metric_state() const {
  return std::make_unique<BilevelMetricState>();
}

void BilevelProblem::core_metrics(const Vec& z, std::span<double> out, MetricState* state) const {
  auto* warm = dynamic_cast<BilevelMetricState*>(state);
  const Vec x = z.head(dim_x());
  const Vec y_star = lower_solution(x, z.tail(dim_y()), state);
  const Vec z_star = with_y(z, y_star);
  out[0] = global_upper_value(z);
  out[1] = global_upper_value(z_star);
  out[2] = hypergradient(x, y_star, warm ? &warm->hessian_solution : nullptr).norm();
  out[3] = global_lower_value(z) - global_lower_value(z_star);
  solution_metrics(z, y_star, out.subspan(4));
}

}  // namespace fedbench
