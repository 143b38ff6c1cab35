// Robust least squares, penalised form of
//   S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024, Section 5, eq. (6) (Fig. 2,
//   California Housing) and Appendix G.1 (Fig. 3, synthetic data).
//
//   the paper: min_beta max_y G(beta, y) = ||A beta - y||^2 - lambda ||y - y0||^2,   lambda > 1.
// Row k contributes
//   f_k = (a_k^T beta - y_k)^2 - lambda (y_k - y0_k)^2,
//   F_k = (2 a_k (a_k^T beta - y_k),  e_k 2 (a_k^T beta + (lambda-1) y_k - lambda y0_k)),
// client i (m_i rows) averages its rows and the clients are averaged unweighted (eq. (1) and
// eq. (12) of Appendix G), so the objective solved is
//   f(beta, y) = (1/M) sum_i (1/m_i) sum_{k of client i} f_k = sum_k w_k f_k,  w_k = 1/(M m_i).
// With the paper's split, M contiguous blocks of m = r/M rows, w_k = 1/r and f = G/r, F = (1/r) F_G
// (as the authors' code does; same solution, constants divided by r). z = (beta, y) has
// dimension s + r. The operator is applied in O(b s + r) per call of b rows: no per-row
// matrices are stored.
// Every row is used: when M does not divide r, the contiguous blocks hold floor(r/M) and
// ceil(r/M) rows (the first r mod M clients one row more; e.g. heart_scale's 270 rows over 20
// clients: 10 clients of 14 and 10 of 13), and the weights w_k above are then unequal. Other
// partitions (iid, shards, Dirichlet or quantity skew, by the y0 values) keep every row too.
//
// Exact solution (our derivation, not in the paper): beta* = the W-weighted least-squares
// solution argmin sum_k w_k (a_k^T beta - y0_k)^2 (A^+ y0 with equal blocks; the minimum-norm one
// when A is rank deficient, which is where GDA-type methods started at 0 converge),
// y* = (lambda y0 - A beta*) / (lambda - 1).
// Constants in closed form through the singular values of each row block X (m x s): on the
// pairs of singular vectors the operator scale [[X^T X, -X^T], [X, (lambda-1) I]] acts as the
// 2x2 matrices scale [[s^2, -s], [s, lambda-1]] (the eigenvalue formula 1/ell = min Re(1/lambda)
// of Appendix G, after Loizou et al. 2021, with the 1e-5 cutoff; mu is the true modulus
// 2 min(lambda_min(A^T A), lambda-1)/r, the authors' code's value without the factor 2 is
// stored as mu_code). With unequal blocks the global ones come from the weighted Jacobian
// 2 [[A^T W A, -A^T W], [W A, (lambda-1) W]]: mu in closed form, ||J|| and ell densely when
// s + r <= 1000 (no mu_code: the authors' formula assumes equal blocks).
// Resolved ambiguities: the paper's s = 20, beta0 ~ N(0, 0.1), eps ~ N(0, 0.01) read as
// variances (stds 0.316 and 0.1).
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>

#include "core/error.hpp"
#include "core/random.hpp"
#include "datasets/libsvm.hpp"
#include "datasets/partition.hpp"
#include "datasets/registry.hpp"
#include "linalg/operator_constants.hpp"
#include "problem/problem_registry.hpp"
#include "problems/common/client_rows.hpp"
#include "problems/common/instance_rows.hpp"
#include "problems/common/memory_check.hpp"

