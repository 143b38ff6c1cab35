#include "problem/minimax_problem.hpp"

#include "core/error.hpp"
#include "problem/evaluation_threads.hpp"

namespace fedbench {

void MinimaxProblem::op(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                        OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "op");
  const Index b = batch_size(client, samples);
  counts.add(OracleKind::grad_x, b);
  ++counts.calls[static_cast<int>(OracleKind::grad_y)];  // one pass serves both blocks
  out.resize(dim());
  do_op(client, samples, z, out);
}

void MinimaxProblem::grad_x(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                            OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "grad_x");
  counts.add(OracleKind::grad_x, batch_size(client, samples));
  out.resize(dim_x());
  do_grad_x(client, samples, z, out);
}

void MinimaxProblem::grad_y(int client, std::span<const Index> samples, const Vec& z, Vec& out,
                            OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "grad_y");
  counts.add(OracleKind::grad_y, batch_size(client, samples));
  out.resize(dim_y());
  do_grad_y(client, samples, z, out);
}

double MinimaxProblem::value(int client, std::span<const Index> samples, const Vec& z,
                             OracleCounts& counts) const {
  check_call(client, samples, num_samples(client), z, "value");
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

// Client parts added in client order (evaluation_threads.hpp): the same bits with any number
// of evaluation threads.
void MinimaxProblem::global_op(const Vec& z, Vec& out) const {
  out = sum_clients_in_order(num_clients(), Vec(Vec::Zero(dim())),
                             [&](int i, Vec& part) { do_op(i, {}, z, part); });
  out /= static_cast<double>(num_clients());
}

double MinimaxProblem::global_value(const Vec& z) const {
  return sum_clients_in_order(num_clients(), 0.0, [&](int i, double& part) { part = do_value(i, {}, z); }) /
         num_clients();
}

void MinimaxProblem::core_metrics(const Vec& z, std::span<double> out, MetricState* /*state*/) const {
  Vec f;
  global_op(z, f);
  out[0] = f.norm();
}

}  // namespace fedbench
