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

  components_ = std::move(clients);
  client_M_.assign(components_.size(), Mat::Zero(d, d));
  client_zeta_.assign(components_.size(), Vec::Zero(d));
  global_M_ = Mat::Zero(d, d);
  global_zeta_ = Vec::Zero(d);
  for (std::size_t i = 0; i < components_.size(); ++i) {
    for (const Component& c : components_[i]) {
      FEDBENCH_CHECK(c.M.rows() == d && c.M.cols() == d && c.zeta.size() == d,
                     "affine component has the wrong shape");
      const Mat coupling_sum = c.M.topRightCorner(dim_x, dim_y).transpose() +
                               c.M.bottomLeftCorner(dim_y, dim_x);
      FEDBENCH_CHECK(coupling_sum.cwiseAbs().maxCoeff() <= 1e-12 * (1 + c.M.cwiseAbs().maxCoeff()),
                     "affine component is not the operator of a saddle function (M_yx != -M_xy^T)");
      client_M_[i] += c.M;
      client_zeta_[i] += c.zeta;
    }
    const double m = static_cast<double>(components_[i].size());
    client_M_[i] /= m;
    client_zeta_[i] /= m;
    global_M_ += client_M_[i];
    global_zeta_ += client_zeta_[i];
  }
  global_M_ /= static_cast<double>(components_.size());
  global_zeta_ /= static_cast<double>(components_.size());
  z0_ = std::move(z0);
}

// Allocation-free: out is sized by the caller, and the matrix-vector products write into it.
void AffineGame::do_op(int client, std::span<const Index> samples, const Vec& z,
                       Vec& out) const {
  if (samples.empty()) {
    out.noalias() = client_M_[client] * z;
    out += client_zeta_[client];
    return;
  }
  out.setZero();
  for (Index j : samples) {
    const Component& c = components_[client][j];
    out.noalias() += c.M * z;
    out += c.zeta;
  }
  out /= static_cast<double>(samples.size());
}

double AffineGame::component_value(const Component& c, const Vec& z) const {
  const Index dx = dim_x(), dy = dim_y();
  const auto x = z.head(dx);
  const auto y = z.tail(dy);
  // x^T M_xx x equals x^T sym(M_xx) x, so the symmetric part need not be formed.
  return 0.5 * x.dot(c.M.topLeftCorner(dx, dx) * x) + x.dot(c.M.topRightCorner(dx, dy) * y) -
         0.5 * y.dot(c.M.bottomRightCorner(dy, dy) * y) + c.zeta.head(dx).dot(x) -
         c.zeta.tail(dy).dot(y);
}

double AffineGame::do_value(int client, std::span<const Index> samples, const Vec& z) const {
  double s = 0;
  if (samples.empty()) {
    for (const Component& c : components_[client]) s += component_value(c, z);
    return s / static_cast<double>(components_[client].size());
  }
  for (Index j : samples) s += component_value(components_[client][j], z);
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
    const double s = (client_M_[i] * z_star + client_zeta_[i]).squaredNorm();
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
              mu_clients = std::min(mu_clients, strong_monotonicity(client_M_[i]));
              lip_clients = std::max(lip_clients, lipschitz(client_M_[i]));
              ell_clients = std::max(ell_clients, cocoercivity_eig(client_M_[i]));
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
                ell_clients_exact = std::max(ell_clients_exact, cocoercivity_exact(client_M_[i]));
              c.set(Constant::cocoercivity_client_max_exact, ell_clients_exact, "max_i exact ell_i");
            }
          });
  // Per sample: an eigenproblem and an LU per component, the most expensive constants.
  if (!monotone) return k;
  k.later({Constant::cocoercivity_sample_max, Constant::cocoercivity_sample_max_exact}, [this, n](Constants& c) {
    double ell_samples = 0, ell_samples_exact = 0;
    bool samples_invertible = true;
    for (int i = 0; i < n; ++i)
      for (const Component& comp : components_[i]) {
        ell_samples = std::max(ell_samples, cocoercivity_eig(comp.M));
        if (samples_invertible && Eigen::FullPivLU<Mat>(comp.M).isInvertible() &&
            strong_monotonicity(comp.M) > 0)
          ell_samples_exact = std::max(ell_samples_exact, cocoercivity_exact(comp.M));
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
    const auto& parts = components_[i];
    const Index m = static_cast<Index>(parts.size());
    Mat M(m * d, d), zeta(m, d);
    for (Index j = 0; j < m; ++j) {
      M.middleRows(j * d, d) = parts[j].M;
      zeta.row(j) = parts[j].zeta.transpose();
    }
    out.matrix(client + "M", M, "components stacked: M_ij = M[j*d:(j+1)*d, :], F_ij(z) = M_ij z + zeta_ij");
    out.matrix(client + "zeta", zeta, "zeta_ij = zeta[j, :]");
    out.matrix(client + "M_mean", client_M_[i], "M_i, the mean of the client's components");
    out.vector(client + "zeta_mean", client_zeta_[i], "zeta_i, the mean of the client's offsets");
  }
}

}  // namespace fedbench
