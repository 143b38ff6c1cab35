// Hyperparameter optimisation of L2-regularised logistic regression with one regularisation
// weight per feature, of
//   Y. Zhang, R. Dhaipule, C. C. Tan, H. Ling, H. Gao, "Federated Stochastic Bilevel
//   Optimization with Fully First-Order Gradients", IJCAI 2025 (seed 003), eq. (12);
//   spec 003 §3.1 (problem, data protocol), §4.3 (reference numbers), §6.1 (exact solution).
//
//   upper  f_i(x, y) = (1/m_v^i) sum_{validation rows of i} CE(y^T a, b)       (no x: grad_x f = 0)
//   lower  g_i(x, y) = (1/m_t^i) sum_{training rows of i}   CE(y^T a, b) + R(x, y),
//          R(x, y)   = (1/(c d)) sum_q exp(x_q) sum_k y_{q,k}^2,
// x in R^d (one hyperparameter per feature, shared by the classes), y in R^{d x c} stored
// feature-major (y_{q,k} at q*c + k, so a sparse row touches contiguous blocks). CE is the
// multinomial cross-entropy on the logits y^T a; features carry no bias column (spec §3.1).
// Resolved (spec §3.1): R is normalised by 1/(cd) with no 1/2, as eq. (12) prints it (seed
// 004 §6.1's (1/2) sum exp(x_q) y_q^2 is a different scaling; the §4.3 numbers use eq. 12).
// Resolved (A9): binary data default to c = 2 softmax (labels -1/+1 -> classes 0/1);
// `model = logistic` is the c = 1 sigmoid option (class 0's logit fixed at 0, y in R^d, R
// normalised by 1/d). Multiclass data use c = classes (the covtype reading of §3.1).
// Resolved (data): only the dataset's main file (`file`) is split, as the text implies: a
// seeded `test_fraction` (10%) is the test set, `validation_fraction` (30%) of the rest the
// upper-level rows, the rest the lower-level rows; each set is spread over the clients by the
// partitioner (the paper: iid over 8 workers). ijcnn1 ships only its `validation` file here.
// Constants are x-dependent: the lower level is (2/(cd)) min_q exp(x_q)-strongly convex in y;
// mu_g and the smoothness bound are declared at x0 = 0 (the initial point).
// Metrics: test accuracy and loss of y*(x) (Newton from the model's y), test accuracy of y.
#include <algorithm>
#include <atomic>
#include <cmath>

#include "core/error.hpp"
#include "core/random.hpp"
#include "datasets/partition.hpp"
#include "datasets/registry.hpp"
#include "datasets/train_test.hpp"
#include "problem/problem_registry.hpp"
#include "problems/client_rows.hpp"

namespace fedbench::problems {

class HyperLogreg : public BilevelProblem {
 public:
  struct Params {
    std::string dataset, file, model, partition;
    int clients;
    std::int64_t rows, partition_seed;
    double test_fraction, validation_fraction;
  };
  static void declare(Schema<Params>& s) {
    s.text("dataset", &Params::dataset, "a9a", "registered dataset (fedbench data list)")
        .text("file", &Params::file, "train", "the dataset's file that is split (ijcnn1 here: validation)")
        .integer("rows", &Params::rows, "0", {.ge = 0}, "use this many seeded random rows of the file (0: all)")
        .real("test_fraction", &Params::test_fraction, "0.1", {.ge = 0, .lt = 1}, "held-out test rows (spec: 10%)")
        .real("validation_fraction", &Params::validation_fraction, "0.3", {.gt = 0, .lt = 1},
              "of the other rows, upper-level validation rows (spec: 30%); the rest train")
        .choice("model", &Params::model, "softmax", {"softmax", "logistic"},
                "softmax: c = classes columns; logistic: c = 1 sigmoid (binary data)")
        .integer("clients", &Params::clients, "8", {.ge = 1}, "N, clients (spec: 8)")
        .text("partition", &Params::partition, "iid", "iid | shards:S | dirichlet:A | quantity:A")
        .integer("partition_seed", &Params::partition_seed, "0", {.ge = 0}, "seed of split and partition");
  }

