#include "problem/minimax_problem.hpp"

#include <cmath>

#include "core/error.hpp"

namespace fedbench {

double Constants::get(const std::string& name, const std::string& who) const {
  auto it = values.find(name);
  if (it == values.end())
    throw UserError(who + " needs the problem constant '" + name +
                    "', which this problem does not declare; set the parameter explicitly");
  return it->second;
}

void MinimaxProblem::set_shape(Index dim_x, Index dim_y, std::vector<Index> samples_per_client) {
  FEDBENCH_CHECK(dim_x >= 0 && dim_y >= 0 && dim_x + dim_y > 0, "problem dimension must be > 0");
  FEDBENCH_CHECK(!samples_per_client.empty(), "a problem needs at least one client");
  for (Index m : samples_per_client) FEDBENCH_CHECK(m > 0, "every client needs a sample");
  dim_x_ = dim_x;
  dim_y_ = dim_y;
  samples_per_client_ = std::move(samples_per_client);
}

const Constants& MinimaxProblem::constants() const {
  std::call_once(constants_once_, [this] { constants_ = compute_constants(); });
  return constants_;
}

void MinimaxProblem::check_call(int client, std::span<const Index> samples, const Vec& z,
                                const char* what) const {
  FEDBENCH_CHECK(client >= 0 && client < num_clients(), std::string(what) + ": bad client id");
  FEDBENCH_CHECK(z.size() == dim(), std::string(what) + ": z has the wrong dimension");
  for (Index j : samples)
    FEDBENCH_CHECK(j >= 0 && j < samples_per_client_[client],
                   std::string(what) + ": sample index out of range");
}

void MinimaxProblem::op(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                        OracleCounts& counts) const {
  check_call(client, samples, z, "op");
  const Index b = batch_size(client, samples);
  counts.add(OracleKind::grad_x, b);
  ++counts.calls[static_cast<int>(OracleKind::grad_y)];  // one pass serves both blocks
  out.resize(dim());
  do_op(client, samples, z, out);
}

void MinimaxProblem::grad_x(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                            OracleCounts& counts) const {
  check_call(client, samples, z, "grad_x");
  counts.add(OracleKind::grad_x, batch_size(client, samples));
  out.resize(dim_x());
  do_grad_x(client, samples, z, out);
}

void MinimaxProblem::grad_y(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                            OracleCounts& counts) const {
  check_call(client, samples, z, "grad_y");
  counts.add(OracleKind::grad_y, batch_size(client, samples));
  out.resize(dim_y());
  do_grad_y(client, samples, z, out);
}

double MinimaxProblem::value(int client, std::span<const Index> samples, const Vec& z,
                             OracleCounts& counts) const {
  check_call(client, samples, z, "value");
  counts.add(OracleKind::value, batch_size(client, samples));
  return do_value(client, samples, z);
}

void MinimaxProblem::do_grad_x(int client, std::span<const Index> samples, const Vec& z,
                               Vec& out) const {
  thread_local Vec full;  // the round loop must not allocate: reused per thread
  full.resize(dim());
  do_op(client, samples, z, full);
  out = full.head(dim_x());
}

void MinimaxProblem::do_grad_y(int client, std::span<const Index> samples, const Vec& z,
                               Vec& out) const {
  thread_local Vec full;
  full.resize(dim());
  do_op(client, samples, z, full);
  out = -full.tail(dim_y());  // the operator carries -grad_y
}

void MinimaxProblem::global_op(const Vec& z, Vec& out) const {
  out.setZero(dim());
  Vec tmp(dim());
  for (int i = 0; i < num_clients(); ++i) {
    do_op(i, {}, z, tmp);
    out += tmp;
  }
  out /= static_cast<double>(num_clients());
}

double MinimaxProblem::global_value(const Vec& z) const {
  double s = 0;
  for (int i = 0; i < num_clients(); ++i) s += do_value(i, {}, z);
  return s / num_clients();
}

const Vec& MinimaxProblem::reference_cached() const {
  std::call_once(reference_once_, [this] {
    reference_ = reference_solution();
    z0_ = initial_point();
  });
  static const Vec empty;
  return reference_ ? *reference_ : empty;
}

std::vector<std::string> MinimaxProblem::metric_names() const {
  std::vector<std::string> names;
  reference_cached();
  if (reference_) names.push_back("rel_error");
  names.push_back("op_norm");
  for (auto& n : extra_metric_names()) names.push_back(std::move(n));
  return names;
}

std::string MinimaxProblem::primary_metric() const {
  if (auto preferred = preferred_metric(); !preferred.empty()) return preferred;
  reference_cached();
  return reference_ ? "rel_error" : "op_norm";
}

void MinimaxProblem::metrics(const Vec& z, std::span<double> out) const {
  const Vec& ref = reference_cached();
  std::size_t k = 0;
  if (reference_) {
    const double denom = (z0_ - ref).squaredNorm();
    out[k++] = (z - ref).squaredNorm() / (denom > 0 ? denom : 1.0);
  }
  Vec f;
  global_op(z, f);
  out[k++] = f.norm();
  extra_metrics(z, out.subspan(k));
}

}  // namespace fedbench
