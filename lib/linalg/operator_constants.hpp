// Constants of a linear operator z -> J z, as the VIP analyses use them.
//
//   strong monotonicity  mu  = lambda_min(sym J),            sym J = (J + J^T)/2
//   Lipschitz            L   = ||J||_2
//   cocoercivity         ell : <Jv, v> >= (1/ell) ||Jv||^2 for all v
//
// Cocoercivity comes in two flavours:
//   - `cocoercivity_eig`, the formula of S. Zhang, S. Choudhury, S. U. Stich, N. Loizou,
//     ICLR 2024, Appendix G (after Loizou et al., NeurIPS 2021): 1/ell = min Re(1/lambda) over
//     the eigenvalues of J, ignoring |lambda| <= 1e-5 as the authors' code does (per-row RLS
//     operators are singular). For non-normal J it can under-estimate the true ell.
//   - `cocoercivity_exact`, 1/ell = lambda_min(sym(J^{-1})) for invertible J.
#pragma once
#include <span>

#include "core/types.hpp"

namespace fedbench::linalg {

inline constexpr double kEigenvalueCutoff = 1e-5;

double strong_monotonicity(const Mat& J);
double lipschitz(const Mat& J);
//! Paper formula; +inf-safe: returns 0 when every eigenvalue is below the cutoff.
double cocoercivity_eig(const Mat& J, double cutoff = kEigenvalueCutoff);
//! Exact modulus; requires J invertible with positive definite sym(J^{-1}) (monotone J).
double cocoercivity_exact(const Mat& J);

}  // namespace fedbench::linalg
