// Hyperparameter optimisation of L2-regularised logistic regression with one regularisation
// weight per feature, of
//   Y. Zhang, R. Dhaipule, C. C. Tan, H. Ling, H. Gao, "Federated Stochastic Bilevel
//   Optimization with Fully First-Order Gradients", IJCAI 2025, Section 5.1, eq. (12) (problem
//   and data protocol; Figs. 1-4). The exact lower-level solution and the reference numbers of
//   the unit tests are ours (independent numpy/scipy computations), not in the paper.
//
//   upper  f_i(x, y) = (1/m_v^i) sum_{validation rows of i} CE(y^T a, b)       (no x: grad_x f = 0)
//   lower  g_i(x, y) = (1/m_t^i) sum_{training rows of i}   CE(y^T a, b) + R(x, y),
//          R(x, y)   = (1/(c d)) sum_q exp(x_q) sum_k y_{q,k}^2,
//   f = (1/M) sum_i f_i, g = (1/M) sum_i g_i (means of per-client means; R counts once),
// x in R^d (one hyperparameter per feature, shared by the classes), y in R^{d x c} stored
// feature-major (y_{q,k} at q*c + k, so a sparse row touches contiguous blocks). CE is the
// multinomial cross-entropy on the logits y^T a; features carry no bias column (eq. (12) has
// none).
// Resolved: R is normalised by 1/(cd) with no 1/2, as eq. (12) prints it (a (1/2) sum exp(x_q)
// y_q^2 regulariser would be a different scaling; the reference numbers of the unit tests use
// eq. (12)).
// Resolved: eq. (12) has y in R^{d x c} without saying what c is for binary data: binary data
// default to c = 2 softmax (labels -1/+1 -> classes 0/1); `model = logistic` is the c = 1
// sigmoid option (class 0's logit fixed at 0, y in R^d, R normalised by 1/d). Multiclass data
// use c = classes (our reading for covtype, the multiclass dataset of Section 5.1).
// Resolved (data): only the dataset's main file (`file`) is split, as the text implies: a seeded
// `test_fraction` (10%) is the test set, `validation_fraction` (30%) of the rest the upper-level
// rows, the rest the lower-level rows; each set is spread over the clients by the partitioner
// (Section 5.1: at random over eight workers). ijcnn1 ships only its `validation` file here.
// `hyperparameter = scalar` is the textbook check problem: one weight exp(x) for every feature
// (x in R^1, R = (1/(cd)) exp(x) ||y||^2).
// Explicit splits (ours): `validation_file` takes the upper-level rows from another file of the
// dataset (e.g. letter's validation file) or a LIBSVM path, and then every non-test row of the
// main file is a lower-level row; `test_file` likewise; `ranges` names the rows of the main file
// in file order, e.g. "train=0:3000,validation=3000:4000,test=4000:4435" (0-based, end excluded).
// Constants are x-dependent: the lower level is (2/(cd)) min_q exp(x_q)-strongly convex in y;
// mu_g and the smoothness bound are declared at x0 = 0 (the initial point).
// Metrics: test accuracy and loss of y*(x) (Newton from the model's y), test accuracy of y.
// The exact metrics sum every client's rows, and the test rows, in blocks of 1024 rows on the
// run's evaluation threads, added in order (bilevel_problem.hpp): the same bits at any thread
// count, within about 1e-14 of whole clients' sums.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "problem/evaluation_threads.hpp"
#include "problem/problem_registry.hpp"
#include "problems/common/client_rows.hpp"
#include "problems/common/client_split.hpp"
#include "problems/common/exp_cache.hpp"
#include "problems/common/gram_spectrum.hpp"
#include "problems/common/softmax_rows.hpp"

