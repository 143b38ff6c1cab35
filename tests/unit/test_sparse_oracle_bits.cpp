// The sparse oracles of hyper-logreg and auc give the same bits as a dense computation written
// here from the instance file's layout (`fedbench instance`: dense rows, every feature visited,
// plain std::exp per class, the mean always divided): zeros add nothing, x / 1 is x and
// exp(0) is 1, so the fast paths (fixed-size kernels, no log in gradients, e^x kept per thread,
// no division at batch 1) must agree to the last bit, at one sample, a minibatch with repeats
// and the full batch, on points whose x alternate (hits and misses of the e^x cache).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/random.hpp"
#include "problems/common/softmax_rows.hpp"
#include "support/instance_arrays.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

bool same_bits(const Vec& a, const Vec& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

//! Minibatches of a client: the full batch (empty), one sample, ten with repeats.
std::vector<std::vector<Index>> batches(Index m, Stream& rng) {
  std::vector<Index> ten(10);
  for (auto& j : ten) j = static_cast<Index>(rng.below(static_cast<std::uint64_t>(m)));
  ten[3] = ten[7];
  return {{}, {m - 1}, ten};
}

//! hyper-logreg as the instance file describes it, computed densely.
struct DenseLogreg {
  Mat X;
  Vec labels;
  Index d, c, classes, dim_x;
  double reg_scale;

  std::vector<double> logits(Index r, const double* w) const {
    std::vector<double> l(static_cast<std::size_t>(classes), 0.0);
    for (Index q = 0; q < d; ++q)
      for (Index k = 0; k < c; ++k) l[static_cast<std::size_t>(classes - c + k)] += X(r, q) * w[q * c + k];
    return l;
  }
  std::vector<double> probabilities(Index r, const double* y) const {
    auto l = logits(r, y);
    const double top = *std::max_element(l.begin(), l.end());
    double norm = 0;
    for (double& v : l) norm += (v = std::exp(v - top));
    for (double& v : l) v *= 1.0 / norm;
    return l;
  }
  void add_outer(Index r, const std::vector<double>& p, Vec& out) const {
    for (Index q = 0; q < d; ++q)
      for (Index k = 0; k < c; ++k) out(q * c + k) += X(r, q) * p[static_cast<std::size_t>(classes - c + k)];
  }
  double ex(const Vec& z, Index q) const { return std::exp(z(dim_x == 1 ? 0 : q)); }
  void add_regularizer(const Vec& z, const double* u, Vec& out) const {
    for (Index q = 0; q < d; ++q)
      for (Index k = 0; k < c; ++k) out(q * c + k) += 2 * reg_scale * ex(z, q) * u[q * c + k];
  }
  Vec grad_y(const std::vector<Index>& rows, const Vec& z, bool lower) const {
    Vec out = Vec::Zero(d * c);
    for (Index r : rows) {
      auto p = probabilities(r, z.data() + dim_x);
      p[static_cast<std::size_t>(labels(r))] -= 1.0;
      add_outer(r, p, out);
    }
    out /= static_cast<double>(rows.size());
    if (lower) add_regularizer(z, z.data() + dim_x, out);
    return out;
  }
  Vec hvp(const std::vector<Index>& rows, const Vec& z, const Vec& v) const {
    Vec out = Vec::Zero(d * c);
    for (Index r : rows) {
      const auto p = probabilities(r, z.data() + dim_x);
      auto dir = logits(r, v.data());
      double mean = 0;
      for (std::size_t k = 0; k < p.size(); ++k) mean += p[k] * dir[k];
      for (std::size_t k = 0; k < p.size(); ++k) dir[k] = p[k] * (dir[k] - mean);
      add_outer(r, dir, out);
    }
    out /= static_cast<double>(rows.size());
    add_regularizer(z, v.data(), out);
    return out;
  }
  double value(const std::vector<Index>& rows, const Vec& z, bool lower) const {
    double total = 0;
    for (Index r : rows) {
      const auto l = logits(r, z.data() + dim_x);
      const double top = *std::max_element(l.begin(), l.end());
      double norm = 0;
      for (double v : l) norm += std::exp(v - top);
      total += top + std::log(norm) - l[static_cast<std::size_t>(labels(r))];
    }
    if (!lower) return total / static_cast<double>(rows.size());
    const double* y = z.data() + dim_x;
    double reg = 0;
    for (Index q = 0; q < d; ++q) {
      double sq = 0;
      for (Index k = 0; k < c; ++k) sq += y[q * c + k] * y[q * c + k];
      reg += ex(z, q) * sq;
    }
    return total / static_cast<double>(rows.size()) + reg_scale * reg;
  }
  Vec grad_x(const Vec& z, const Vec* v) const {  // v: the mixed product, else grad_x g
    Vec out = Vec::Zero(dim_x);
    const double* y = z.data() + dim_x;
    for (Index q = 0; q < d; ++q) {
      double s = 0;
      for (Index k = 0; k < c; ++k) s += y[q * c + k] * (v ? (*v)(q * c + k) : y[q * c + k]);
      out(dim_x == 1 ? 0 : q) += (v ? 2 * reg_scale : reg_scale) * ex(z, q) * s;
    }
    return out;
  }
};

void check_hyper_logreg(const ParamMap& params) {
  const auto p = testing::bilevel_problem("hyper-logreg", params);
  testing::InstanceArrays inst;
  p->write_instance(inst);
  const DenseLogreg dense{inst.X.at("X"), inst.vectors.at("labels"), inst.X.at("X").cols(),
                          static_cast<Index>(inst.scalars.at("columns")), static_cast<Index>(inst.scalars.at("classes")),
                          p->dim_x(), inst.scalars.at("reg_scale")};
  Stream rng(11, "sparse-oracle-bits");
  std::vector<Vec> points;
  for (int k = 0; k < 3; ++k) {
    Vec z(p->dim());
    for (Index e = 0; e < z.size(); ++e) z(e) = 0.3 * rng.normal();
    points.push_back(z);
  }
  Vec v(p->dim_y());
  for (Index e = 0; e < v.size(); ++e) v(e) = rng.normal();
  OracleCounts counts;
  Vec out;
  for (int point : {0, 1, 0, 2, 1, 0}) {  // alternating x: the e^x cache hits and misses
    const Vec& z = points[static_cast<std::size_t>(point)];
    for (int i = 0; i < p->num_clients(); ++i) {
      const std::string client = "clients/" + std::to_string(i) + "/";
      const auto& train = inst.lists.at(client + "train_rows");
      const auto& validation = inst.lists.at(client + "validation_rows");
      for (const bool lower : {false, true}) {
        const auto& level = lower ? train : validation;
        for (const auto& s : batches(static_cast<Index>(level.size()), rng)) {
          std::vector<Index> rows;
          if (s.empty()) rows = level;
          for (Index j : s) rows.push_back(level[static_cast<std::size_t>(j)]);
          if (lower) p->lower_grad_y(i, s, z, out, counts);
          else p->upper_grad_y(i, s, z, out, counts);
          CHECK(same_bits(out, dense.grad_y(rows, z, lower)));
          const double value = lower ? p->lower_value(i, s, z, counts) : p->upper_value(i, s, z, counts);
          const double want = dense.value(rows, z, lower);
          CHECK(std::memcmp(&value, &want, sizeof value) == 0);
          if (!lower) continue;
          p->lower_hvp(i, s, z, v, out, counts);
          CHECK(same_bits(out, dense.hvp(rows, z, v)));
        }
      }
      p->lower_grad_x(i, {}, z, out, counts);
      CHECK(same_bits(out, dense.grad_x(z, nullptr)));
      p->lower_jvp(i, {}, z, v, out, counts);
      CHECK(same_bits(out, dense.grad_x(z, &v)));
    }
  }
}

}  // namespace

