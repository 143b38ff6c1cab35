// Sparse stochastic oracles on a9a (123 features, about 14 nonzeros a row) against a bare
// loop over the rows' nonzeros. The bare loop draws the same rows from the same stream and
// writes the same dense vector, in the same order of operations (checked bit for bit before
// timing), with nothing around it: no layers, no checks, no counts. Each case times chunks of
// oracle calls and bare calls in turn and prints ns per sample of both and their ratio
// (bare / oracle: the oracle's share of the bare loop's throughput).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "core/random.hpp"
#include "datasets/libsvm.hpp"
#include "engine/context.hpp"
#include "problem/instance_writer.hpp"
#include "problem/problem_registry.hpp"

using namespace fedbench;

namespace {

//! The arrays a problem writes for `fedbench instance`, kept in memory: the bare loops read
//! the same rows, labels and client lists as the oracles.
struct Captured final : InstanceWriter {
  std::map<std::string, datasets::CsrMatrix> csrs;
  std::map<std::string, Vec> vectors;
  std::map<std::string, std::vector<Index>> lists;
  std::map<std::string, double> scalars;
  void matrix(const std::string&, const Mat&, const std::string&) override {}
  void vector(const std::string& path, const Vec& v, const std::string&) override { vectors[path] = v; }
  void indices(const std::string& path, const std::vector<Index>& v, const std::string&) override {
    lists[path] = v;
  }
  void csr(const std::string& path, Index rows, Index cols, const std::vector<std::int32_t>& indptr,
           const std::vector<std::int32_t>& indices, const std::vector<double>& data,
           const std::string&) override {
    csrs[path] = {rows, cols, indptr, indices, data};
  }
  void scalar(const std::string& path, double value, const std::string&) override { scalars[path] = value; }
  void text(const std::string&, const std::string&, const std::string&) override {}
};

constexpr std::uint64_t kSeed = 7;
constexpr int kClient = 0;

//! Uniform draws with replacement, keyed as the engine's oracles key theirs (round 0).
struct Draws {
  std::uint64_t purpose;
  std::uint64_t m;
  std::int64_t next = 0;
  Stream batch() { return Stream(StreamKey{kSeed, purpose, kClient, 0, next++}); }
};

//! c = 2 softmax cross-entropy of hyper-logreg: grad_y over a minibatch of client rows, y
//! feature-major (two entries per feature), plus (2/(cd)) e^x y when `reg` (lower level).
struct BareSoftmax {
  const datasets::CsrMatrix* X;
  const std::vector<Index>* rows;
  const Vec* labels;
  Draws draws;
  double reg_scale = 0;
  Vec reg_weight;  // 2/(cd) e^{x_q}, for the lower level; empty for the upper

  void operator()(int batch, const Vec& z, Vec& out) {
    const double* y = z.data() + (z.size() - out.size());
    out.setZero();
    Stream s = draws.batch();
    for (int b = 0; b < batch; ++b) {
      const Index row = (*rows)[static_cast<std::size_t>(s.below(draws.m))];
      double l0 = 0, l1 = 0;
      for (std::int32_t e = X->row_start[row]; e < X->row_start[row + 1]; ++e) {
        const double a = X->val[e];
        const double* yq = y + 2 * Index{X->col[e]};
        l0 += a * yq[0];
        l1 += a * yq[1];
      }
      const double top = l1 > l0 ? l1 : l0;
      double p0 = l0 == top ? 1.0 : std::exp(l0 - top), p1 = l1 == top ? 1.0 : std::exp(l1 - top);
      const double inverse = 1.0 / (p0 + p1);
      p0 *= inverse;
      p1 *= inverse;
      (labels->coeff(row) == 0 ? p0 : p1) -= 1.0;
      for (std::int32_t e = X->row_start[row]; e < X->row_start[row + 1]; ++e) {
        const double a = X->val[e];
        double* oq = out.data() + 2 * Index{X->col[e]};
        oq[0] += a * p0;
        oq[1] += a * p1;
      }
    }
    if (batch > 1) out /= static_cast<double>(batch);
    for (Index k = 0; k < reg_weight.size(); ++k) {
      out(2 * k) += reg_weight(k) * y[2 * k];
      out(2 * k + 1) += reg_weight(k) * y[2 * k + 1];
    }
  }
};

//! The square-loss AUC operator of `auc` (tau, no l2): z = (w, a, b, lambda).
struct BareAuc {
  const datasets::CsrMatrix* X;
  const std::vector<Index>* rows;
  const Vec* labels;
  Draws draws;
  double tau = 0;

