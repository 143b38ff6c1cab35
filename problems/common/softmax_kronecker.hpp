// A preconditioner for the lower Hessian of a ridge-regularised linear softmax classifier
// W in R^{C x F} (feature-major: W_{k,q} at q*C + k), whose Hessian is
//   H = sum_j c_j (a_j a_j^T) (x) (diag(pi_j) - pi_j pi_j^T) + 2 gamma I
// (rows a_j with their bias entry, weights c_j, softmax probabilities pi_j). At a small ridge
// conjugate gradients on H need hundreds of products, mostly for the spread of the features'
// second moments (pixels are strongly correlated); the classes add little. So H is
// approximated by a Kronecker product plus the ridge,
//   P = G (x) S + 2 gamma I,
// with G the rows' mean a a^T (fixed by the data: factored once) and S the rows' curvatures
// diag(pi) - pi pi^T averaged with weights c_j ||a_j||^2 (so that P's data part has H's trace).
// The eigenvectors U of G and Q of S diagonalise P, so P^-1 r = (U (x) Q) D^-1 (U (x) Q)^T r
// costs two C x F x F products. Our construction (a K-FAC-style factorisation; Martens and
// Grosse, ICML 2015), used only to precondition: the solves keep their own residual test.
#pragma once
#include <Eigen/Eigenvalues>
#include <memory>
#include <utility>

#include "core/types.hpp"
#include "problem/lower_hessian_factor.hpp"

namespace fedbench::problems {

//! Eigenvalues and eigenvectors of a symmetric matrix (its lower triangle is read).
struct SymmetricEigen {
  Mat vectors;
  Vec values;
  static SymmetricEigen of(const Mat& lower) {
    Eigen::SelfAdjointEigenSolver<Mat> eig(lower);
    return {eig.eigenvectors(), eig.eigenvalues()};
  }
};

//! P^-1 for P = G (x) S + shift I, G shared (the data's), S at the current point.
class KroneckerInverse final : public LowerHessianFactor {
 public:
  KroneckerInverse(std::shared_ptr<const SymmetricEigen> features, const Mat& curvature, double shift)
      : features_(std::move(features)), classes_(SymmetricEigen::of(curvature)) {
    inverse_ = ((classes_.values * features_->values.transpose()).array() + shift).inverse();
  }
  Vec solve(const Vec& rhs) const override {
    const Mat& u = features_->vectors;
    const Mat& q = classes_.vectors;
    const Eigen::Map<const Mat> r(rhs.data(), q.rows(), u.rows());  // C x F, as W is stored
    const Mat rotated = (q.transpose() * r * u).cwiseProduct(inverse_);
    Vec out(rhs.size());
    Eigen::Map<Mat>(out.data(), q.rows(), u.rows()).noalias() = q * rotated * u.transpose();
    return out;
  }

 private:
  std::shared_ptr<const SymmetricEigen> features_;
  SymmetricEigen classes_;
  Mat inverse_;  // 1 / (sigma_k lambda_q + shift), C x F
};

}  // namespace fedbench::problems