TEST_CASE("softmax: the probabilities of softmax_cross_entropy, without exp(0), bit for bit") {
  Stream rng(3, "softmax-bits");
  for (int trial = 0; trial < 2000; ++trial) {
    const Index classes = 1 + trial % 7;
    std::vector<double> logits(static_cast<std::size_t>(classes));
    for (double& l : logits) l = (trial % 3 == 0 ? 40.0 : 1.0) * rng.normal();
    if (classes > 2 && trial % 5 == 0) logits[1] = logits[0];  // tied maxima
    std::vector<double> fast = logits, loss = logits, plain = logits;
    problems::softmax(fast.data(), classes);
    problems::softmax_cross_entropy(loss.data(), classes, 0);
    const double top = *std::max_element(plain.begin(), plain.end());
    double norm = 0;
    for (double& v : plain) norm += (v = std::exp(v - top));
    for (double& v : plain) v *= 1.0 / norm;
    CHECK(std::memcmp(fast.data(), plain.data(), sizeof(double) * fast.size()) == 0);
    CHECK(std::memcmp(loss.data(), plain.data(), sizeof(double) * fast.size()) == 0);
  }
}

TEST_CASE("hyper-logreg: sparse oracles equal a dense computation bit for bit (binary, logistic, multiclass, scalar)") {
  check_hyper_logreg({{"dataset", "a1a"}, {"rows", "400"}, {"clients", "3"}});
  check_hyper_logreg({{"dataset", "a1a"}, {"rows", "400"}, {"clients", "2"}, {"model", "logistic"}});
  check_hyper_logreg({{"dataset", "satimage"}, {"rows", "200"}, {"clients", "2"}});
  check_hyper_logreg({{"dataset", "heart"}, {"clients", "2"}, {"hyperparameter", "scalar"}});
}

