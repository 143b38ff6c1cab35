// Base of every problem whose components are affine operators F_ij(z) = M_ij z + zeta_ij (the
// games of S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024: eq. (5) of Section 5 and
// Appendices H.3-H.4): stores the per-sample operators, their client and global means, and
// derives the exact equilibrium z* = -Mbar^{-1} zetabar (an LU solve; our derivation, the
// paper does not state it) and every constant the theory presets need. A concrete game only
// generates its components.
//
// The value of component (i, j) is the quadratic saddle function whose VIP operator is F_ij:
//   phi(x, y) = 1/2 x^T sym(M_xx) x + x^T M_xy y - 1/2 y^T sym(M_yy) y + zeta_x^T x - zeta_y^T y,
// which needs M_yx = -M_xy^T (true of every game built here; checked at construction).
#pragma once
#include <vector>

#include "problem/minimax_problem.hpp"

namespace fedbench {

class AffineGame : public MinimaxProblem {
 public:
  struct Component {
    Mat M;
    Vec zeta;
  };

  std::string problem_class() const override { return "strongly monotone affine VIP"; }
  Vec initial_point() const override { return z0_.size() ? z0_ : Vec::Zero(dim()); }
  std::optional<Vec> reference_solution() const override;
  //! Every component (stacked per client), the client means and the global mean.
  void write_instance(InstanceWriter& out) const override;

  //! Client mean operator M_i, zeta_i and the global means (for tests and constants).
  const Mat& client_matrix(int i) const { return client_M_[i]; }
  const Vec& client_offset(int i) const { return client_zeta_[i]; }
  const Component& component(int i, Index j) const { return components_[i][j]; }
  const Mat& global_matrix() const { return global_M_; }
  const Vec& global_offset() const { return global_zeta_; }

 protected:
  //! Installs the components of every client (clients[i][j]) and the start point (empty: 0).
  void set_components(Index dim_x, Index dim_y, std::vector<std::vector<Component>> clients,
                      Vec z0 = {});

  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override;
  double do_value(int client, std::span<const Index> samples, const Vec& z) const override;
  Constants compute_constants() const override;

 private:
  double component_value(const Component& c, const Vec& z) const;

  std::vector<std::vector<Component>> components_;
  std::vector<Mat> client_M_;
  std::vector<Vec> client_zeta_;
  Mat global_M_;
  Vec global_zeta_;
  Vec z0_;
};

}  // namespace fedbench