namespace fedbench::problems {

class HyperLogreg : public BilevelProblem {
 public:
  static constexpr const char* kObjective =
      "min over x in R^d (one log-weight per feature; R^1 with hyperparameter=scalar, x_q = x_0 for every q) of "
      "F(x) = f(x, y*(x)), y*(x) = argmin over y in R^{d x c} of g(x, y) (unconstrained; c = classes, or c = 1 with "
      "model=logistic, class 0's logit fixed at 0; no bias column); "
      "upper f(x, y) = (1/M) sum_i (1/m_v^i) sum_{j in validation rows of client i} CE(y^T a_j, b_j) (no x); "
      "lower g(x, y) = (1/M) sum_i (1/m_t^i) sum_{j in training rows of client i} CE(y^T a_j, b_j) "
      "+ (1/(c d)) sum_{q=1..d} e^{x_q} sum_{k=1..c} y_{q,k}^2, CE(l, b) = log sum_k exp(l_k) - l_b. "
      "The regulariser has no 1/2 (grad_y = (2/(c d)) e^{x_q} y_{q,k}), sits in every g_i and so counts once; "
      "both levels are means over clients of per-client means (not pooled over rows), as eq. (12) of Zhang et al. "
      "(IJCAI 2025) writes them.";
  struct Params {
    enum class Model { softmax, logistic };
    enum class Hyperparameter { per_feature, scalar };
    std::string dataset, file, partition, validation_file, test_file, ranges;
    Model model;
    Hyperparameter hyperparameter;
    int clients;
    std::int64_t rows, partition_seed;
    double test_fraction, validation_fraction, x0;
  };
  static void declare(Schema<Params>& s) {
    s.text("dataset", &Params::dataset, "a9a", "registered dataset (fedbench data list)")
        .text("file", &Params::file, "train", "the dataset's file that is split (ijcnn1 here: validation)")
        .integer("rows", &Params::rows, "0", {.ge = 0}, "use this many seeded random rows of the file (0: all)")
        .real("test_fraction", &Params::test_fraction, "0.1", {.ge = 0, .lt = 1}, "held-out test rows (paper: 10%)")
        .real("validation_fraction", &Params::validation_fraction, "0.3", {.gt = 0, .lt = 1},
              "of the other rows, upper-level validation rows (paper: 30%); the rest train")
        .text("validation_file", &Params::validation_file, "",
              "upper-level rows from this file of the dataset (a role such as validation or test) or a LIBSVM path; "
              "every non-test row of `file` is then a lower-level row")
        .text("test_file", &Params::test_file, "", "test rows from this file of the dataset or a LIBSVM path")
        .text("ranges", &Params::ranges, "",
              "rows of `file` in file order, e.g. train=0:3000,validation=3000:4000,test=4000:4435 (0-based, end excluded)")
        .choice("hyperparameter", &Params::hyperparameter, "per-feature",
                {{"per-feature", Params::Hyperparameter::per_feature}, {"scalar", Params::Hyperparameter::scalar}},
                "one weight exp(x_q) per feature (eq. (12)) or one exp(x) for all features")
        .choice("model", &Params::model, "softmax", {{"softmax", Params::Model::softmax}, {"logistic", Params::Model::logistic}},
                "softmax: c = classes columns; logistic: c = 1 sigmoid (binary data)")
        .integer("clients", &Params::clients, "8", {.ge = 1}, "N, clients (paper: 8)")
        .text("partition", &Params::partition, "iid", "iid | shards:S | dirichlet:A | quantity:A")
        .integer("partition_seed", &Params::partition_seed, "0", {.ge = 0}, "seed of split and partition")
        .real("x0", &Params::x0, "0", {}, "starting value of every x_q (lambda_q = exp(x_q))");
  }

  explicit HyperLogreg(const Params& p) : data_(split_over_clients(request(p))) {
    if (p.model == Params::Model::logistic && data_.classes != 2)
      throw UserError("problem hyper-logreg: model = logistic needs a binary dataset, " + p.dataset + " has " +
                      std::to_string(data_.classes) + " classes; use model=softmax");
    classes_ = data_.classes;
    columns_ = p.model == Params::Model::logistic ? 1 : classes_;
    d_ = data_.X.cols;
    reg_scale_ = 1.0 / static_cast<double>(columns_ * d_);
    x0_ = p.x0;
    scalar_ = p.hyperparameter == Params::Hyperparameter::scalar;
    set_bilevel_shape(scalar_ ? 1 : d_, d_ * columns_, ClientSplit::sizes(data_.train), ClientSplit::sizes(data_.validation));
    set_row_blocks();
  }

  //! Every entry of x starts at x0 (the hyperparameters' starting value); y starts at 0.
  Vec initial_point() const override {
    Vec z = Vec::Zero(dim());
    z.head(dim_x()).setConstant(x0_);
    return z;
  }
  std::string problem_class() const override {
    return "bilevel: UL nonconvex in x, LL strongly convex in y (modulus (2/(cd)) min_q exp(x_q))";
  }
  std::optional<ClientLabels> client_labels() const override {
    return client_label_histograms(data_.train, data_.labels);  // of the lower-level (training) rows
  }
  int upper_row_blocks(int i) const override { return blocks_of(data_.validation[i].size()); }
  int lower_row_blocks(int i) const override { return blocks_of(data_.train[i].size()); }
  void write_instance(InstanceWriter& out) const override {
    out.text("layout",
             "z = (x, y): x in R^d (R^1 when hyperparameter = scalar: every x_q below is then x_0), y in R^{d x c} "
             "feature-major (y[q, k] at dim_x + q*c + k), c = columns; "
             "logits of a row a: a^T y (columns == classes), or (0, a^T y) for the logistic model (columns = 1); "
             "CE = log sum exp(logits) - logits[b]; "
             "f_i(x, y) = mean CE over the client's validation_rows, upper_value = mean_i f_i; "
             "g_i(x, y) = mean CE over the client's train_rows + reg_scale sum_q exp(x_q) sum_k y[q, k]^2; "
             "model_test_accuracy: argmax of the logits (first maximum) at the model's y over test_rows", "");
    out.scalar("reg_scale", reg_scale_, "1/(c d) of the regulariser");
    out.scalar("classes", static_cast<double>(classes_), "C, classes of the data");
    out.scalar("columns", static_cast<double>(columns_), "c, columns of y (C, or 1 for the logistic model)");
    write_client_split(out, data_);
  }

