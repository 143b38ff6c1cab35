// Fair classification: minimise the worst class loss,
//   min_{W, b} max_{y in simplex} sum_c y_c F_c(W, b) + R(W),
// of W. Shen, M. Huang, J. Zhang, C. Shen, AISTATS 2024 (FESS-GDA), Section 4.2 (Figs. 2-3,
// Appendix K; a problem of the form (2) of Section 1.1, nonconvex-concave; the setting of
// Nouiehed et al., NeurIPS 2019), with a CPU substitute of ours, not in the paper: F_c is the
// class-conditional mean cross-entropy of a softmax-regression model instead of the paper's
// CNN on CIFAR-10, on any registered multiclass dataset.
//
// Per-sample component (our unbiased estimate with the global class prior pi_c):
//   f_j = y_{c_j} l_j(W, b) / pi_{c_j} + R(W),   l_j = -log softmax(W w_j + b)_{c_j},
// so a client's mean over its samples is sum_c y_c F_{c,i} with F_{c,i} weighted by pi_c, and
// clients average to the global class means under an even split:
//   f = (1/M) sum_i (1/m_i) sum_{j of client i} y_{c_j} l_j / pi_{c_j} + R(W)
// equals sum_c y_c F_c + R(W), F_c the mean loss over class c's training rows, only when the
// clients hold equal row counts (else row j weighs 1/(M m_i pi_{c_j})). R = (rho/2)||W||^2 (convex; the
// model makes the problem convex-concave) or rho sum w^2/(1+w^2) (smooth nonconvex, our option to
// recover the paper's nonconvexity). y lives on the simplex: project() handles the y block, the
// engine calls it after each aggregation. Features are scaled per column by the largest |value|
// of the training rows (`scale = unit`, our choice: features in [0, 1] for nonnegative data).
// Datasets without a test file hold out `test_fraction` of the rows (seeded split).
// Metrics: average and worst-class test accuracy, max_c F_c on the training data (Phi), and
// the entropy of y. Not implemented yet: a hand-written MLP model, closer to the paper's CNN.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "datasets/partition.hpp"
#include "datasets/registry.hpp"
#include "datasets/train_test.hpp"
#include "linalg/projections.hpp"
#include "problem/problem_registry.hpp"
#include "problems/common/client_rows.hpp"
#include "problems/common/instance_rows.hpp"

namespace fedbench::problems {

class FairClassification : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over x = (W in R^{C x d}, b in R^C) of max over y in the probability simplex of R^C of "
      "f = (1/M) sum_i (1/m_i) sum_{j in rows of client i} y_{c_j} l_j(W, b) / pi_{c_j} + R(W), "
      "l_j = CE(W a_j + b, c_j) = log sum_k exp((W a_j + b)_k) - (W a_j + b)_{c_j}, pi_c = the fraction of all "
      "training rows in class c, R(W) = (rho/2) ||W||_F^2 (regularizer=l2) or rho sum_{k,q} W_kq^2 / (1 + W_kq^2) "
      "(nonconvex); b is not regularised; y is projected onto the simplex; features divided by their column's "
      "largest |value| (scale=unit). With equal client row counts f = sum_c y_c F_c + R(W), F_c the mean CE over "
      "the training rows of class c: the paper's form min_x max_{y in simplex} sum_c y_c F_c(x) (Shen et al., "
      "Section 4.2), which has no R (ours) and a CNN where this is softmax regression; with unequal counts row j "
      "weighs 1/(M m_i pi_{c_j}) instead of 1/(n pi_{c_j}).";
  struct Params {
    enum class Regularizer { l2, nonconvex };
    enum class Scale { unit, none };
    std::string dataset, partition;
    Regularizer regularizer;
    Scale scale;
    int clients;
    double rho, test_fraction;
    std::int64_t partition_seed;
  };
  static void declare(Schema<Params>& s) {
    s.text("dataset", &Params::dataset, "pendigits", "registered multiclass dataset")
        .integer("clients", &Params::clients, "10", {.ge = 1}, "M, clients")
        .text("partition", &Params::partition, "iid", "iid | shards:S | dirichlet:A | quantity:A")
        .integer("partition_seed", &Params::partition_seed, "0", {.ge = 0}, "seed of the partition and split")
        .choice("regularizer", &Params::regularizer, "l2", {{"l2", Params::Regularizer::l2}, {"nonconvex", Params::Regularizer::nonconvex}},
                "(rho/2)||W||^2 or rho sum w^2/(1+w^2)")
        .real("rho", &Params::rho, "1e-4", {.ge = 0}, "rho, regularisation weight")
        .choice("scale", &Params::scale, "unit", {{"unit", Params::Scale::unit}, {"none", Params::Scale::none}},
                "divide each feature by its largest |value| (unit) or keep raw values")
        .real("test_fraction", &Params::test_fraction, "0.2", {.ge = 0, .lt = 1},
              "held-out rows when the dataset has no test file");
  }