namespace fedbench::problems {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

//! Constants of scale [[X^T X, -X^T], [X, c I]] (X is m x s) embedded among `extra_zero`
//! further zero coordinates, from the squared singular values of X.
struct BlockConstants {
  double lipschitz = 0, mu = 0, ell_eig = 0, ell_exact = 0;
  bool invertible = true;
};

//! Eigenvalues of [[q, -sqrt(q)], [sqrt(q), c]]: trace q + c, determinant q c + q.
std::array<std::complex<double>, 2> pair_eigenvalues(double q, double c) {
  const double tr = q + c, det = q * c + q;
  const std::complex<double> root = std::sqrt(std::complex<double>(tr * tr - 4 * det));
  return {0.5 * (tr + root), 0.5 * (tr - root)};
}

BlockConstants block_constants(const Mat& X, double c, double scale, Index extra_zero) {
  const Index m = X.rows(), s = X.cols(), k = std::min(m, s);
  const Mat gram = m <= s ? Mat(X * X.transpose()) : Mat(X.transpose() * X);
  Vec sigma_sq = Eigen::SelfAdjointEigenSolver<Mat>(gram, Eigen::EigenvaluesOnly).eigenvalues();
  sigma_sq = sigma_sq.cwiseMax(0.0);

  BlockConstants out;
  double min_re_inverse = INFINITY, min_exact = INFINITY;
  auto eigenvalue = [&](std::complex<double> l) {
    l *= scale;
    if (std::abs(l) > linalg::kEigenvalueCutoff)
      min_re_inverse = std::min(min_re_inverse, l.real() / std::norm(l));
  };
  for (Index j = 0; j < k; ++j) {
    const double q = sigma_sq(j), sv = std::sqrt(q);
    for (const auto& l : pair_eigenvalues(q, c)) eigenvalue(l);
    Eigen::Matrix2d B;
    B << q, -sv, sv, c;
    out.lipschitz = std::max(out.lipschitz, scale * Eigen::JacobiSVD<Eigen::Matrix2d>(B)
                                                        .singularValues()(0));
    if (q > 0) {  // determinant q (c + 1) > 0
      const Eigen::Matrix2d inv = B.inverse() / scale;
      const Eigen::Matrix2d sym = 0.5 * (inv + inv.transpose());
      min_exact = std::min(min_exact, Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(sym)
                                          .eigenvalues()(0));
    } else {
      out.invertible = false;
    }
  }
  if (m > k) {  // y-directions orthogonal to the range of X: eigenvalue scale c
    eigenvalue(c);
    out.lipschitz = std::max(out.lipschitz, scale * c);
    min_exact = std::min(min_exact, 1.0 / (scale * c));
  }
  if (s > k || extra_zero > 0) out.invertible = false;  // beta-directions in the kernel of X
  const double lambda_min_gram = s > k ? 0.0 : sigma_sq.minCoeff();
  out.mu = extra_zero > 0 ? 0.0 : scale * std::min(lambda_min_gram, c);
  out.ell_eig = std::isfinite(min_re_inverse) ? 1.0 / min_re_inverse : 0.0;
  out.ell_exact = out.invertible ? 1.0 / min_exact : 0.0;
  return out;
}

}  // namespace