 protected:
  void do_upper_grad_x(int, std::span<const Index>, const Vec&, Vec& out) const override {
    out.setZero();  // f has no x in eq. (12), so the u_1 recursion of eq. (5) is 0
  }
  void do_upper_grad_y(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    by_columns([&](auto C) {
      sum_to_mean(out, loss_gradient_sum<decltype(C)::value>(data_.validation[i], s, y_of(z), out));
    });
  }
  void do_lower_grad_x(int, std::span<const Index>, const Vec& z, Vec& out) const override {
    const double* y = y_of(z);
    const double* ex = exp_x(z);
    out.setZero();
    for (Index q = 0; q < d_; ++q) {  // grad_x R = (1/(cd)) e^x . rowsumsq(y); data-free
      double sq = 0;
      for (Index k = 0; k < columns_; ++k) sq += y[q * columns_ + k] * y[q * columns_ + k];
      out(hp(q)) += reg_scale_ * ex[hp(q)] * sq;
    }
  }
  void do_lower_grad_y(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    by_columns([&](auto C) {
      sum_to_mean(out, loss_gradient_sum<decltype(C)::value>(data_.train[i], s, y_of(z), out));
    });
    add_lower_client_terms_grad_y(i, z, out);
  }
  void do_lower_hvp(int i, std::span<const Index> s, const Vec& z, const Vec& v, Vec& out) const override {
    out.setZero();
    by_columns([&](auto C) {
      constexpr Index kC = decltype(C)::value;
      if (!s.empty()) {
        add_loss_hvp<kC>(data_.train[i], s, probabilities_at<kC>(i, z), v, out);
      } else {  // the full batch block by block, each block's probabilities from the cache
        for (int b = 0; b < lower_row_blocks(i); ++b)
          add_loss_hvp<kC>(data_.train[i], train_block(i, b), probabilities_at<kC>(i, z), v, out);
      }
    });
    sum_to_mean(out, s.empty() ? num_samples(i) : static_cast<Index>(s.size()));
    add_lower_client_terms_hvp(i, z, v, out);
  }

