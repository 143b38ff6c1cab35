// The largest eigenvalue of a client's second-moment matrix S = (1/m) sum_j a_j a_j^T over its
// rows a_j (with a constant feature 1 appended when the model has a bias column). A loss
// sum_j l(W a_j) whose per-row curvature is at most c has a lower-level Hessian of at most
// c lambda_max(S) (plus the regulariser's), a bound that for sparse or correlated data lies far
// below the worst row's c max_j ||a_j||^2 (w8a: 2.8 against 108); a Neumann series whose step
// theta = 1/L_g comes from the worst row barely moves along the Hessian's small eigenvalues.
#pragma once
#include <span>

#include "core/types.hpp"
#include "datasets/libsvm.hpp"

namespace fedbench::problems {

//! lambda_max of (1/m) sum over `rows` of X of a_j a_j^T (a_j extended by a 1 when `bias`), by
//! power iteration from a fixed start to a relative change of the Rayleigh quotient below 1e-12
//! (at most 5000 products; every product is one pass over the rows). 0 for no rows.
double largest_second_moment_eigenvalue(const datasets::CsrMatrix& X, std::span<const Index> rows, bool bias);

}  // namespace fedbench::problems
