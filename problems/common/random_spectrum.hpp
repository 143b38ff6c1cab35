// Random symmetric matrices with a prescribed spectrum law, as the quadratic-game generator of
// the code of S. Zhang et al., ICLR 2024 (github.com/isayantan/ProxSkipVIP; eq. (5) of the paper)
// draws them: Q diag(lambda) Q^T with lambda_k ~ U(lo, hi) and Q the eigenvectors of W^T W, W ~
// N(0, 1)^{d x d} (a random orthogonal matrix). Draw order: the d eigenvalues, then W row by row.
#pragma once
#include <Eigen/Eigenvalues>

#include "core/random.hpp"
#include "core/types.hpp"

namespace fedbench::problems {

inline Mat random_spectrum_matrix(Stream& rng, Index d, double lo, double hi) {
  Vec lambda(d);
  for (Index k = 0; k < d; ++k) lambda(k) = rng.uniform(lo, hi);
  Mat W(d, d);
  for (Index r = 0; r < d; ++r)
    for (Index c = 0; c < d; ++c) W(r, c) = rng.normal();
  const Mat gram = W.transpose() * W;
  const Mat Q = Eigen::SelfAdjointEigenSolver<Mat>(gram).eigenvectors();
  const Mat S = Q * lambda.asDiagonal() * Q.transpose();
  return 0.5 * (S + S.transpose());  // exactly symmetric, as the generator means it
}

}  // namespace fedbench::problems