  //! Worth it when a row's outer product (nnz^2 c^2 terms) costs less than about twenty
  //! Hessian-vector products (2 nnz c each) and the matrix is small.
  bool offers_dense_hessian() const {
    const double nnz_per_row = static_cast<double>(data_.X.val.size()) / static_cast<double>(std::max<Index>(data_.X.rows, 1));
    return dim_y() <= 2048 && nnz_per_row * static_cast<double>(columns_) <= 40;
  }
  bool lower_hessian(const Vec& z, Mat& hessian) const override {
    if (!offers_dense_hessian()) return false;
    hessian = mean_of_row_matrices<Eigen::Lower>(z, dim_y(), [&](Index row, const double* prob, Mat& sum) {
      // grad^2 CE = a a^T (x) (diag(pi) - pi pi^T) on the free columns (the HVP above, as a matrix)
      thread_local Mat weight;
      weight.resize(columns_, columns_);
      const double* pi = prob + first_free();
      for (Index k = 0; k < columns_; ++k)
        for (Index l = 0; l < columns_; ++l) weight(k, l) = pi[k] * ((k == l ? 1.0 : 0.0) - pi[l]);
      const std::int32_t begin = data_.X.row_start[row], end = data_.X.row_start[row + 1];
      for (std::int32_t e = begin; e < end; ++e) {
        const Index q = Index{data_.X.col[e]} * columns_;
        for (std::int32_t f = begin; f <= e; ++f) {  // lower triangle; mirrored below
          const Index r = Index{data_.X.col[f]} * columns_;
          const double aa = data_.X.val[e] * data_.X.val[f];
          for (Index l = 0; l < columns_; ++l)
            for (Index k = 0; k < columns_; ++k) sum(q + k, r + l) += aa * weight(k, l);
        }
      }
    });
    // Columns of one row are increasing, so (q, r) above has q >= r: fill the upper triangle.
    hessian.triangularView<Eigen::StrictlyUpper>() = hessian.transpose().triangularView<Eigen::StrictlyUpper>();
    for (Index q = 0; q < d_; ++q)
      for (Index k = 0; k < columns_; ++k) hessian(q * columns_ + k, q * columns_ + k) += 2 * reg_scale_ * std::exp(z(hp(q)));
    return true;
  }
  std::unique_ptr<LowerHessianFactor> factor_lower_hessian(const Vec& z) const override {
    if (columns_ == 2 && first_free() == 0 && offers_dense_hessian()) return binary_softmax_factor(z);
    return BilevelProblem::factor_lower_hessian(z);
  }
  //! Two softmax columns: diag(pi) - pi pi^T = pi_0 pi_1 [[1, -1], [-1, 1]] for every row, so
  //! the Hessian is S (x) [[1, -1], [-1, 1]] + D (x) I_2, with S = mean a a^T pi_0 pi_1 and
  //! D = diag(2 e^x / (cd)). In the sums s_q = v_q0 + v_q1 and differences t_q = v_q0 - v_q1
  //! of a feature's two coordinates it splits into D s = r_0 + r_1 and (2S + D) t = r_0 - r_1:
  //! one d x d Cholesky factor instead of a 2d x 2d one (an eighth of the work), and S takes a
  //! quarter of the general assembly's.
  std::unique_ptr<LowerHessianFactor> binary_softmax_factor(const Vec& z) const {
    Mat gram = mean_of_row_matrices<Eigen::Upper>(z, d_, [&](Index row, const double* prob, Mat& sum) {
      const double w = prob[0] * prob[1];
      const std::int32_t begin = data_.X.row_start[row], end = data_.X.row_start[row + 1];
      for (std::int32_t e = begin; e < end; ++e) {
        const double wa = w * data_.X.val[e];
        double* column = sum.data() + Index{data_.X.col[e]} * d_;
        for (std::int32_t f = begin; f <= e; ++f) column[data_.X.col[f]] += wa * data_.X.val[f];
      }
    });
    // Rows of a row are increasing: only gram(r, q) with r <= q was filled (column q, rows r);
    // the factorisation reads the lower triangle.
    Vec weight(d_);
    for (Index q = 0; q < d_; ++q) weight(q) = 2 * reg_scale_ * std::exp(z(hp(q)));
    if (!(weight.array() > 0).all() || !weight.allFinite()) return nullptr;
    Mat difference = 2 * gram.transpose();
    difference.diagonal() += weight;
    Eigen::LLT<Mat> llt(difference);
    if (llt.info() != Eigen::Success) return nullptr;
    return std::make_unique<BinarySoftmaxFactor>(std::move(llt), std::move(weight));
  }
  class BinarySoftmaxFactor final : public LowerHessianFactor {
   public:
    BinarySoftmaxFactor(Eigen::LLT<Mat> difference, Vec weight)
        : difference_(std::move(difference)), weight_(std::move(weight)) {}
    Vec solve(const Vec& rhs) const override {
      const Index d = weight_.size();
      Vec sums(d), differences(d);
      for (Index q = 0; q < d; ++q) {
        sums(q) = (rhs(2 * q) + rhs(2 * q + 1)) / weight_(q);
        differences(q) = rhs(2 * q) - rhs(2 * q + 1);
      }
      difference_.solveInPlace(differences);
      Vec v(2 * d);
      for (Index q = 0; q < d; ++q) {
        v(2 * q) = 0.5 * (sums(q) + differences(q));
        v(2 * q + 1) = 0.5 * (sums(q) - differences(q));
      }
      return v;
    }

   private:
    Eigen::LLT<Mat> difference_;  // of 2S + D
    Vec weight_;                  // D
  };
  void do_lower_jvp(int, std::span<const Index>, const Vec& z, const Vec& v, Vec& out) const override {
    const double* y = y_of(z);
    out.setZero();
    const double* ex = exp_x(z);
    for (Index q = 0; q < d_; ++q) {  // grad^2_xy R[V] = (2/(cd)) e^x . rowsum(y . V)
      double dot = 0;
      for (Index k = 0; k < columns_; ++k) dot += y[q * columns_ + k] * v(q * columns_ + k);
      out(hp(q)) += 2 * reg_scale_ * ex[hp(q)] * dot;
    }
  }
  double do_upper_value(int i, std::span<const Index> s, const Vec& z) const override {
    return mean_loss(data_.validation[i], s, y_of(z));
  }
  double do_lower_value_and_grad_y(int i, const Vec& z, Vec& grad) const override {
    // The row work of do_lower_value and do_lower_grad_y done once: the same operations in the
    // same order, so the same bits as the two calls.
    const double total = loss_and_gradient_sum(data_.train[i], {}, y_of(z), grad);
    const double n = static_cast<double>(num_samples(i));
    grad /= n;
    add_lower_client_terms_grad_y(i, z, grad);
    return total / n + lower_client_terms(i, z);
  }
  double do_lower_value(int i, std::span<const Index> s, const Vec& z) const override {
    return mean_loss(data_.train[i], s, y_of(z)) + lower_client_terms(i, z);
  }