  explicit HyperLogreg(const Params& p) {
    const auto& info = datasets::dataset_info(p.dataset);
    if (info.classes < 2)
      throw UserError("problem hyper-logreg: dataset " + p.dataset + " is not labelled; choose a classification set");
    if (p.model == "logistic" && info.classes != 2)
      throw UserError("problem hyper-logreg: model = logistic needs a binary dataset, " + p.dataset + " has " +
                      std::to_string(info.classes) + " classes; use model=softmax");
    classes_ = info.classes;
    columns_ = p.model == "logistic" ? 1 : classes_;
    const std::uint64_t seed = static_cast<std::uint64_t>(p.partition_seed);
    const datasets::Split split = load(info, p, seed);
    d_ = X_.cols;
    reg_scale_ = 1.0 / static_cast<double>(columns_ * d_);

    const auto scheme = datasets::PartitionScheme::parse(p.partition);
    train_ = spread(split.train, p.clients, scheme, seed);
    validation_ = spread(split.validation, p.clients, scheme, seed + 1);
    test_rows_ = split.test;
    store_by_client();
    std::vector<Index> lower, upper;
    for (int i = 0; i < p.clients; ++i) {
      lower.push_back(static_cast<Index>(train_[i].size()));
      upper.push_back(static_cast<Index>(validation_[i].size()));
    }
    set_bilevel_shape(d_, d_ * columns_, lower, upper);
  }

  std::string problem_class() const override {
    return "bilevel: UL nonconvex in x, LL strongly convex in y (modulus (2/(cd)) min_q exp(x_q))";
  }
  std::optional<ClientLabels> client_labels() const override {
    return client_label_histograms(train_, labels_);  // of the lower-level (training) rows
  }

 protected:
  void do_upper_grad_x(int, std::span<const Index>, const Vec&, Vec& out) const override {
    out.setZero();  // f has no x (spec §3.1: u1 = 0)
  }
  void do_upper_grad_y(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    out.setZero();
    const Index n = for_each_row(validation_[i], s, [&](Index row) { add_loss_gradient(row, y_of(z), out); });
    out /= static_cast<double>(n);
  }
  void do_lower_grad_x(int, std::span<const Index>, const Vec& z, Vec& out) const override {
    const double* y = y_of(z);
    for (Index q = 0; q < d_; ++q) {  // grad_x R = (1/(cd)) e^x . rowsumsq(y); data-free
      double sq = 0;
      for (Index k = 0; k < columns_; ++k) sq += y[q * columns_ + k] * y[q * columns_ + k];
      out(q) = reg_scale_ * std::exp(z(q)) * sq;
    }
  }
  void do_lower_grad_y(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    out.setZero();
    const double* y = y_of(z);
    const Index n = for_each_row(train_[i], s, [&](Index row) { add_loss_gradient(row, y, out); });
    out /= static_cast<double>(n);
    for (Index q = 0; q < d_; ++q) {  // grad_y R = (2/(cd)) diag(e^x) y
      const double w = 2 * reg_scale_ * std::exp(z(q));
      for (Index k = 0; k < columns_; ++k) out(q * columns_ + k) += w * y[q * columns_ + k];
    }
  }
  void do_lower_hvp(int i, std::span<const Index> s, const Vec& z, const Vec& v, Vec& out) const override {
    out.setZero();
    Scratch& sc = scratch(classes_);
    const auto add_row = [&](Index row, const double* prob) {
      // grad^2 CE[V] = a (pi . V^T a - pi (pi^T V^T a))^T on the free columns (spec §3.1)
      row_logits(row, v.data(), sc.direction.data());
      double mean = 0;
      for (Index c = 0; c < classes_; ++c) mean += prob[c] * sc.direction[c];
      for (Index c = 0; c < classes_; ++c) sc.direction[c] = prob[c] * (sc.direction[c] - mean);
      add_row_outer(row, sc.direction.data(), out);
    };
    const auto& rows = train_[i];
    if (s.empty()) {
      const double* prob = full_batch_probabilities(i, z);
      for (std::size_t j = 0; j < rows.size(); ++j) add_row(rows[j], prob + j * static_cast<std::size_t>(classes_));
    } else {
      for (Index j : s) {
        row_loss(rows[j], y_of(z), sc.prob.data());
        add_row(rows[j], sc.prob.data());
      }
    }
    out /= static_cast<double>(s.empty() ? rows.size() : s.size());
    for (Index q = 0; q < d_; ++q) {
      const double w = 2 * reg_scale_ * std::exp(z(q));
      for (Index k = 0; k < columns_; ++k) out(q * columns_ + k) += w * v(q * columns_ + k);
    }
  }
  void do_lower_jvp(int, std::span<const Index>, const Vec& z, const Vec& v, Vec& out) const override {
    const double* y = y_of(z);
    for (Index q = 0; q < d_; ++q) {  // grad^2_xy R[V] = (2/(cd)) e^x . rowsum(y . V)
      double dot = 0;
      for (Index k = 0; k < columns_; ++k) dot += y[q * columns_ + k] * v(q * columns_ + k);
      out(q) = 2 * reg_scale_ * std::exp(z(q)) * dot;
    }
  }
  double do_upper_value(int i, std::span<const Index> s, const Vec& z) const override {
    return mean_loss(validation_[i], s, y_of(z));
  }
  double do_lower_value(int i, std::span<const Index> s, const Vec& z) const override {
    const double* y = y_of(z);
    double reg = 0;
    for (Index q = 0; q < d_; ++q) {
      double sq = 0;
      for (Index k = 0; k < columns_; ++k) sq += y[q * columns_ + k] * y[q * columns_ + k];
      reg += std::exp(z(q)) * sq;
    }
    return mean_loss(train_[i], s, y) + reg_scale_ * reg;
  }

