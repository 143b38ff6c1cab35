// Heterogeneous quadratic games whose min player may be nonconvex (NC-SC), for checking the
// NC-SC rate claims of W. Shen et al., AISTATS 2024 (FESS-GDA, Section 3.2) and J. Xie et al.,
// arXiv 2105.14216, 2021 (CD-MAGE, Section 4): fedbench's own test bed, in neither paper; the
// games have the form of eq. (5) of S. Zhang et al., ICLR 2024, with a nonconvex A.
//
//   f_i(x, y) = 1/2 x^T A_i x + x^T B_i y - 1/2 y^T C_i y + a_i^T x - c_i^T y,
//   A_i = Q diag(U(a_min, a_max)) Q^T (a_min < 0 makes f nonconvex in x),
//   C_i = Q' diag(U(c_min, c_max)) Q'^T (strongly concave in y),
//   B_i = coupling I + spread Q'' diag(U(0,1)) Q''^T,  a_i, c_i ~ N(0, I) + client shift.
// With Cbar = mean C_i, Phi(x) = max_y f(x, y) is the quadratic with Hessian
// H = Abar + Bbar Cbar^{-1} Bbar^T; the constructor raises `coupling` until H is positive
// definite with margin (so x* is a strict minimum of Phi and (x*, y*) the unique stationary
// point, found by the LU solve of AffineGame). Constants: mu_y = lambda_min(Cbar) (strong
// concavity), phi_mu = lambda_min(H), phi_smoothness = lambda_max(H), plus the operator
// constants of AffineGame (mu may be negative: the operator is not monotone).
#include <Eigen/Eigenvalues>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "problem/problem_registry.hpp"
#include "problems/minimax/affine_game.hpp"
#include "problems/common/random_spectrum.hpp"

namespace fedbench::problems {

class NcScQuadratic : public AffineGame {
 public:
  static constexpr const char* kObjective =
      "min over x in R^d of max over y in R^d (unconstrained) of f = (1/M) sum_i f_i, one component per client, "
      "f_i(x, y) = 1/2 x^T A_i x + x^T B_i y - 1/2 y^T C_i y + a_i^T x - c_i^T y; A_i symmetric with eigenvalues "
      "U(a_min, a_max) (a_min < 0: nonconvex in x), C_i symmetric with eigenvalues U(c_min, c_max) (strongly "
      "concave in y), B_i = coupling I + spread Q diag(U(0, 1)) Q^T, every entry of (a_i, c_i) N(0, 1) plus the "
      "client's one scalar shift N(0, heterogeneity^2); coupling doubled (to at least 0.1) until "
      "lambda_min(Abar + Bbar Cbar^-1 Bbar^T) >= 0.1 c_min (bars: means over clients), so Phi(x) = max_y f is "
      "strongly convex and the stationary point is unique. fedbench's own test problem (no paper equation).";
  struct Params {
    int clients, dim;
    double a_min, a_max, c_min, c_max, coupling, spread, heterogeneity;
    std::int64_t instance_seed;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "10", {.ge = 1}, "M, clients (one component each)")
        .integer("dim", &Params::dim, "10", {.ge = 1}, "d, dimension of x and of y")
        .real("a_min", &Params::a_min, "-0.5", {}, "lower end of the A spectra (< 0: nonconvex in x)")
        .real("a_max", &Params::a_max, "1", {}, "upper end of the A spectra")
        .real("c_min", &Params::c_min, "0.5", {.gt = 0}, "lower end of the C spectra")
        .real("c_max", &Params::c_max, "1", {.gt = 0}, "upper end of the C spectra")
        .real("coupling", &Params::coupling, "1", {.ge = 0}, "starting scale of B (raised if needed)")
        .real("spread", &Params::spread, "0.2", {.ge = 0}, "random part of B_i")
        .real("heterogeneity", &Params::heterogeneity, "1", {.ge = 0}, "std of a per-client shift of (a_i, c_i)")
        .integer("instance_seed", &Params::instance_seed, "7", {.ge = 0}, "seed of the instance");
  }