  void operator()(int batch, const Vec& z, Vec& out) {
    const Index p = X->cols;
    const double a = z(p), b = z(p + 1), lambda = z(p + 2), t = tau;
    out.setZero();
    Stream s = draws.batch();
    for (int k = 0; k < batch; ++k) {
      const Index row = (*rows)[static_cast<std::size_t>(s.below(draws.m))];
      double h = 0;
      for (std::int32_t e = X->row_start[row]; e < X->row_start[row + 1]; ++e) h += X->val[e] * z(X->col[e]);
      const bool pos = labels->coeff(row) > 0;
      const double dh = pos ? 2 * (1 - t) * (h - a) - 2 * (1 + lambda) * (1 - t) : 2 * t * (h - b) + 2 * (1 + lambda) * t;
      for (std::int32_t e = X->row_start[row]; e < X->row_start[row + 1]; ++e) out(X->col[e]) += dh * X->val[e];
      if (pos) out(p) += -2 * (1 - t) * (h - a);
      else out(p + 1) += -2 * t * (h - b);
      out(p + 2) -= 2 * (pos ? -(1 - t) * h : t * h) - 2 * t * (1 - t) * lambda;
    }
    if (batch > 1) out /= static_cast<double>(batch);
  }
};

//! One problem per (name, parameters), built once per process.
std::shared_ptr<const Problem> instance(const std::string& name, const ParamMap& params) {
  static std::map<std::pair<std::string, ParamMap>, std::shared_ptr<const Problem>> cache;
  auto& p = cache[{name, params}];
  if (!p) p = std::shared_ptr<const Problem>(make_problem(name, params));
  return p;
}

//! A point with O(0.1) entries, so that logits and scores are not degenerate.
Vec test_point(Index dim) {
  Stream s(kSeed, "bench-point");
  Vec z(dim);
  for (Index k = 0; k < dim; ++k) z(k) = 0.1 * s.normal();
  return z;
}

//! Times `oracle(batch, z, out)` and `bare(batch, z, out)` in alternating chunks after checking
//! that, from fresh streams, both give the same bits.
template <class MakeOracle, class MakeBare>
void versus_bare(benchmark::State& state, MakeOracle make_oracle, MakeBare make_bare, Index out_dim, const Vec& z) {
  const int batch = static_cast<int>(state.range(0));
  {
    auto oracle = make_oracle();
    auto bare = make_bare();
    Vec a(out_dim), b(out_dim);
    for (int k = 0; k < 256; ++k) {
      oracle(batch, z, a);
      bare(batch, z, b);
      if (std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(out_dim)) != 0) {
        state.SkipWithError("the bare loop and the oracle give different bits");
        return;
      }
    }
  }
  auto oracle = make_oracle();
  auto bare = make_bare();
  Vec a(out_dim), b(out_dim);
  using clock = std::chrono::steady_clock;
  constexpr int kChunk = 512;
  double oracle_s = 0, bare_s = 0;
  for (auto _ : state) {
    const auto t0 = clock::now();
    for (int k = 0; k < kChunk; ++k) {
      oracle(batch, z, a);
      benchmark::DoNotOptimize(a.data());
    }
    const auto t1 = clock::now();
    for (int k = 0; k < kChunk; ++k) {
      bare(batch, z, b);
      benchmark::DoNotOptimize(b.data());
    }
    const auto t2 = clock::now();
    const double o = std::chrono::duration<double>(t1 - t0).count(), r = std::chrono::duration<double>(t2 - t1).count();
    oracle_s += o;
    bare_s += r;
    state.SetIterationTime(o);
  }
  const double samples = static_cast<double>(state.iterations()) * kChunk * batch;
  state.counters["ns/sample"] = 1e9 * oracle_s / samples;
  state.counters["bare_ns/sample"] = 1e9 * bare_s / samples;
  state.counters["bare/oracle"] = bare_s / oracle_s;
}