  Constants compute_constants() const override {
    Constants k;
    double row_norm_max = 0;
    for (const auto& client : train_)
      for (Index row : client) {
        double sq = 0;
        for (std::int32_t e = X_.row_start[row]; e < X_.row_start[row + 1]; ++e) sq += X_.val[e] * X_.val[e];
        row_norm_max = std::max(row_norm_max, sq);
      }
    // lambda_max(diag(pi) - pi pi^T) <= 1/2 (softmax), pi(1 - pi) <= 1/4 (logistic)
    const double curvature = columns_ == 1 ? 0.25 : 0.5;
    k.set("mu_g", 2 * reg_scale_, "(2/(cd)) min_q exp(x_q) at x0 = 0: strong convexity of g in y (x-dependent)");
    k.set("lipschitz_g_client_max", curvature * row_norm_max + 2 * reg_scale_,
          "bound at x0 = 0 on the smoothness of g_i in y: max_j ||a_j||^2 / 2 (1/4 logistic) + 2/(cd)");
    double train_rows = 0, validation_rows = 0;
    for (int i = 0; i < num_clients(); ++i) {
      train_rows += static_cast<double>(num_samples(i));
      validation_rows += static_cast<double>(num_upper_samples(i));
    }
    k.set("classes", static_cast<double>(classes_), "c of the data (the model has c columns, or 1 for logistic)");
    k.set("train_rows", train_rows, "lower-level rows over all clients");
    k.set("validation_rows", validation_rows, "upper-level rows over all clients");
    return k;
  }

  std::vector<std::string> solution_metric_names() const override {
    if (test_rows_.empty()) return {};
    return {"test_accuracy", "test_loss", "model_test_accuracy"};
  }
  void solution_metrics(const Vec& z, const Vec& y_star, std::span<double> out) const override {
    if (test_rows_.empty()) return;
    double loss = 0;
    out[0] = test_accuracy(y_star.data(), &loss);
    out[1] = loss;
    out[2] = test_accuracy(y_of(z), nullptr);
  }

