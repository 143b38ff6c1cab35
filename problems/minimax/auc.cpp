// Linear AUC maximisation in the square-loss minimax form of
//   Y. Ying, L. Wen, S. Lyu, "Stochastic Online AUC Maximization", NIPS 2016, as run by
//   J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian, arXiv 2105.14216, 2021 (CD-MAGE), Section 5.1
//   (Figs. 1 and 4) and Appendix B.2 (the objective below).
//
//   x = (theta, a, b), y = lambda, score h = theta^T w, positive fraction tau:
//   F = (1-tau)(h-a)^2 I+ + tau (h-b)^2 I- + 2(1+lambda)(tau h I- - (1-tau) h I+)
//       - tau(1-tau) lambda^2,
//   averaged over each client's samples (with the global tau), clients averaged:
//   f = (1/M) sum_i (1/m_i) sum_{j of client i} F_j (+ (l2/2)||theta||^2, below), min over
//   (theta, a, b), max over lambda, unconstrained. Appendix B.2's f is the pooled mean over all
//   n training rows, (1/n) sum_j F_j; the two agree only when the clients hold equal row counts
//   (here row j weighs 1/(M m_i)).
// Substitute (ours, not in the paper): the paper's CNN/LeNet5 score is replaced by the linear
// score, which makes f quadratic: its saddle point solves one linear system (our derivation),
// built exactly here by probing the affine global operator at the unit vectors (minimum-norm
// solution when singular).
// Resolved: tau = 0 means the exact positive fraction of the training rows (our choice; Xie
// et al.'s code uses 0.1, i.e. tau=0.1); multiclass data become one-vs-rest with
// `positive_class`; rows are split over clients by a partitioner (iid, shards:S, dirichlet:A,
// quantity:A), each client holding indices into the one shared CSR matrix.
// Optional L2 term (ours): l2 > 0 adds (l2/2)||theta||^2 to f, which makes the problem strongly
// convex in theta (the saddle point stays the solution of one linear system).
// Data: a registered dataset, or any LIBSVM file (source=libsvm, path=FILE, optional
// test_path=FILE), every row used; without a test file, `test_fraction` holds out a seeded
// fraction of the rows (seed partition_seed) as the test set. A file's labels are class ids by
// sorted value (binary data: the larger label is positive).
// Metrics: exact train and test AUC (ties half), the objective, and the distance to the saddle
// point (rel_error).
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <optional>

#include "core/error.hpp"
#include "datasets/libsvm.hpp"
#include "datasets/partition.hpp"
#include "datasets/train_test.hpp"
#include "linalg/operator_constants.hpp"
#include "metrics/auc.hpp"
#include "problem/evaluation_threads.hpp"
#include "problem/problem_registry.hpp"
#include "problems/common/client_rows.hpp"
#include "problems/common/instance_rows.hpp"

namespace fedbench::problems {

class Auc : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over x = (theta in R^p, a, b) of max over y = lambda in R (unconstrained) of "
      "f = (1/M) sum_i (1/m_i) sum_{j in rows of client i} F_j + (l2/2) ||theta||^2, "
      "F_j = (1-tau) (h_j - a)^2 [b_j = +1] + tau (h_j - b)^2 [b_j = -1] "
      "+ 2 (1 + lambda) (tau h_j [b_j = -1] - (1-tau) h_j [b_j = +1]) - tau (1-tau) lambda^2, "
      "h_j = theta^T w_j (linear score, no intercept), tau = the positive fraction of all training rows "
      "(or the tau parameter), the same tau on every client; l2 = 0 by default. This is the mean of the "
      "per-client means, not the pooled mean over all n training rows, (1/n) sum_j F_j, that the paper writes "
      "(Xie et al., App. B.2, after Ying et al.): the two agree only when every client holds as many rows "
      "(here row j weighs 1/(M m_i)).";
  // Exact AUC scores and sorts every training and test row per evaluation.
  static constexpr bool kExpensiveMetrics = true;
  struct Params {
    enum class Source { dataset, libsvm };
    Source source;
    std::string dataset, path, test_path, partition;
    int clients, positive_class;
    double tau, l2, test_fraction;
    std::int64_t partition_seed;
  };
  static void declare(Schema<Params>& s) {
    s.choice("source", &Params::source, "dataset",
             {{"dataset", Params::Source::dataset}, {"libsvm", Params::Source::libsvm}},
             "a registered dataset, or a LIBSVM file given by path")
        .text("dataset", &Params::dataset, "heart", "registered dataset (fedbench data list)")
        .text("path", &Params::path, "", "source=libsvm: the training file (every row is used)")
        .text("test_path", &Params::test_path, "", "source=libsvm: an optional test file")
        .real("l2", &Params::l2, "0", {.ge = 0},
              "lambda_w of (lambda_w/2)||w||^2 added to the min player (0: the plain AUC loss)")
        .real("test_fraction", &Params::test_fraction, "0", {.ge = 0, .lt = 1},
              "without a test file: hold out this seeded fraction of the rows as the test set")
        .integer("clients", &Params::clients, "10", {.ge = 1}, "M, clients")
        .text("partition", &Params::partition, "iid", "iid | shards:S | dirichlet:A | quantity:A")
        .integer("partition_seed", &Params::partition_seed, "0", {.ge = 0}, "seed of the partition")
        .integer("positive_class", &Params::positive_class, "-1", {.ge = -1},
                 "multiclass data: this class is positive, the rest negative (-1: binary data)")
        .real("tau", &Params::tau, "0", {.ge = 0, .lt = 1},
              "tau, positive fraction in the loss; 0 = the exact fraction of the training rows");
  }

