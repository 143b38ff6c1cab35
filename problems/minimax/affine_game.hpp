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
  //! A view of one stored d x d operator (whole columns of the packed storage).
  using OperatorBlock = Eigen::Block<const Mat, Eigen::Dynamic, Eigen::Dynamic, true>;

  std::string problem_class() const override { return "strongly monotone affine VIP"; }
  Vec initial_point() const override { return z0_.size() ? z0_ : Vec::Zero(dim()); }
  std::optional<Vec> reference_solution() const override;
  //! Every component (stacked per client), the client means and the global mean.
  void write_instance(InstanceWriter& out) const override;

  //! Component (i, j), the client mean operator M_i, zeta_i and the global means.
  OperatorBlock component_matrix(int i, Index j) const { return matrix_of(components_, first_[i] + j); }
  Mat::ConstColXpr component_offset(int i, Index j) const { return offset_of(components_, first_[i] + j); }
  OperatorBlock client_matrix(int i) const { return matrix_of(client_means_, i); }
  Mat::ConstColXpr client_offset(int i) const { return offset_of(client_means_, i); }
  const Mat& global_matrix() const { return global_M_; }
  const Vec& global_offset() const { return global_zeta_; }

 protected:
  //! Installs the components of every client (clients[i][j]) and the start point (empty: 0).
  void set_components(Index dim_x, Index dim_y, std::vector<std::vector<Component>> clients,
                      Vec z0 = {});

  void prefetch_client_data(int client) const override;
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override;
  double do_value(int client, std::span<const Index> samples, const Vec& z) const override;
  Constants compute_constants() const override;

 private:
  // Operators are packed as d x (d + 1) blocks, M then zeta, one block after another: a client's
  // components are one contiguous stretch of memory, which is what a cross-device round with
  // 10^5 clients pays for in cache misses (a heap block per matrix cost several cold lines).
  OperatorBlock matrix_of(const Mat& packed, Index block) const {
    return packed.middleCols(block * (dim() + 1), dim());
  }
  Mat::ConstColXpr offset_of(const Mat& packed, Index block) const {
    return packed.col(block * (dim() + 1) + dim());
  }
  //! The saddle-function value of stored component block `block` at z.
  double block_value(Index block, const Vec& z) const;

  Mat components_;            // every component, client after client
  std::vector<Index> first_;  // client i's components are blocks first_[i] .. first_[i+1]-1
  Mat client_means_;          // block i: M_i, zeta_i
  Mat global_M_;
  Vec global_zeta_;
  Vec z0_;
};

}  // namespace fedbench
