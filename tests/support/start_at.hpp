// A test-only problem that forwards to another problem but starts at a chosen point (e.g. the
// exact solution, to test fixed points). Oracles go through the inner problem's public API
// with a scratch counter; the engine counts calls on this wrapper as usual.
#pragma once
#include <memory>

#include "problem/minimax_problem.hpp"

namespace fedbench::testing {

class StartAt : public MinimaxProblem {
 public:
  StartAt(std::shared_ptr<const MinimaxProblem> inner, Vec start)
      : inner_(std::move(inner)), start_(std::move(start)) {
    std::vector<Index> m;
    for (int i = 0; i < inner_->num_clients(); ++i) m.push_back(inner_->num_samples(i));
    set_shape(inner_->dim_x(), inner_->dim_y(), std::move(m));
  }
  std::string problem_class() const override { return inner_->problem_class(); }
  Vec initial_point() const override { return start_; }
  std::optional<Vec> reference_solution() const override { return inner_->reference_solution(); }

 protected:
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override {
    thread_local OracleCounts scratch;
    inner_->op(client, samples, z, out, scratch);
  }
  double do_value(int client, std::span<const Index> samples, const Vec& z) const override {
    thread_local OracleCounts scratch;
    return inner_->value(client, samples, z, scratch);
  }
  Constants compute_constants() const override {
    Constants k;
    const Constants& inner = inner_->constants();
    for (const auto& [name, value] : inner.values()) k.set(*constant_from_name(name), value, inner.docs().at(name));
    return k;
  }

 private:
  std::shared_ptr<const MinimaxProblem> inner_;
  Vec start_;
};

}  // namespace fedbench::testing