  explicit FairClassification(const Params& p)
      : rho_(p.rho), nonconvex_(p.regularizer == Params::Regularizer::nonconvex), dense_(dense_rows(p.dataset)) {
    const auto& info = datasets::dataset_info(p.dataset);
    if (info.classes < 2) throw UserError("problem fair-classification: " + p.dataset + " is not labelled");
    C_ = info.classes;
    auto data = datasets::load_train_test(p.dataset, p.test_fraction,
                                          static_cast<std::uint64_t>(p.partition_seed));
    X_ = std::move(data.train_X);
    y_ = std::move(data.train_y);
    test_X_ = std::move(data.test_X);
    test_y_ = std::move(data.test_y);
    d_ = X_.cols;
    if (p.scale == Params::Scale::unit) scale_columns();
    prior_.assign(C_, 0.0);
    for (double l : y_) prior_[static_cast<std::size_t>(l)] += 1.0 / static_cast<double>(y_.size());
    for (int c = 0; c < C_; ++c)
      if (prior_[c] == 0)
        throw UserError("problem fair-classification: class " + std::to_string(c) + " of " +
                        p.dataset + " has no training rows");
    clients_ = datasets::partition_rows(y_, p.clients, datasets::PartitionScheme::parse(p.partition),
                                   static_cast<std::uint64_t>(p.partition_seed));
    std::vector<Index> sizes;
    for (const auto& c : clients_) sizes.push_back(static_cast<Index>(c.size()));
    set_shape(C_ * (d_ + 1), C_, sizes);
  }

  std::string problem_class() const override {
    return nonconvex_ ? "NC-C (max over class losses, simplex)" : "C-C (max over class losses, simplex)";
  }
  Vec initial_point() const override {
    Vec z = Vec::Zero(dim());
    z.tail(C_).setConstant(1.0 / C_);
    return z;
  }
  void project(Vec& z) const override {
    thread_local Vec scratch;
    linalg::project_simplex(z.tail(C_), scratch);
  }
  std::optional<ClientLabels> client_labels() const override {
    return client_label_histograms(clients_, y_);
  }
  void write_instance(InstanceWriter& out) const override {
    out.text("layout",
             "z = (W, b, y): x = (W row-major C x d: W[k, q] at k*d + q, then b in R^C), y in R^C on the simplex; "
             "logits of a row a: W a + b, l_j = CE of row j at its class c_j; "
             "f_i = mean over the client's rows j of y[c_j] l_j / prior[c_j] + R(W), f = mean_i f_i; "
             "R = (rho/2) ||W||^2 (regularizer l2) or rho sum W^2 / (1 + W^2) (nonconvex); "
             "max_class_loss = max_c mean over all training rows of [c_j = c] l_j / prior[c] + R(W); "
             "test_accuracy and worst_class_accuracy: argmax of W a + b (first maximum) on test/X", "");
    out.text("regularizer", nonconvex_ ? "nonconvex" : "l2", "R(W): l2 or nonconvex");
    out.scalar("rho", rho_, "rho, the regularisation weight");
    write_rows(out, "train/X", X_, dense_, "training rows a_j, features scaled as in the run");
    write_labels(out, "train/y", y_, "class id c_j in 0..C-1 of every training row");
    out.vector("prior", Eigen::Map<const Vec>(prior_.data(), C_), "prior[c], the fraction of training rows in class c");
    write_client_rows(out, "rows", clients_, "the client's rows of train/X");
    if (test_X_.rows == 0) return;
    write_rows(out, "test/X", test_X_, dense_, "test rows, scaled as the training rows");
    write_labels(out, "test/y", test_y_, "class id of every test row");
  }

 protected:
  // Layout of x: W row-major (C x d), then b (C).
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override {
    out.setZero();
    const auto& rows = clients_[client];
    thread_local Vec prob;
    prob.resize(C_);
    auto add = [&](Index row) {
      const int c = static_cast<int>(y_[row]);
      const double loss = softmax_loss(X_, row, c, z, prob);
      const double weight = z(C_ * (d_ + 1) + c) / prior_[c];
      prob(c) -= 1.0;  // dl/dlogits = p - e_c
      for (int k = 0; k < C_; ++k) {
        const double g = weight * prob(k);
        for (std::int32_t e = X_.row_start[row]; e < X_.row_start[row + 1]; ++e)
          out(k * d_ + X_.col[e]) += g * X_.val[e];
        out(C_ * d_ + k) += g;
      }
      out(C_ * (d_ + 1) + c) -= loss / prior_[c];  // -grad_y
    };
    sum_to_mean(out, for_each_row(rows, samples, add));
    add_regularizer_gradient(z, out);
  }

