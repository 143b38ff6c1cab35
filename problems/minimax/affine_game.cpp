#include "problems/minimax/affine_game.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "linalg/operator_constants.hpp"

namespace fedbench {

void AffineGame::set_components(Index dim_x, Index dim_y,
                                std::vector<std::vector<Component>> clients, Vec z0) {
  const Index d = dim_x + dim_y;
  std::vector<Index> sizes;
  for (const auto& comps : clients) sizes.push_back(static_cast<Index>(comps.size()));
  set_shape(dim_x, dim_y, sizes);

  const auto n = static_cast<Index>(clients.size());
  first_.assign(1, 0);
  for (Index m : sizes) first_.push_back(first_.back() + m);
  components_.resize(d, (d + 1) * first_.back());
  client_means_.resize(d, (d + 1) * n);
  global_M_ = Mat::Zero(d, d);
  global_zeta_ = Vec::Zero(d);
  for (Index i = 0; i < n; ++i) {
    Mat client_M = Mat::Zero(d, d);
    Vec client_zeta = Vec::Zero(d);
    for (std::size_t j = 0; j < clients[i].size(); ++j) {
      Component& c = clients[i][j];
      FEDBENCH_CHECK(c.M.rows() == d && c.M.cols() == d && c.zeta.size() == d,
                     "affine component has the wrong shape");
      const Mat coupling_sum = c.M.topRightCorner(dim_x, dim_y).transpose() +
                               c.M.bottomLeftCorner(dim_y, dim_x);
      FEDBENCH_CHECK(coupling_sum.cwiseAbs().maxCoeff() <= 1e-12 * (1 + c.M.cwiseAbs().maxCoeff()),
                     "affine component is not the operator of a saddle function (M_yx != -M_xy^T)");
      client_M += c.M;
      client_zeta += c.zeta;
      const Index block = first_[i] + static_cast<Index>(j);
      components_.middleCols(block * (d + 1), d) = c.M;
      components_.col(block * (d + 1) + d) = c.zeta;
      c = Component{};  // give the generator's copy back as we go: set-up peaks at one copy
    }
    const double m = static_cast<double>(clients[i].size());
    client_M /= m;
    client_zeta /= m;
    global_M_ += client_M;
    global_zeta_ += client_zeta;
    client_means_.middleCols(i * (d + 1), d) = client_M;
    client_means_.col(i * (d + 1) + d) = client_zeta;
  }
  global_M_ /= static_cast<double>(n);
  global_zeta_ /= static_cast<double>(n);
  z0_ = std::move(z0);
}

void AffineGame::prefetch_client_data(int client) const {
  // The first component's block (all of it for a client with one sample): minibatch oracles
  // read components; the mean block is read only by full-batch ones, which do enough work per
  // byte not to need the hint.
  const Index bytes = dim() * (dim() + 1) * static_cast<Index>(sizeof(double));
  const char* first = reinterpret_cast<const char*>(components_.data()) + first_[client] * bytes;
  for (Index b = 0; b < std::min<Index>(bytes + 64, 512); b += 64) __builtin_prefetch(first + b);
}

// Allocation-free: out is sized by the caller, and the matrix-vector products write into it.
void AffineGame::do_op(int client, std::span<const Index> samples, const Vec& z,
                       Vec& out) const {
  if (samples.empty()) {
    out.noalias() = client_matrix(client) * z;
    out += client_offset(client);
    return;
  }
  out.setZero();
  const Index first = first_[client];
  for (Index j : samples) {
    out.noalias() += matrix_of(components_, first + j) * z;
    out += offset_of(components_, first + j);
  }
  out /= static_cast<double>(samples.size());
}

double AffineGame::block_value(Index block, const Vec& z) const {
  const Index dx = dim_x(), dy = dim_y();
  const auto M = matrix_of(components_, block);
  const auto zeta = offset_of(components_, block);
  const auto x = z.head(dx);
  const auto y = z.tail(dy);
  // x^T M_xx x equals x^T sym(M_xx) x, so the symmetric part need not be formed.
  return 0.5 * x.dot(M.topLeftCorner(dx, dx) * x) + x.dot(M.topRightCorner(dx, dy) * y) -
         0.5 * y.dot(M.bottomRightCorner(dy, dy) * y) + zeta.head(dx).dot(x) - zeta.tail(dy).dot(y);
}

double AffineGame::do_value(int client, std::span<const Index> samples, const Vec& z) const {
  double s = 0;
  const Index first = first_[client];
  if (samples.empty()) {
    for (Index b = first; b < first_[client + 1]; ++b) s += block_value(b, z);
    return s / static_cast<double>(first_[client + 1] - first);
  }
  for (Index j : samples) s += block_value(first + j, z);
  return s / static_cast<double>(samples.size());
}

std::optional<Vec> AffineGame::reference_solution() const {
  Eigen::PartialPivLU<Mat> lu(global_M_);
  Vec z = lu.solve(-global_zeta_);
  return z;
}

Constants AffineGame::compute_constants() const {
  using namespace linalg;
  Constants k;
  const int n = num_clients();
  // Global constants: one d x d eigenproblem each.
  const double mu_global = strong_monotonicity(global_M_);
  k.set(Constant::mu_global, mu_global, "lambda_min(sym Mbar), strong monotonicity of F (< 0: not monotone)");
  k.set(Constant::lipschitz, lipschitz(global_M_), "||Mbar||_2, Lipschitz constant of F");
  // Heterogeneity at the solution, sigma_*^2 = (1/n) sum_i ||F_i(z*)||^2 (Assumption 2.2).
  const Vec z_star = *reference_solution();
  double sigma = 0, worst = 0;
  for (int i = 0; i < n; ++i) {
    const double s = (client_matrix(i) * z_star + client_offset(i)).squaredNorm();
    sigma += s;
    worst = std::max(worst, s);
  }
  k.set(Constant::sigma_star_sq, sigma / n, "(1/n) sum_i ||F_i(z*)||^2");
  k.set(Constant::heterogeneity, worst, "max_i ||F_i(z*) - F(z*)||^2 (the measure of Zhang et al. 2024, App. H.4)");
  // Cocoercivity needs a monotone operator; without it, theory presets must fail, not guess.
  const bool monotone = mu_global >= 0;
  if (monotone) {
    k.set(Constant::cocoercivity, cocoercivity_eig(global_M_),
          "ell of F by the paper's eigenvalue formula 1/ell = min Re(1/lambda), |lambda| > 1e-5");
    if (mu_global > 0)
      k.set(Constant::cocoercivity_exact, cocoercivity_exact(global_M_),
            "exact ell of F: 1/lambda_min(sym(Mbar^-1)) (ours; the paper uses the eigenvalue formula)");
  }
  // Per client: n eigenproblems, computed when a preset asks.
  k.later({Constant::mu, Constant::lipschitz_client_max, Constant::cocoercivity_client_max,
           Constant::cocoercivity_client_max_exact},
          [this, n, mu_global, monotone](Constants& c) {
            double mu_clients = INFINITY, lip_clients = 0, ell_clients = 0, ell_clients_exact = 0;
            for (int i = 0; i < n; ++i) {
              mu_clients = std::min(mu_clients, strong_monotonicity(client_matrix(i)));
              lip_clients = std::max(lip_clients, lipschitz(client_matrix(i)));
              ell_clients = std::max(ell_clients, cocoercivity_eig(client_matrix(i)));
            }
            c.set(Constant::lipschitz_client_max, lip_clients, "max_i ||M_i||_2");
            if (mu_clients > 0) {
              c.set(Constant::mu, mu_clients, "min_i lambda_min(sym M_i): strong monotonicity of every client "
                                              "operator (Assumption 4.1 of Zhang et al. 2024)");
            } else if (mu_global > 0) {
              c.set(Constant::mu, mu_global, "lambda_min(sym Mbar) of the global operator: some client is only "
                                             "monotone (mu_i = " + format_real(mu_clients) + "); our fallback, Assumption 4.1 asks for every mu_i > 0");
            }
            if (!monotone) return;
            c.set(Constant::cocoercivity_client_max, ell_clients, "max_i ell_i, eigenvalue formula (Zhang et al. 2024, App. G)");
            if (mu_clients > 0) {
              for (int i = 0; i < n; ++i)
                ell_clients_exact = std::max(ell_clients_exact, cocoercivity_exact(client_matrix(i)));
              c.set(Constant::cocoercivity_client_max_exact, ell_clients_exact, "max_i exact ell_i");
            }
          });
  // Per sample: an eigenproblem and an LU per component, the most expensive constants.
  if (!monotone) return k;
  k.later({Constant::cocoercivity_sample_max, Constant::cocoercivity_sample_max_exact}, [this, n](Constants& c) {
    double ell_samples = 0, ell_samples_exact = 0;
    bool samples_invertible = true;
    for (Index b = 0; b < first_[n]; ++b) {
      const Mat M = matrix_of(components_, b);
      ell_samples = std::max(ell_samples, cocoercivity_eig(M));
      if (samples_invertible && Eigen::FullPivLU<Mat>(M).isInvertible() && strong_monotonicity(M) > 0)
        ell_samples_exact = std::max(ell_samples_exact, cocoercivity_exact(M));
      else
        samples_invertible = false;
    }
    c.set(Constant::cocoercivity_sample_max, ell_samples, "max_ij ell_ij, eigenvalue formula (Zhang et al. 2024, App. G)");
    if (samples_invertible)
      c.set(Constant::cocoercivity_sample_max_exact, ell_samples_exact, "max_ij exact ell_ij");
  });
  return k;
}

void AffineGame::write_instance(InstanceWriter& out) const {
  const Index d = dim();
  out.matrix("global/M", global_M_, "Mbar = mean over clients of M_i: F(z) = Mbar z + zetabar");
  out.vector("global/zeta", global_zeta_, "zetabar, mean over clients of zeta_i");
  for (int i = 0; i < num_clients(); ++i) {
    const std::string client = "clients/" + std::to_string(i) + "/";
    const Index m = num_samples(i);
    Mat M(m * d, d), zeta(m, d);
    for (Index j = 0; j < m; ++j) {
      M.middleRows(j * d, d) = component_matrix(i, j);
      zeta.row(j) = component_offset(i, j).transpose();
    }
    out.matrix(client + "M", M, "components stacked: M_ij = M[j*d:(j+1)*d, :], F_ij(z) = M_ij z + zeta_ij");
    out.matrix(client + "zeta", zeta, "zeta_ij = zeta[j, :]");
    out.matrix(client + "M_mean", client_matrix(i), "M_i, the mean of the client's components");
    out.vector(client + "zeta_mean", client_offset(i), "zeta_i, the mean of the client's offsets");
  }
}

}  // namespace fedbench