  explicit Auc(const Params& p) : l2_(p.l2) {
    const bool from_file = p.source == Params::Source::libsvm;
    const std::string name = from_file ? p.path : p.dataset;
    auto data = from_file ? read_files(p.path, p.test_path)
                          : datasets::load_train_test(p.dataset, 0, 0);
    if (data.test_X.rows == 0 && p.test_fraction > 0)
      datasets::hold_out(data, p.test_fraction, static_cast<std::uint64_t>(p.partition_seed));
    binarize(data.train_y, data.classes, p.positive_class, name);
    binarize(data.test_y, data.classes, p.positive_class, name);
    X_ = std::move(data.train_X);
    y_ = std::move(data.train_y);
    test_X_ = std::move(data.test_X);
    test_y_ = std::move(data.test_y);
    double positives = 0;
    for (double l : y_) positives += l > 0;
    tau_ = p.tau > 0 ? p.tau : positives / static_cast<double>(y_.size());
    if (positives == 0 || positives == static_cast<double>(y_.size()))
      throw UserError("problem auc: dataset " + name + " has only one class after encoding");
    clients_ = datasets::partition_rows(y_, p.clients, datasets::PartitionScheme::parse(p.partition),
                                   static_cast<std::uint64_t>(p.partition_seed));
    std::vector<Index> sizes;
    for (const auto& c : clients_) sizes.push_back(static_cast<Index>(c.size()));
    p_ = X_.cols;
    set_shape(p_ + 2, 1, sizes);
  }

  std::string problem_class() const override { return "convex-strongly-concave (linear AUC)"; }
  std::optional<ClientLabels> client_labels() const override {
    return client_label_histograms(clients_, y_);
  }
  void write_instance(InstanceWriter& out) const override {
    out.text("layout", "z = (w[0:p], a, b, lambda): x = (w, a, b), y = (lambda,); the score of a row is w . row", "");
    out.scalar("tau", tau_, "positive fraction used in the loss");
    out.scalar("l2", l2_, "lambda_w: the min player's loss adds (lambda_w/2)||w||^2");
    write_rows(out, "train/X", X_, false, "training rows");
    write_labels(out, "train/y", y_, "training labels, +1 positive, -1 negative");
    write_client_rows(out, "rows", clients_, "the client's rows of train/X");
    if (test_X_.rows == 0) return;
    write_rows(out, "test/X", test_X_, false, "test rows");
    write_labels(out, "test/y", test_y_, "test labels, +1 positive, -1 negative");
  }

  std::optional<Vec> reference_solution() const override {
    const auto& [J, b] = linear_system();
    return Vec(Eigen::CompleteOrthogonalDecomposition<Mat>(J).solve(-b));
  }

 protected:
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override {
    out.setZero();
    sum_to_mean(out, for_each_row(clients_[client], samples, [&](Index row) { add_sample(row, z, out); }));
    if (l2_ > 0) out.head(p_) += l2_ * z.head(p_);
  }

  double do_value(int client, std::span<const Index> samples, const Vec& z) const override {
    double total = 0;
    const Index n = for_each_row(clients_[client], samples, [&](Index row) { total += sample_value(row, z); });
    const double ridge = l2_ > 0 ? 0.5 * l2_ * z.head(p_).squaredNorm() : 0.0;
    return total / static_cast<double>(n) + ridge;
  }