  double do_value(int client, std::span<const Index> samples, const Vec& z) const override {
    const auto& rows = clients_[client];
    thread_local Vec prob;
    prob.resize(C_);
    double total = 0;
    auto add = [&](Index row) {
      const int c = static_cast<int>(y_[row]);
      total += z(C_ * (d_ + 1) + c) * softmax_loss(X_, row, c, z, prob) / prior_[c];
    };
    const Index count = for_each_row(rows, samples, add);
    return total / static_cast<double>(count) + regularizer(z);
  }

  Constants compute_constants() const override {
    Constants k;
    k.set(Constant::classes, C_, "C, number of classes (dim y)");
    return k;
  }

  std::vector<std::string> extra_metric_names() const override {
    return {"max_class_loss", "test_accuracy", "worst_class_accuracy", "y_entropy"};
  }
  std::string preferred_metric() const override { return "max_class_loss"; }

  void extra_metrics(const Vec& z, std::span<double> out) const override {
    Vec prob(C_);
    std::vector<double> class_loss(C_, 0.0);
    for (Index r = 0; r < X_.rows; ++r) {
      const int c = static_cast<int>(y_[r]);
      class_loss[c] += softmax_loss(X_, r, c, z, prob) / (prior_[c] * static_cast<double>(X_.rows));
    }
    out[0] = *std::max_element(class_loss.begin(), class_loss.end()) + regularizer(z);
    std::vector<double> right(C_, 0), seen(C_, 0);
    double correct = 0;
    for (Index r = 0; r < test_X_.rows; ++r) {
      const int c = static_cast<int>(test_y_[r]);
      softmax_loss(test_X_, r, c, z, prob);
      Index best = 0;
      prob.maxCoeff(&best);
      seen[c] += 1;
      if (best == c) {
        right[c] += 1;
        correct += 1;
      }
    }
    out[1] = correct / static_cast<double>(std::max<Index>(test_X_.rows, 1));
    double worst = 1;
    for (int c = 0; c < C_; ++c)
      if (seen[c] > 0) worst = std::min(worst, right[c] / seen[c]);
    out[2] = worst;
    double entropy = 0;
    for (int c = 0; c < C_; ++c) {
      const double q = z(C_ * (d_ + 1) + c);
      if (q > 0) entropy -= q * std::log(q);
    }
    out[3] = entropy;
  }

 private:
  void scale_columns() {
    std::vector<double> largest(static_cast<std::size_t>(d_), 0.0);
    for (std::size_t e = 0; e < X_.val.size(); ++e)
      largest[X_.col[e]] = std::max(largest[X_.col[e]], std::fabs(X_.val[e]));
    for (auto* X : {&X_, &test_X_})
      for (std::size_t e = 0; e < X->val.size(); ++e)
        if (largest[X->col[e]] > 0) X->val[e] /= largest[X->col[e]];
  }

  //! Cross-entropy of row `row` at label c; leaves the softmax probabilities in prob.
  double softmax_loss(const datasets::CsrMatrix& X, Index row, int c, const Vec& z, Vec& prob) const {
    for (int k = 0; k < C_; ++k) {
      double logit = z(C_ * d_ + k);
      for (std::int32_t e = X.row_start[row]; e < X.row_start[row + 1]; ++e)
        logit += z(k * d_ + X.col[e]) * X.val[e];
      prob(k) = logit;
    }
    const double logit_c = prob(c), top = prob.maxCoeff();
    prob = (prob.array() - top).exp();
    const double norm = prob.sum();
    prob /= norm;
    return top + std::log(norm) - logit_c;  // log-sum-exp, stable for any logits
  }

  double regularizer(const Vec& z) const {
    const auto W = z.head(C_ * d_);
    if (!nonconvex_) return 0.5 * rho_ * W.squaredNorm();
    return rho_ * (W.array().square() / (1.0 + W.array().square())).sum();
  }
  void add_regularizer_gradient(const Vec& z, Vec& out) const {
    const auto W = z.head(C_ * d_);
    if (!nonconvex_) {
      out.head(C_ * d_) += rho_ * W;
      return;
    }
    out.head(C_ * d_).array() += 2 * rho_ * W.array() / (1.0 + W.array().square()).square();
  }

  double rho_;
  bool nonconvex_;
  bool dense_;  // image data: written dense by write_instance
  int C_ = 0;
  Index d_ = 0;
  datasets::CsrMatrix X_, test_X_;
  std::vector<double> y_, test_y_, prior_;
  datasets::Partition clients_;
};

FEDBENCH_REGISTER_PROBLEM(FairClassification, "fair-classification",
                          "worst-class loss of softmax regression, class weights on the simplex",
                          "Shen, Huang, Zhang, Shen, AISTATS 2024, Section 4.2");

}  // namespace fedbench::problems