  // Row blocks of the exact metrics (bilevel_problem.hpp): every row set of a client, and the
  // test set, in blocks of kBlockRows rows, their sums added in order.
  double do_upper_block_value(int i, int b, const Vec& z) const override {
    return loss_sum(data_.validation[i], validation_block(i, b), y_of(z));
  }
  void do_upper_block_grad_y(int i, int b, const Vec& z, Vec& out) const override {
    by_columns([&](auto C) {
      loss_gradient_sum<decltype(C)::value>(data_.validation[i], validation_block(i, b), y_of(z), out);
    });
  }
  double do_lower_block_value(int i, int b, const Vec& z) const override {
    return loss_sum(data_.train[i], train_block(i, b), y_of(z));
  }
  void do_lower_block_grad_y(int i, int b, const Vec& z, Vec& out) const override {
    by_columns([&](auto C) {
      loss_gradient_sum<decltype(C)::value>(data_.train[i], train_block(i, b), y_of(z), out);
    });
  }
  double do_lower_block_value_and_grad_y(int i, int b, const Vec& z, Vec& grad) const override {
    return loss_and_gradient_sum(data_.train[i], train_block(i, b), y_of(z), grad);
  }
  void do_lower_block_hvp(int i, int b, const Vec& z, const Vec& v, Vec& out) const override {
    out.setZero();
    by_columns([&](auto C) {
      add_loss_hvp<decltype(C)::value>(data_.train[i], train_block(i, b), probabilities_at<decltype(C)::value>(i, z), v, out);
    });
  }
  //! The regulariser R(x, y), in every g_i.
  double lower_client_terms(int, const Vec& z) const override {
    const double* y = y_of(z);
    const double* ex = exp_x(z);
    double reg = 0;
    for (Index q = 0; q < d_; ++q) {
      double sq = 0;
      for (Index k = 0; k < columns_; ++k) sq += y[q * columns_ + k] * y[q * columns_ + k];
      reg += ex[hp(q)] * sq;
    }
    return reg_scale_ * reg;
  }
  void add_lower_client_terms_grad_y(int, const Vec& z, Vec& out) const override {
    by_columns([&](auto C) { add_regularizer_product<decltype(C)::value>(z, y_of(z), out); });
  }
  void add_lower_client_terms_hvp(int, const Vec& z, const Vec& v, Vec& out) const override {
    by_columns([&](auto C) { add_regularizer_product<decltype(C)::value>(z, v.data(), out); });
  }

  Constants compute_constants() const override {
    Constants k;
    // The loss part of g_i's Hessian is (1/m_i) sum_j (diag(pi_j) - pi_j pi_j^T) (x) a_j a_j^T with
    // lambda_max(diag(pi) - pi pi^T) <= 1/2 (softmax), pi(1 - pi) <= 1/4 (logistic): at most the
    // curvature times lambda_max of the client's second-moment matrix, for every y (and equal to
    // it at y = 0 for softmax over two classes, where pi = (1/2, 1/2)).
    double moment_max = 0;
    for (const auto& client : data_.train)
      moment_max = std::max(moment_max, largest_second_moment_eigenvalue(data_.X, client, false));
    const double curvature = columns_ == 1 ? 0.25 : 0.5;
    const double reg_at_start = 2 * reg_scale_ * std::exp(x0_);
    k.set(Constant::mu_g, reg_at_start, "(2/(cd)) min_q exp(x_q) at the start x0: strong convexity of g in y (x-dependent)");
    k.set(Constant::mu_g_client_min, reg_at_start,
          "the same for every g_i: the regulariser is every client's (x-dependent, at the start x0)");
    k.set(Constant::lipschitz_g_client_max, curvature * moment_max + reg_at_start,
          "bound at the start x0 on the smoothness of g_i in y: max_i lambda_max((1/m_i) sum_j a_j a_j^T) / 2 "
          "(/4 logistic; power iteration on each client's rows) + (2/(cd)) exp(x0)");
    k.set(Constant::classes, static_cast<double>(classes_), "c of the data (the model has c columns, or 1 for logistic)");
    set_row_constants(k, data_.train, data_.validation, static_cast<Index>(data_.test_rows.size()));
    return k;
  }