  Constants compute_constants() const override {
    const auto& [J, b] = linear_system();
    Constants k;
    const double lip = linalg::lipschitz(J), mu = linalg::strong_monotonicity(J);
    k.set(Constant::strong_concavity, 2 * tau_ * (1 - tau_), "2 tau (1 - tau), in lambda");
    k.set(Constant::lipschitz, lip, "||J||_2 of the global operator");
    k.set(Constant::tau, tau_, "positive fraction used in the loss");
    k.set(Constant::train_rows, static_cast<double>(X_.rows), "training rows over all clients");
    k.set(Constant::test_rows, static_cast<double>(test_X_.rows), "test rows (0: no test set)");
    if (mu > 1e-12 * lip) {
      k.set(Constant::mu_global, mu, "lambda_min(sym J) of the (affine) global operator");
      k.set(Constant::cocoercivity, linalg::cocoercivity_eig(J), "eigenvalue formula on J");
    }
    // Client constants need one dense eigenproblem per client: computed when a preset asks,
    // and only when that is affordable.
    k.later({Constant::mu, Constant::lipschitz_client_max, Constant::cocoercivity_client_max},
            [this, mu, lip](Constants& c) {
              const bool global_mu = mu > 1e-12 * lip;
              const double d = static_cast<double>(dim());
              double lip_max = 0, ell_max = 0, mu_min = INFINITY;
              if (num_clients() * d * d * d <= 1e10) {
                // Each client's probe and eigenproblems on its own thread; max and min are
                // exact, so the order of the fold cannot matter.
                using Three = std::array<double, 3>;
                fold_clients_in_order(
                    num_clients(), Three{},
                    [&](int i, Three& k3) {
                      const Mat Ji = probe(i).first;
                      k3 = {linalg::lipschitz(Ji), linalg::cocoercivity_eig(Ji), linalg::strong_monotonicity(Ji)};
                    },
                    [&](int, const Three& k3) {
                      lip_max = std::max(lip_max, k3[0]);
                      ell_max = std::max(ell_max, k3[1]);
                      mu_min = std::min(mu_min, k3[2]);
                    });
                c.set(Constant::lipschitz_client_max, lip_max, "max_i ||J_i||_2");
                c.set(Constant::cocoercivity_client_max, ell_max, "max_i ell_i, eigenvalue formula");
              }
              if (std::isfinite(mu_min) && mu_min > 1e-12 * lip_max)
                c.set(Constant::mu, mu_min, "min_i lambda_min(sym J_i)");
              else if (global_mu)
                c.set(Constant::mu, mu, "lambda_min(sym J), global (clients may be only monotone)");
            });
    return k;
  }

  std::vector<std::string> extra_metric_names() const override {
    std::vector<std::string> names{"train_auc"};
    if (test_X_.rows > 0) names.push_back("test_auc");
    names.push_back("objective");
    return names;
  }
  void extra_metrics(const Vec& z, std::span<double> out) const override {
    std::size_t k = 0;
    out[k++] = auc_on(X_, y_, z);
    if (test_X_.rows > 0) out[k++] = auc_on(test_X_, test_y_, z);
    out[k] = global_value(z);
  }

 private:
  //! Most features of a LIBSVM file (the registered datasets have at most 784).
  static constexpr int kMaxFeatures = 2048;

