// A factorisation of the lower-level Hessian grad^2_yy g(x, y) at one point, kept for several
// solves: Newton's chord steps towards y*(x) and the hypergradient's linear system.
#pragma once
#include <Eigen/Cholesky>
#include <memory>
#include <utility>

#include "core/types.hpp"

namespace fedbench {

class LowerHessianFactor {
 public:
  virtual ~LowerHessianFactor() = default;
  //! H^-1 rhs.
  virtual Vec solve(const Vec& rhs) const = 0;
};

//! The Cholesky factor of a dense Hessian (what a problem's lower_hessian builds).
class DenseCholeskyFactor final : public LowerHessianFactor {
 public:
  //! Null when the matrix is not numerically positive definite (the solves then fall back to
  //! conjugate gradients).
  static std::unique_ptr<LowerHessianFactor> of(const Mat& hessian) {
    Eigen::LLT<Mat> llt(hessian);
    if (llt.info() != Eigen::Success) return nullptr;
    return std::unique_ptr<LowerHessianFactor>(new DenseCholeskyFactor(std::move(llt)));
  }
  Vec solve(const Vec& rhs) const override { return llt_.solve(rhs); }

 private:
  explicit DenseCholeskyFactor(Eigen::LLT<Mat> llt) : llt_(std::move(llt)) {}
  Eigen::LLT<Mat> llt_;
};

}  // namespace fedbench