TEST_CASE("auc: the sparse operator equals a dense computation bit for bit") {
  for (const char* l2 : {"0", "0.01"}) {
    CAPTURE(l2);
    const auto p = testing::problem("auc", {{"dataset", "a1a"}, {"clients", "3"}, {"l2", l2}});
    testing::InstanceArrays inst;
    p->write_instance(inst);
    const Mat& X = inst.X.at("train/X");
    const Vec& y = inst.vectors.at("train/y");
    const double t = inst.scalars.at("tau"), ridge = inst.scalars.at("l2");
    const Index d = X.cols();
    Stream rng(5, "auc-bits");
    Vec z(p->dim()), out;
    for (Index e = 0; e < z.size(); ++e) z(e) = 0.2 * rng.normal();
    OracleCounts counts;
    for (int i = 0; i < p->num_clients(); ++i) {
      const auto& rows = inst.lists.at("clients/" + std::to_string(i) + "/rows");
      for (const auto& s : batches(static_cast<Index>(rows.size()), rng)) {
        Vec want = Vec::Zero(p->dim());
        const double a = z(d), b = z(d + 1), lambda = z(d + 2);
        Index n = 0;
        for (std::size_t j = 0; j < (s.empty() ? rows.size() : s.size()); ++j, ++n) {
          const Index r = rows[s.empty() ? j : static_cast<std::size_t>(s[j])];
          double h = 0;
          for (Index q = 0; q < d; ++q) h += X(r, q) * z(q);
          const bool pos = y(r) > 0;
          const double dh =
              pos ? 2 * (1 - t) * (h - a) - 2 * (1 + lambda) * (1 - t) : 2 * t * (h - b) + 2 * (1 + lambda) * t;
          for (Index q = 0; q < d; ++q) want(q) += dh * X(r, q);
          if (pos) want(d) += -2 * (1 - t) * (h - a);
          else want(d + 1) += -2 * t * (h - b);
          want(d + 2) -= 2 * (pos ? -(1 - t) * h : t * h) - 2 * t * (1 - t) * lambda;
        }
        want /= static_cast<double>(n);
        if (ridge > 0)
          for (Index q = 0; q < d; ++q) want(q) += ridge * z(q);
        p->op(i, s, z, out, counts);
        CHECK(same_bits(out, want));
      }
    }
  }
}