  explicit NcScQuadratic(const Params& p) {
    if (p.a_min > p.a_max || p.c_min > p.c_max)
      throw UserError("problem nc-sc-quadratic: spectra need a_min <= a_max and c_min <= c_max");
    const Index d = p.dim;
    const auto seed = static_cast<std::uint64_t>(p.instance_seed);
    std::vector<Mat> A, B, C;
    std::vector<Vec> zeta;
    for (int i = 0; i < p.clients; ++i) {
      Stream rng(seed, "nc-sc-quadratic", i);
      A.push_back(random_spectrum_matrix(rng, d, p.a_min, p.a_max));
      C.push_back(random_spectrum_matrix(rng, d, p.c_min, p.c_max));
      B.push_back(p.spread * random_spectrum_matrix(rng, d, 0.0, 1.0));
      Vec z(2 * d);
      const double shift = p.heterogeneity * rng.normal();
      for (Index k = 0; k < 2 * d; ++k) z(k) = rng.normal() + shift;
      zeta.push_back(z);
    }
    // Raise the coupling until H = Abar + Bbar Cbar^-1 Bbar^T >= 0.1 * c_min (Phi strongly convex).
    Mat Abar = Mat::Zero(d, d), Brand = Mat::Zero(d, d), Cbar = Mat::Zero(d, d);
    for (int i = 0; i < p.clients; ++i) {
      Abar += A[i] / p.clients;
      Brand += B[i] / p.clients;
      Cbar += C[i] / p.clients;
    }
    coupling_ = p.coupling;
    for (int tries = 0; tries < 60 && phi_hessian(Abar, Brand, Cbar).second < 0.1 * p.c_min; ++tries)
      coupling_ = std::max(2 * coupling_, 0.1);
    std::vector<std::vector<Component>> clients(p.clients);
    for (int i = 0; i < p.clients; ++i) {
      Component c{Mat(2 * d, 2 * d), zeta[i]};
      const Mat Bi = B[i] + coupling_ * Mat::Identity(d, d);
      c.M << A[i], Bi, -Bi.transpose(), C[i];
      clients[i].push_back(std::move(c));
    }
    const auto [H, phi_mu] = phi_hessian(Abar, Brand, Cbar);
    Eigen::SelfAdjointEigenSolver<Mat> eig(H, Eigen::EigenvaluesOnly);
    phi_mu_ = phi_mu;
    phi_smooth_ = eig.eigenvalues().maxCoeff();
    mu_y_ = Eigen::SelfAdjointEigenSolver<Mat>(Cbar, Eigen::EigenvaluesOnly).eigenvalues()(0);
    set_components(d, d, std::move(clients));
  }

  std::string problem_class() const override { return "NC-SC quadratic"; }

 protected:
  Constants compute_constants() const override {
    Constants k = AffineGame::compute_constants();
    k.set(Constant::mu_y, mu_y_, "lambda_min(Cbar): strong concavity in y");
    k.set(Constant::phi_mu, phi_mu_, "lambda_min(H), H = Abar + Bbar Cbar^-1 Bbar^T (Phi = max_y f)");
    k.set(Constant::phi_smoothness, phi_smooth_, "lambda_max(H)");
    k.set(Constant::coupling, coupling_, "the scale of B actually used");
    return k;
  }

 private:
  std::pair<Mat, double> phi_hessian(const Mat& Abar, const Mat& Brand, const Mat& Cbar) const {
    const Mat Bbar = Brand + coupling_ * Mat::Identity(Abar.rows(), Abar.cols());
    Mat H = Abar + Bbar * Cbar.ldlt().solve(Bbar.transpose());
    H = 0.5 * (H + H.transpose());
    return {H, Eigen::SelfAdjointEigenSolver<Mat>(H, Eigen::EigenvaluesOnly).eigenvalues()(0)};
  }

  double coupling_ = 0, phi_mu_ = 0, phi_smooth_ = 0, mu_y_ = 0;
};

FEDBENCH_REGISTER_PROBLEM(NcScQuadratic, "nc-sc-quadratic",
                          "heterogeneous quadratic game, nonconvex in x, strongly concave in y",
                          "fedbench test problem (not in the papers)");

}  // namespace fedbench::problems