  //! A LIBSVM file (and an optional test file with at most its features): labels become class
  //! ids by their sorted distinct values, so the largest value is class 1 of binary data.
  static datasets::TrainTest read_files(const std::string& path, const std::string& test_path) {
    if (path.empty()) throw UserError("problem auc: source=libsvm needs -p path=FILE");
    auto train = datasets::read_libsvm(path);
    // The saddle point and the constants come from the dense (d+3) x (d+3) operator (probed,
    // then decomposed: O(d^3) work, about 10 s at d = 1000 on 2 cores): a file with a huge
    // feature index would make that take hours or exhaust memory, so it is refused here.
    if (train.max_index > kMaxFeatures)
      throw UserError(path + ":" + std::to_string(train.max_index_line) + ": feature index " +
                      std::to_string(train.max_index) + " gives problem auc " + std::to_string(train.max_index) +
                      " features; it takes at most " + std::to_string(kMaxFeatures) +
                      " (its saddle point and constants come from a dense operator of that size); select "
                      "features first");
    datasets::TrainTest out;
    std::vector<double> values = train.labels;
    std::optional<datasets::LibsvmData> test;
    if (!test_path.empty()) {
      test = datasets::read_libsvm(test_path, static_cast<int>(train.X.cols));
      values.insert(values.end(), test->labels.begin(), test->labels.end());
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    auto ids = [&](std::vector<double>& labels) {
      for (double& l : labels)
        l = static_cast<double>(std::lower_bound(values.begin(), values.end(), l) - values.begin());
    };
    ids(train.labels);
    out.classes = static_cast<int>(values.size());
    out.train_X = std::move(train.X);
    out.train_y = std::move(train.labels);
    out.test_X.cols = out.train_X.cols;
    if (test) {
      ids(test->labels);
      out.test_X = std::move(test->X);
      out.test_y = std::move(test->labels);
    }
    return out;
  }

  //! Class ids -> +1 (positive) / -1. Binary data: id 1 is the registry's positive label.
  static void binarize(std::vector<double>& labels, int classes, int positive, const std::string& name) {
    if (positive < 0 && classes != 2)
      throw UserError("problem auc: dataset " + name + " has " + std::to_string(classes) +
                      " classes; choose one with -p positive_class=K");
    if (positive >= classes)
      throw UserError("problem auc: positive_class = " + std::to_string(positive) + " but " + name +
                      " has classes 0.." + std::to_string(classes - 1));
    const double chosen = positive < 0 ? 1.0 : positive;
    for (double& l : labels) l = l == chosen ? 1.0 : -1.0;
  }

  double score(const datasets::CsrMatrix& X, Index row, const Vec& z) const {
    double h = 0;
    for (std::int32_t k = X.row_start[row]; k < X.row_start[row + 1]; ++k) h += X.val[k] * z(X.col[k]);
    return h;
  }

  void add_sample(Index row, const Vec& z, Vec& out) const {
    const double h = score(X_, row, z), a = z(p_), b = z(p_ + 1), lambda = z(p_ + 2);
    const bool pos = y_[row] > 0;
    const double t = tau_;
    const double dh = pos ? 2 * (1 - t) * (h - a) - 2 * (1 + lambda) * (1 - t)
                          : 2 * t * (h - b) + 2 * (1 + lambda) * t;
    for (std::int32_t k = X_.row_start[row]; k < X_.row_start[row + 1]; ++k)
      out(X_.col[k]) += dh * X_.val[k];
    if (pos) out(p_) += -2 * (1 - t) * (h - a);
    else out(p_ + 1) += -2 * t * (h - b);
    const double dlambda = 2 * (pos ? -(1 - t) * h : t * h) - 2 * t * (1 - t) * lambda;
    out(p_ + 2) -= dlambda;  // the operator carries -grad_y
  }

  double sample_value(Index row, const Vec& z) const {
    const double h = score(X_, row, z), a = z(p_), b = z(p_ + 1), lambda = z(p_ + 2), t = tau_;
    const bool pos = y_[row] > 0;
    return (pos ? (1 - t) * (h - a) * (h - a) : t * (h - b) * (h - b)) +
           2 * (1 + lambda) * (pos ? -(1 - t) * h : t * h) - t * (1 - t) * lambda * lambda;
  }

  double auc_on(const datasets::CsrMatrix& X, const std::vector<double>& y, const Vec& z) const {
    std::vector<double> s(static_cast<std::size_t>(X.rows));
    for (Index r = 0; r < X.rows; ++r) s[static_cast<std::size_t>(r)] = score(X, r, z);
    return metrics::exact_auc(s, y);
  }

  // Operators are affine, F(z) = J z + b: J and b by probing at 0 and the unit vectors
  // (client -1: the global operator). Each column is one pass over the data on its own, so the
  // columns are spread over the evaluation threads (same bits at any thread count).
  std::pair<Mat, Vec> probe(int client) const {
    auto apply = [&](const Vec& z, Vec& f) {
      if (client < 0) global_op(z, f);
      else do_op(client, {}, z, f);
    };
    std::pair<Mat, Vec> out{Mat(dim(), dim()), Vec(dim())};
    apply(Vec::Zero(dim()), out.second);
    fold_clients_in_order(
        static_cast<int>(dim()), Vec(dim()),
        [&](int k, Vec& f) {
          Vec unit = Vec::Zero(dim());
          unit(k) = 1;
          apply(unit, f);
        },
        [&](int k, Vec& f) { out.first.col(k) = f - out.second; });
    return out;
  }
  const std::pair<Mat, Vec>& linear_system() const {
    std::call_once(system_once_, [this] { system_ = probe(-1); });
    return system_;
  }

  datasets::CsrMatrix X_, test_X_;
  std::vector<double> y_, test_y_;
  datasets::Partition clients_;
  double tau_ = 0, l2_ = 0;
  Index p_ = 0;
  mutable std::once_flag system_once_;
  mutable std::pair<Mat, Vec> system_;
};

FEDBENCH_REGISTER_PROBLEM(Auc, "auc",
                          "linear AUC maximisation, square-loss minimax form, on a binary dataset",
                          "Ying, Wen, Lyu, NIPS 2016; Xie et al., arXiv 2021, Section 5.1");

}  // namespace fedbench::problems