  std::vector<std::string> solution_metric_names() const override {
    if (data_.test_rows.empty()) return {};
    return {"test_accuracy", "test_loss", "model_test_accuracy"};
  }
  void solution_metrics(const Vec& z, const Vec& y_star, std::span<double> out) const override {
    if (data_.test_rows.empty()) return;
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
  const double* y_of(const Vec& z) const { return z.data() + dim_x(); }
  //! e^{x_q} of z's x, shared by the lower-level oracles at one x (exp_cache.hpp).
  const double* exp_x(const Vec& z) const { return exp_cache_.at(z.data(), dim_x()); }
  Index label(Index row) const { return static_cast<Index>(data_.labels[row]); }

  // The row kernels take the model's shape C: 1 (logistic) or 2 (binary softmax) fixed at
  // compile time, both with two classes, or 0 for columns_ and classes_ read at run time.
  // Fixed sizes unroll the inner loops; the operations and their order are the same.
  template <Index C> Index columns() const { return C == 0 ? columns_ : C; }
  template <Index C> Index classes() const { return C == 0 ? classes_ : 2; }
  //! Class of the model's first column (1 for logistic: class 0's logit is fixed at 0).
  template <Index C = 0> Index first_free() const { return classes<C>() - columns<C>(); }
  //! f(std::integral_constant<Index, C>{}) with this model's C.
  template <class F>
  void by_columns(F&& f) const {
    if (classes_ == 2 && columns_ == 2) f(std::integral_constant<Index, 2>{});
    else if (classes_ == 2 && columns_ == 1) f(std::integral_constant<Index, 1>{});
    else f(std::integral_constant<Index, 0>{});
  }
  //! Class-sized work arrays: `stack` (4 entries) when the shape is fixed, else per thread.
  template <Index C>
  std::pair<double*, double*> work(double* stack) const {
    if constexpr (C != 0) {
      return {stack, stack + 2};
    } else {
      Scratch& sc = scratch(classes_);
      return {sc.prob.data(), sc.direction.data()};
    }
  }

  // Row blocks: kBlockRows consecutive rows of a client's set (or of the test set), given by
  // their positions in the set. An evaluation shares its passes only if its first part takes
  // 20 us (evaluation_threads.hpp), and the cheapest pass, a gradient, costs about 42 ns a row
  // on a9a: 512-row blocks took 21.6 us, a hair above, 1024 rows take 43 us. a9a's clients
  // still make 3 training and 2 validation blocks each, its test set 16.
  static constexpr Index kBlockRows = 1024;
  static int blocks_of(std::size_t rows) {
    return static_cast<int>(std::max<Index>(1, (static_cast<Index>(rows) + kBlockRows - 1) / kBlockRows));
  }
  //! Positions of block b of a set of `rows` rows.
  std::span<const Index> block_of(std::size_t rows, int b) const {
    const Index begin = b * kBlockRows;
    return {positions_.data() + begin,
            static_cast<std::size_t>(std::min<Index>(kBlockRows, static_cast<Index>(rows) - begin))};
  }
  std::span<const Index> train_block(int i, int b) const { return block_of(data_.train[i].size(), b); }
  std::span<const Index> validation_block(int i, int b) const {
    return block_of(data_.validation[i].size(), b);
  }

  //! Softmax probabilities of client i's training rows at z (rows x c), each computed the first
  //! time a Hessian product asks for it and kept per thread (a Neumann series applies the
  //! Hessian of one point to many minibatches; CG, the full batch many times).
  LazyRowCache<HyperLogreg>::Rows& training_probabilities(int i, const Vec& z) const {
    return hessian_cache_.at(i, z, data_.train.size(), num_samples(i), classes_);
  }
  //! Training row j of client i at z, from `rows` (training_probabilities(i, z)); C as
  //! row_probabilities (the same bits for every C).
  template <Index C = 0>
  const double* training_probability(LazyRowCache<HyperLogreg>::Rows& rows, int i, Index j, const Vec& z) const {
    return rows.get(j, [&](double* prob) { row_probabilities<C>(data_.train[i][j], y_of(z), prob); });
  }
  //! probability_of(j) for add_loss_hvp: client i's training row j at z, through the cache.
  template <Index C>
  auto probabilities_at(int i, const Vec& z) const {
    LazyRowCache<HyperLogreg>::Rows* rows = &training_probabilities(i, z);
    return [this, rows, i, &z](Index j) { return training_probability<C>(*rows, i, j, z); };
  }
  //! The probabilities of block b of client i's training rows at z (rows x c).
  const double* block_probabilities(int i, int b, const Vec& z) const {
    auto& rows = training_probabilities(i, z);
    const auto block = train_block(i, b);
    for (Index j : block) training_probability(rows, i, j, z);
    return rows.values() + block.front() * classes_;
  }
  //! (1/M) sum_i (1/n_i) sum over client i's training rows of the size x size matrices that
  //! add_row(row, its probabilities at z, sum) adds: clients' parts of hessian_blocks_ row
  //! blocks each, added in order. Only the triangle UpLo is added up (the caller mirrors it).
  template <int UpLo, class AddRow>
  Mat mean_of_row_matrices(const Vec& z, Index size, AddRow&& add_row) const {
    const auto parts = [&](int i) { return (lower_row_blocks(i) + hessian_blocks_ - 1) / hessian_blocks_; };
    Mat mean = Mat::Zero(size, size), client(size, size);
    ThreadPool* pool = EvaluationThreads::current();
    fold_blocks_in_order(
        num_clients(), parts, Mat(size, size),
        [&](int i, int p, Mat& part) {
          part.setZero();
          for (int b = p * hessian_blocks_; b < std::min((p + 1) * hessian_blocks_, lower_row_blocks(i));
               ++b) {
            const double* prob = block_probabilities(i, b, z);
            for (Index j : train_block(i, b)) {
              add_row(data_.train[i][j], prob, part);
              prob += classes_;
            }
          }
        },
        [&](int i, int p, Mat& part) {
          if (p == 0) {
            client.triangularView<UpLo>() = part;
          } else {
            client.triangularView<UpLo>() += part;
          }
          if (p + 1 == parts(i)) mean.triangularView<UpLo>() += client / static_cast<double>(num_samples(i));
        },
        2 * (pool ? pool->threads() : 1));  // slots are matrices: two per thread
    mean.triangularView<UpLo>() /= static_cast<double>(num_clients());
    return mean;
  }

  // Row kernels on raw arrays: the hot path of every oracle.
  //! logits[c] = (w^T a)_c of a row for a y-shaped w (0 for a fixed reference class).
  template <Index C = 0>
  void row_logits(Index row, const double* w, double* logits) const {
    const Index c = columns<C>();
    std::fill(logits, logits + classes<C>(), 0.0);
    double* __restrict free = logits + first_free<C>();
    for (std::int32_t e = data_.X.row_start[row]; e < data_.X.row_start[row + 1]; ++e) {
      const double a = data_.X.val[e];
      const double* __restrict wq = w + Index{data_.X.col[e]} * c;
      for (Index k = 0; k < c; ++k) free[k] += a * wq[k];
    }
  }
  //! out += a r^T of a row on the free columns (r indexed by class).
  template <Index C = 0>
  void add_row_outer(Index row, const double* r, Vec& out) const {
    const Index c = columns<C>();
    const double* free = r + first_free<C>();
    for (std::int32_t e = data_.X.row_start[row]; e < data_.X.row_start[row + 1]; ++e) {
      const double a = data_.X.val[e];
      double* oq = out.data() + Index{data_.X.col[e]} * c;
      for (Index k = 0; k < c; ++k) oq[k] += a * free[k];
    }
  }
  //! Softmax probabilities of a row in prob (size c); returns CE at the row's label.
  double row_loss(Index row, const double* y, double* prob) const {
    row_logits(row, y, prob);
    return softmax_cross_entropy(prob, classes_, label(row));
  }
  //! The probabilities alone, the same bits (gradients and HVPs need no log).
  template <Index C>
  void row_probabilities(Index row, const double* y, double* prob) const {
    row_logits<C>(row, y, prob);
    softmax(prob, classes<C>());
  }

  //! out = the sum over the batch of grad_y CE = a (pi - e_b)^T on the free columns; returns
  //! the batch size.
  template <Index C>
  Index loss_gradient_sum(const std::vector<Index>& rows, std::span<const Index> s, const double* y,
                          Vec& out) const {
    double stack[4];
    double* prob = work<C>(stack).first;
    out.setZero(dim_y());
    return for_each_row(rows, s, [&](Index row) {
      row_probabilities<C>(row, y, prob);
      prob[label(row)] -= 1.0;
      add_row_outer<C>(row, prob, out);
    });
  }
  //! The sums of CE and of its gradient over the batch: the row work of loss_sum and
  //! loss_gradient_sum done once, with the same operations in the same order (the same bits).
  double loss_and_gradient_sum(const std::vector<Index>& rows, std::span<const Index> s, const double* y,
                               Vec& grad) const {
    double* prob = scratch(classes_).prob.data();
    grad.setZero(dim_y());
    double total = 0;
    for_each_row(rows, s, [&](Index row) {
      total += row_loss(row, y, prob);
      prob[label(row)] -= 1.0;
      add_row_outer(row, prob, grad);
    });
    return total;
  }
  //! out += the sum over the batch of grad^2 CE[V] = a (pi . V^T a - pi (pi^T V^T a))^T on the
  //! free columns (our derivation); probability_of(j): the probabilities of the client's row j.
  template <Index C, class ProbabilityOf>
  void add_loss_hvp(const std::vector<Index>& rows, std::span<const Index> s, ProbabilityOf&& probability_of,
                    const Vec& v, Vec& out) const {
    double stack[4];
    double* const direction = work<C>(stack).second;
    for (Index j : s) {
      const Index row = rows[static_cast<std::size_t>(j)];
      const double* pi = probability_of(j);
      row_logits<C>(row, v.data(), direction);
      double mean = 0;
      for (Index c = 0; c < classes<C>(); ++c) mean += pi[c] * direction[c];
      for (Index c = 0; c < classes<C>(); ++c) direction[c] = pi[c] * (direction[c] - mean);
      add_row_outer<C>(row, direction, out);
    }
  }
  //! out += (2/(cd)) diag(e^x) u for a y-shaped u: grad_y R at u = y, grad^2_yy R u at u = v.
  template <Index C>
  void add_regularizer_product(const Vec& z, const double* u, Vec& out) const {
    const double* ex = exp_x(z);
    const Index c = columns<C>();
    for (Index q = 0; q < d_; ++q) {
      const double w = 2 * reg_scale_ * ex[hp(q)];
      for (Index k = 0; k < c; ++k) out(q * c + k) += w * u[q * c + k];
    }
  }

  //! The sum of CE over the batch.
  double loss_sum(const std::vector<Index>& rows, std::span<const Index> s, const double* y) const {
    double* prob = scratch(classes_).prob.data();
    double total = 0;
    for_each_row(rows, s, [&](Index row) { total += row_loss(row, y, prob); });
    return total;
  }
  double mean_loss(const std::vector<Index>& rows, std::span<const Index> s, const double* y) const {
    const Index n = s.empty() ? static_cast<Index>(rows.size()) : static_cast<Index>(s.size());
    return loss_sum(rows, s, y) / static_cast<double>(n);
  }

  //! Accuracy (and mean CE into `loss`) over the test rows, their blocks added in order.
  double test_accuracy(const double* y, double* loss) const {
    struct Sums {
      double right, loss;
    };
    const auto& rows = data_.test_rows;
    Sums total{0, 0};
    fold_blocks_in_order(
        1, [&](int) { return blocks_of(rows.size()); }, total,
        [&](int, int b, Sums& part) {
          double* prob = scratch(classes_).prob.data();
          part = {0, 0};
          for_each_row(rows, block_of(rows.size(), b), [&](Index row) {
            part.loss += row_loss(row, y, prob);
            part.right += std::max_element(prob, prob + classes_) - prob == label(row);
          });
        },
        [&](int, int, Sums& part) {
          total.right += part.right;
          total.loss += part.loss;
        });
    const double n = static_cast<double>(rows.size());
    if (loss) *loss = total.loss / n;
    return total.right / n;
  }

  static ClientSplitRequest request(const Params& p) {
    ClientSplitRequest r = split_request("hyper-logreg", p);
    r.validation_file = p.validation_file;
    r.test_file = p.test_file;
    r.ranges = p.ranges;
    return r;
  }
  //! The entry of x that weighs feature q.
  Index hp(Index q) const { return scalar_ ? 0 : q; }

  //! The positions and block numbering of the row blocks, and the blocks of a Hessian part.
  void set_row_blocks() {
    Index longest = static_cast<Index>(data_.test_rows.size());
    for (int i = 0; i < num_clients(); ++i) longest = std::max({longest, num_samples(i), num_upper_samples(i)});
    positions_.resize(static_cast<std::size_t>(longest));
    std::iota(positions_.begin(), positions_.end(), Index{0});
    // A Hessian part zeroes and adds a whole matrix: it takes enough row blocks for its
    // products of row entries (c^2 nnz (nnz + 1) / 2 per row) to be four times its entries.
    const bool binary = columns_ == 2 && first_free() == 0;
    const double size = static_cast<double>(binary ? d_ : dim_y());
    const double nnz =
        static_cast<double>(data_.X.val.size()) / static_cast<double>(std::max<Index>(data_.X.rows, 1));
    const double products = static_cast<double>(kBlockRows) * nnz * (nnz + 1) / 2 *
                            (binary ? 1.0 : static_cast<double>(columns_ * columns_));
    hessian_blocks_ = std::max(1, static_cast<int>(std::ceil(4 * size * size / products)));
  }

  ClientSplit data_;
  std::vector<Index> positions_;        // 0, 1, 2, ...: the positions of every block
  int hessian_blocks_ = 1;              // row blocks per part of the dense Hessian
  Index classes_ = 0, columns_ = 0, d_ = 0;
  double reg_scale_ = 0;  // 1/(cd)
  double x0_ = 0;
  bool scalar_ = false;  // one hyperparameter for every feature
  LazyRowCache<HyperLogreg> hessian_cache_;
  ExpCache<HyperLogreg> exp_cache_;
};

FEDBENCH_REGISTER_PROBLEM(HyperLogreg, "hyper-logreg",
                          "per-feature L2 hyperparameters of logistic regression (bilevel), LIBSVM data",
                          "Zhang et al., IJCAI 2025, Eq. (12), Section 5.1");

}  // namespace fedbench::problems