 private:
  struct Scratch {
    std::vector<double> prob, direction;  // size c
  };
  static Scratch& scratch(Index classes) {
    thread_local Scratch s;
    s.prob.resize(static_cast<std::size_t>(classes));
    s.direction.resize(static_cast<std::size_t>(classes));
    return s;
  }
  const double* y_of(const Vec& z) const { return z.data() + d_; }
  Index label(Index row) const { return static_cast<Index>(labels_[row]); }
  //! Class of the model's first column (1 for logistic: class 0's logit is fixed at 0).
  Index first_free() const { return classes_ - columns_; }

  // Newton-CG and the hypergradient's CG apply a client's full-batch Hessian many times at
  // one z: its rows' softmax probabilities are kept per thread for the last such z.
  struct HessianCache {
    std::uint64_t instance = 0;
    Vec z;
    std::vector<double> prob;  // training rows x c
  };
  const double* full_batch_probabilities(int i, const Vec& z) const {
    thread_local std::vector<HessianCache> caches;
    caches.resize(std::max(caches.size(), train_.size()));
    HessianCache& cache = caches[static_cast<std::size_t>(i)];
    if (cache.instance == instance_ && cache.z.size() == z.size() && cache.z == z) return cache.prob.data();
    cache.instance = instance_;
    cache.z = z;
    cache.prob.resize(train_[i].size() * static_cast<std::size_t>(classes_));
    for (std::size_t j = 0; j < train_[i].size(); ++j)
      row_loss(train_[i][j], y_of(z), cache.prob.data() + j * static_cast<std::size_t>(classes_));
    return cache.prob.data();
  }

  // Row kernels on raw arrays: the hot path of every oracle (c is small, often 2).
  //! logits[c] = (w^T a)_c of a row for a y-shaped w (0 for a fixed reference class).
  void row_logits(Index row, const double* w, double* logits) const {
    std::fill(logits, logits + classes_, 0.0);
    double* __restrict free = logits + first_free();
    for (std::int32_t e = X_.row_start[row]; e < X_.row_start[row + 1]; ++e) {
      const double a = X_.val[e];
      const double* __restrict wq = w + Index{X_.col[e]} * columns_;
      for (Index k = 0; k < columns_; ++k) free[k] += a * wq[k];
    }
  }
  //! out += a r^T of a row on the free columns (r indexed by class).
  void add_row_outer(Index row, const double* r, Vec& out) const {
    const double* free = r + first_free();
    for (std::int32_t e = X_.row_start[row]; e < X_.row_start[row + 1]; ++e) {
      const double a = X_.val[e];
      double* oq = out.data() + Index{X_.col[e]} * columns_;
      for (Index k = 0; k < columns_; ++k) oq[k] += a * free[k];
    }
  }
  //! Softmax probabilities of a row in prob (size c); returns CE at the row's label.
  double row_loss(Index row, const double* y, double* prob) const {
    row_logits(row, y, prob);
    const double label_logit = prob[label(row)];
    const double top = *std::max_element(prob, prob + classes_);
    double norm = 0;
    for (Index c = 0; c < classes_; ++c) norm += (prob[c] = std::exp(prob[c] - top));
    const double inverse = 1.0 / norm;
    for (Index c = 0; c < classes_; ++c) prob[c] *= inverse;
    return top + std::log(norm) - label_logit;
  }

  //! out += grad_y CE of a row = a (pi - e_b)^T on the free columns.
  void add_loss_gradient(Index row, const double* y, Vec& out) const {
    double* prob = scratch(classes_).prob.data();
    row_loss(row, y, prob);
    prob[label(row)] -= 1.0;
    add_row_outer(row, prob, out);
  }

  double mean_loss(const std::vector<Index>& rows, std::span<const Index> s, const double* y) const {
    double* prob = scratch(classes_).prob.data();
    double total = 0;
    const Index n = for_each_row(rows, s, [&](Index row) { total += row_loss(row, y, prob); });
    return total / static_cast<double>(n);
  }

  double test_accuracy(const double* y, double* loss) const {
    double* prob = scratch(classes_).prob.data();
    double right = 0, total = 0;
    for (Index row : test_rows_) {
      total += row_loss(row, y, prob);
      right += std::max_element(prob, prob + classes_) - prob == label(row);
    }
    const double n = static_cast<double>(test_rows_.size());
    if (loss) *loss = total / n;
    return right / n;
  }