void hyper_logreg(benchmark::State& state, bool lower) {
  const auto problem = instance("hyper-logreg", {{"dataset", "a9a"}});
  const auto& bilevel = dynamic_cast<const BilevelProblem&>(*problem);
  Captured data;
  problem->write_instance(data);
  const std::string level = lower ? "train_rows" : "validation_rows";
  const auto* rows = &data.lists.at("clients/0/" + level);
  const Vec z = test_point(problem->dim());
  OracleCounts counts;
  auto make_oracle = [&] {
    return [o = BilevelOracle(bilevel, kClient, counts, kSeed), lower](int batch, const Vec& zz, Vec& out) mutable {
      if (lower) o.lower_grad_y(o.draw_lower(batch), zz, out);
      else o.upper_grad_y(o.draw_upper(batch), zz, out);
    };
  };
  auto make_bare = [&] {
    BareSoftmax bare{&data.csrs.at("X"), rows, &data.vectors.at("labels"),
                     {hash_name(lower ? "oracle-batch-lower" : "oracle-batch-upper"), rows->size()}, 0, Vec()};
    if (lower) {  // x is fixed here, so e^x once (std::exp: Eigen's vector exp has other bits)
      bare.reg_weight.resize(problem->dim_x());
      for (Index q = 0; q < problem->dim_x(); ++q) bare.reg_weight(q) = 2 * data.scalars.at("reg_scale") * std::exp(z(q));
    }
    return bare;
  };
  if (data.scalars.at("columns") != 2) state.SkipWithError("the bare loop is written for c = 2");
  else versus_bare(state, make_oracle, make_bare, problem->dim_y(), z);
}

void auc_a9a_op(benchmark::State& state) {
  const auto problem = instance("auc", {{"dataset", "a9a"}});
  const auto& minimax = dynamic_cast<const MinimaxProblem&>(*problem);
  Captured data;
  problem->write_instance(data);
  const auto* rows = &data.lists.at("clients/0/rows");
  const Vec z = test_point(problem->dim());
  OracleCounts counts;
  auto make_oracle = [&] {
    return [o = ClientOracle(minimax, kClient, counts, kSeed)](int batch, const Vec& zz, Vec& out) mutable {
      o.op(zz, out, batch);
    };
  };
  auto make_bare = [&] {
    return BareAuc{&data.csrs.at("train/X"), rows, &data.vectors.at("train/y"),
                   {hash_name("oracle-batch"), rows->size()}, data.scalars.at("tau")};
  };
  if (data.scalars.at("l2") != 0) state.SkipWithError("the bare loop is written for l2 = 0");
  else versus_bare(state, make_oracle, make_bare, problem->dim(), z);
}

}  // namespace

// upper: grad_y of the validation cross-entropy (the data term alone); lower: grad_y of the
// training cross-entropy plus the regulariser (the bare loop's e^x computed once: x is fixed).
BENCHMARK_CAPTURE(hyper_logreg, a9a_upper_grad_y, false)->Arg(1)->Arg(10)->UseManualTime();
BENCHMARK_CAPTURE(hyper_logreg, a9a_lower_grad_y, true)->Arg(1)->Arg(10)->UseManualTime();
BENCHMARK(auc_a9a_op)->Arg(1)->Arg(10)->UseManualTime();