class RobustLeastSquares : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over beta in R^s (x, the min player) of max over y in R^r (the max player, one entry per row) of "
      "f(beta, y) = (1/M) sum_i (1/m_i) sum_{k in rows of client i} [ (a_k^T beta - y_k)^2 - lambda (y_k - y0_k)^2 ], "
      "lambda > 1, unconstrained; a_k the rows of A (r x s), y0 the targets (a data file's labels); no 1/2 factors. "
      "Every row is used: client i holds m_i rows (contiguous blocks in file order by default, of floor(r/M) or "
      "ceil(r/M) rows), so row k weighs w_k = 1/(M m_i). The paper (eq. (6)) writes "
      "G = ||A beta - y||^2 - lambda ||y - y0||^2; here, with equal blocks (m_i = r/M), f = G/r (the mean over "
      "rows, as the authors' code: same saddle point, operator and constants divided by r), and with unequal "
      "blocks f = sum_k w_k [...], whose saddle point has beta* = the w-weighted least-squares solution of "
      "A beta = y0 and y* = (lambda y0 - A beta*) / (lambda - 1).";
  struct Params {
    enum class Source { synthetic, libsvm, dataset };
    Source source;
    std::string path, dataset, partition;
    int rows, features, clients;
    std::int64_t partition_seed;
    double beta_std, noise_std, lambda;
    std::int64_t instance_seed;
  };
  static void declare(Schema<Params>& s) {
    s.choice("source", &Params::source, "synthetic", {{"synthetic", Params::Source::synthetic}, {"libsvm", Params::Source::libsvm},
              {"dataset", Params::Source::dataset}},
             "synthetic (Appendix G.1), a LIBSVM file given by path, or a registered dataset")
        .text("path", &Params::path, "", "LIBSVM file (features as A, labels as y0)")
        .text("dataset", &Params::dataset, "", "registered dataset (fedbench data list)")
        .text("partition", &Params::partition, "contiguous",
              "contiguous row blocks in file order (paper; sizes differ by at most one row), "
              "or iid | shards:S | dirichlet:A | quantity:A")
        .integer("partition_seed", &Params::partition_seed, "0", {.ge = 0}, "seed of the partition")
        .integer("rows", &Params::rows, "0", {.ge = 0},
                 "r; 0 = 200 (synthetic) or every row of the data; r > 0 keeps the first r rows "
                 "(the count used is the constant rows_used)")
        .integer("features", &Params::features, "0", {.ge = 0},
                 "s; 0 = 20 (synthetic) or the largest index in the file (libsvm)")
        .integer("clients", &Params::clients, "20", {.ge = 1}, "M, clients")
        .real("beta_std", &Params::beta_std, "0.31622776601683794", {.ge = 0},
              "std of beta0 (paper: variance 0.1)")
        .real("noise_std", &Params::noise_std, "0.1", {.ge = 0},
              "std of eps in y0 = A beta0 + eps (paper: variance 0.01)")
        .real("lambda", &Params::lambda, "50", {.gt = 1}, "penalty lambda of eq. (6)")
        .integer("instance_seed", &Params::instance_seed, "1024", {.ge = 0},
                 "seed of the synthetic instance");
  }

  explicit RobustLeastSquares(const Params& p) : lambda_(p.lambda) {
    if (p.source != Params::Source::libsvm && !p.path.empty())
      throw UserError("problem robust-least-squares: path is only read with source=libsvm");
    if (p.source != Params::Source::dataset && !p.dataset.empty())
      throw UserError("problem robust-least-squares: dataset is only read with source=dataset");
    if (p.source == Params::Source::synthetic) generate(p);
    if (p.source == Params::Source::libsvm) {
      if (p.path.empty())
        throw UserError("problem robust-least-squares: source=libsvm needs -p path=FILE");
      load(datasets::read_libsvm(p.path), p);
    }
    if (p.source == Params::Source::dataset) {
      if (p.dataset.empty())
        throw UserError("problem robust-least-squares: source=dataset needs -p dataset=NAME");
      load(datasets::load_libsvm(p.dataset), p);
    }
    const Index r = A_.rows();
    if (r < p.clients)
      throw UserError("problem robust-least-squares: " + std::to_string(r) +
                      " rows cannot be split over " + std::to_string(p.clients) +
                      " clients; lower clients");
    // Every row is kept: contiguous blocks differ by at most one row when clients do not
    // divide r (see above).
    const std::vector<double> targets(y0_.data(), y0_.data() + r);
    client_rows_ = datasets::partition_rows(targets, p.clients, datasets::PartitionScheme::parse(p.partition),
                                       static_cast<std::uint64_t>(p.partition_seed));
    // Clients are averaged unweighted (eqs. (1) and (12) of the paper), so row k weighs
    // 1 / (M m_i) in F.
    weights_.resize(A_.rows());
    std::vector<Index> sizes;
    for (const auto& rows : client_rows_) {
      sizes.push_back(static_cast<Index>(rows.size()));
      for (Index k : rows)
        weights_(k) = 1.0 / (static_cast<double>(p.clients) * static_cast<double>(rows.size()));
    }
    equal_sizes_ = std::all_of(sizes.begin(), sizes.end(), [&](Index m) { return m == sizes[0]; });
    set_shape(A_.cols(), A_.rows(), sizes);
  }

  std::string problem_class() const override { return "SC-SC (robust least squares)"; }

  void write_instance(InstanceWriter& out) const override {
    out.text("layout", "z = (beta, y): x = beta (features), y = one entry per row", "");
    out.matrix("A", A_, "rows a_k of the design matrix (rows used only)");
    out.vector("y0", y0_, "targets y0_k");
    out.scalar("lambda", lambda_, "lambda of -lambda ||y - y0||^2");
    write_client_rows(out, "rows", client_rows_, "the client's rows of A");
  }

  std::optional<Vec> reference_solution() const override {
    // Weighted least squares (ordinary when every client holds as many rows).
    const Vec root = weights_.cwiseSqrt();
    const Mat weighted = root.asDiagonal() * A_;
    const Vec beta =
        Eigen::CompleteOrthogonalDecomposition<Mat>(weighted).solve(root.cwiseProduct(y0_));
    Vec z(dim());
    z.head(dim_x()) = beta;
    z.tail(dim_y()) = (lambda_ * y0_ - A_ * beta) / (lambda_ - 1.0);
    return z;
  }

 protected:
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override {
    const Index s = dim_x();
    const auto& rows = client_rows_[client];
    const auto beta = z.head(s);
    out.setZero();
    auto add_row = [&](Index k) {
      const double prediction = A_.row(k).dot(beta);
      out.head(s) += (2.0 * (prediction - z(s + k))) * A_.row(k).transpose();
      out(s + k) += 2.0 * (prediction + (lambda_ - 1.0) * z(s + k) - lambda_ * y0_(k));
    };
    out /= static_cast<double>(for_each_row(rows, samples, add_row));
  }

  double do_value(int client, std::span<const Index> samples, const Vec& z) const override {
    const Index s = dim_x();
    const auto& rows = client_rows_[client];
    auto row_value = [&](Index k) {
      const double residual = A_.row(k).dot(z.head(s)) - z(s + k);
      const double shift = z(s + k) - y0_(k);
      return residual * residual - lambda_ * shift * shift;
    };
    double total = 0;
    const Index n = for_each_row(rows, samples, [&](Index k) { total += row_value(k); });
    return total / static_cast<double>(n);
  }

  Constants compute_constants() const override {
    const double c = lambda_ - 1.0;
    const Index r = A_.rows();
    Constants k;
    double lip_clients = 0, ell_clients = 0, ell_rows = 0;
    for (int i = 0; i < num_clients(); ++i) {
      const auto& rows = client_rows_[i];
      const Index m = static_cast<Index>(rows.size());
      Mat block(m, A_.cols());
      for (Index j = 0; j < m; ++j) block.row(j) = A_.row(rows[j]);
      const BlockConstants b = block_constants(block, c, 2.0 / static_cast<double>(m), r - m);
      lip_clients = std::max(lip_clients, b.lipschitz);
      ell_clients = std::max(ell_clients, b.ell_eig);
    }
    for (Index row = 0; row < r; ++row) {
      // A single row: one pair with sigma^2 = |a_k|^2 (rank-2 M_k; eigenvalue formula of App. G).
      for (std::complex<double> l : pair_eigenvalues(A_.row(row).squaredNorm(), c)) {
        l *= 2.0;
        if (std::abs(l) > linalg::kEigenvalueCutoff)
          ell_rows = std::max(ell_rows, std::norm(l) / l.real());
      }
    }
    k.set(Constant::lipschitz_client_max, lip_clients, "max_i ||M_i||_2");
    k.set(Constant::cocoercivity_client_max, lip_clients > 0 ? ell_clients : 0,
          "max_i ell_i, eigenvalue formula (cutoff 1e-5; client operators are singular)");
    k.set(Constant::cocoercivity_sample_max, ell_rows, "max_k ell_k over rows, eigenvalue formula");
    k.set(Constant::rows_used, static_cast<double>(r), "rows kept");
    if (!equal_sizes_) {
      // sym J = 2 diag(A^T W A, (lambda-1) W): mu in closed form; no SVD shortcut for ||J||.
      const Mat gram = A_.transpose() * weights_.asDiagonal() * A_;
      const double mu = 2 * std::min(Eigen::SelfAdjointEigenSolver<Mat>(gram).eigenvalues()(0),
                                     c * weights_.minCoeff());
      k.set(Constant::mu, mu, "2 min(lambda_min(A^T W A), (lambda-1) min w): strong monotonicity of F "
                      "with unequal clients (w_k = 1/(M m_i))");
      k.set(Constant::mu_global, mu, "same as mu");
      // The global Jacobian as a dense matrix when an eigenproblem of its size is cheap (e.g.
      // heart_scale's 270 rows over 20 clients: 13 + 270), computed when a preset asks.
      if (dim() <= kDenseJacobianMax)
        k.later({Constant::lipschitz, Constant::cocoercivity, Constant::cocoercivity_exact},
                [this, gram, c, mu](Constants& out) {
                  const Index s = dim_x(), rows = dim_y();
                  Mat J(dim(), dim());
                  J.topLeftCorner(s, s) = 2 * gram;
                  J.topRightCorner(s, rows) = -2 * A_.transpose() * weights_.asDiagonal();
                  J.bottomLeftCorner(rows, s) = 2 * weights_.asDiagonal() * A_;
                  J.bottomRightCorner(rows, rows) = Mat((2 * c * weights_).asDiagonal());
                  const std::string dense = ", J = 2 [[A^T W A, -A^T W], [W A, (lambda-1) W]] built densely";
                  out.set(Constant::lipschitz, linalg::lipschitz(J), "||J||_2 of F" + dense);
                  out.set(Constant::cocoercivity, linalg::cocoercivity_eig(J),
                          "ell of F, eigenvalue formula (cutoff 1e-5)" + dense);
                  if (mu > 0)
                    out.set(Constant::cocoercivity_exact, linalg::cocoercivity_exact(J), "exact ell of F" + dense);
                });
      return k;
    }
    const BlockConstants global = block_constants(A_, c, 2.0 / static_cast<double>(r), 0);
    k.set(Constant::mu, global.mu, "2 min(lambda_min(A^T A), lambda-1)/r: strong monotonicity of F; "
                           "clients are only monotone (our fallback to the global value; Assumption 4.1 asks for "
                           "every mu_i > 0)");
    k.set(Constant::mu_global, global.mu, "same as mu");
    k.set(Constant::mu_code, 0.5 * global.mu, "the authors' code's min(lambda_min(A^T A), lambda-1)/r");
    k.set(Constant::lipschitz, global.lipschitz, "||J||_2 of F");
    k.set(Constant::cocoercivity, global.ell_eig, "ell of F, eigenvalue formula (cutoff 1e-5)");
    if (global.invertible) k.set(Constant::cocoercivity_exact, global.ell_exact, "exact ell of F");
    return k;
  }

 private:
  void generate(const Params& p) {
    const Index r = p.rows == 0 ? 200 : p.rows, s = p.features == 0 ? 20 : p.features;
    const auto seed = static_cast<std::uint64_t>(p.instance_seed);
    Stream beta_rng(seed, "robust-least-squares-beta");
    Vec beta0(s);
    for (Index j = 0; j < s; ++j) beta0(j) = p.beta_std * beta_rng.normal();
    A_.resize(r, s);
    y0_.resize(r);
    for (Index k = 0; k < r; ++k) {
      Stream row_rng(seed, "robust-least-squares-row", -1, k);
      for (Index j = 0; j < s; ++j) A_(k, j) = row_rng.normal();
      y0_(k) = A_.row(k).dot(beta0) + p.noise_std * row_rng.normal();
    }
  }

  void load(const datasets::LibsvmData& data, const Params& p) {
    const int s = p.features == 0 ? data.max_index : p.features;
    // x has one entry per feature and the rows are kept dense (the operator's constants come
    // from an SVD): a huge index would make a huge dense problem, so it is refused.
    constexpr int kMaxFeatures = 100000;
    if (s > kMaxFeatures)
      throw UserError(data.path + ":" + std::to_string(data.max_index_line) + ": feature index " +
                      std::to_string(data.max_index) + " gives robust-least-squares " + std::to_string(s) +
                      " features (x has one entry per feature, rows are dense); it takes at most " +
                      std::to_string(kMaxFeatures));
    check_fits("problem robust-least-squares", "rows x features = " + std::to_string(data.num_rows()) + " x " +
                   std::to_string(s) + " numbers", static_cast<double>(data.num_rows()) * s);
    const Mat X = data.dense(s);
    const Index r = p.rows == 0 ? data.num_rows() : std::min<Index>(p.rows, data.num_rows());
    A_ = X.topRows(r);
    y0_ = Eigen::Map<const Vec>(data.labels.data(), r);
  }

  //! Largest s + r whose dense global Jacobian gives the constants of unequal clients.
  static constexpr Index kDenseJacobianMax = 1000;

  double lambda_;
  RowMat A_;
  Vec y0_;
  std::vector<std::vector<Index>> client_rows_;  //!< rows of A held by each client
  Vec weights_;                                   //!< 1 / (M m_i) per row
  bool equal_sizes_ = true;
};

FEDBENCH_REGISTER_PROBLEM(RobustLeastSquares, "robust-least-squares",
                          "penalised robust least squares (paper eq. 6), synthetic or LIBSVM",
                          "Zhang, Choudhury, Stich, Loizou, ICLR 2024, Eq. (6), Appendix G.1");

}  // namespace fedbench::problems