  //! Reads the file, keeps `rows` seeded random rows, and splits test / validation / train.
  datasets::Split load(const datasets::DatasetInfo& info, const Params& p, std::uint64_t seed) {
    auto data = datasets::load_data(p.dataset, p.file);
    if (p.rows > data.X.rows)
      throw UserError("problem hyper-logreg: rows = " + std::to_string(p.rows) + " but " + p.dataset +
                      " (" + p.file + ") has " + std::to_string(data.X.rows) + "; lower rows (0: all)");
    if (p.rows > 0 && p.rows < data.X.rows) {
      const Index n = data.X.rows;
      const auto kept = datasets::split_rows(n, static_cast<double>(n - p.rows) / static_cast<double>(n), 0,
                                             mix64(seed ^ hash_name("rows"))).train;
      std::vector<double> labels;
      for (Index r : kept) labels.push_back(data.labels[r]);
      data.X = datasets::take_rows(data.X, kept);
      data.labels = std::move(labels);
    }
    X_ = std::move(data.X);
    // Class ids 0..c-1 in the registry's encoding order (binary: -1 -> 0, +1 -> 1).
    std::vector<double> mapped = info.labels.mapped;
    std::sort(mapped.begin(), mapped.end());
    for (double l : data.labels)
      labels_.push_back(static_cast<double>(std::lower_bound(mapped.begin(), mapped.end(), l) - mapped.begin()));
    const auto split = datasets::split_rows(X_.rows, p.test_fraction,
                                            p.validation_fraction * (1 - p.test_fraction), seed);
    if (static_cast<Index>(split.train.size()) < p.clients || static_cast<Index>(split.validation.size()) < p.clients)
      throw UserError("problem hyper-logreg: " + std::to_string(split.train.size()) + " training and " +
                      std::to_string(split.validation.size()) + " validation rows cannot give each of " +
                      std::to_string(p.clients) + " clients a row; lower clients or raise rows");
    return split;
  }

  //! Reorders X_ as client 0's training rows, client 1's, ..., the validation rows likewise,
  //! then the test rows, so that full local batches stream through memory.
  void store_by_client() {
    std::vector<Index> order;
    const auto renumber = [&](std::vector<Index>& rows) {
      for (Index& r : rows) {
        order.push_back(r);
        r = static_cast<Index>(order.size()) - 1;
      }
    };
    for (auto& rows : train_) renumber(rows);
    for (auto& rows : validation_) renumber(rows);
    renumber(test_rows_);
    X_ = datasets::take_rows(X_, order);
    std::vector<double> labels;
    for (Index r : order) labels.push_back(labels_[r]);
    labels_ = std::move(labels);
  }

  //! Spreads a set of dataset rows over the clients (each client: dataset row indices).
  datasets::Partition spread(const std::vector<Index>& rows, int clients,
                             const datasets::PartitionScheme& scheme, std::uint64_t seed) const {
    std::vector<double> labels;
    for (Index r : rows) labels.push_back(labels_[r]);
    datasets::Partition parts = datasets::partition_rows(labels, clients, scheme, seed);
    for (auto& part : parts)
      for (Index& j : part) j = rows[j];
    return parts;
  }

  datasets::CsrMatrix X_;
  std::vector<double> labels_;  // class id of every row of X_
  std::vector<Index> test_rows_;
  datasets::Partition train_, validation_;  // per client: rows of X_
  Index classes_ = 0, columns_ = 0, d_ = 0;
  double reg_scale_ = 0;  // 1/(cd)
  std::uint64_t instance_ = next_instance();  // identifies this instance in thread-local caches
  static std::uint64_t next_instance() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
};

FEDBENCH_REGISTER_PROBLEM(HyperLogreg, "hyper-logreg",
                          "per-feature L2 hyperparameters of logistic regression (bilevel), LIBSVM data",
                          "Zhang, Dhaipule, Tan, Ling, Gao, IJCAI 2025 (seed 003) eq. 12; spec 003 §3.1");

}  // namespace fedbench::problems
