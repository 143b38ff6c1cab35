#include "linalg/operator_constants.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "core/error.hpp"

namespace fedbench::linalg {

double strong_monotonicity(const Mat& J) {
  const Mat sym = 0.5 * (J + J.transpose());
  return Eigen::SelfAdjointEigenSolver<Mat>(sym, Eigen::EigenvaluesOnly).eigenvalues()(0);
}

double lipschitz(const Mat& J) {
  return Eigen::JacobiSVD<Mat>(J).singularValues()(0);
}

double cocoercivity_eig(const Mat& J, double cutoff) {
  const Eigen::VectorXcd lambdas = Eigen::EigenSolver<Mat>(J, false).eigenvalues();
  double min_re_inverse = std::numeric_limits<double>::infinity();
  for (const std::complex<double>& l : lambdas) {
    if (std::abs(l) <= cutoff) continue;
    min_re_inverse = std::min(min_re_inverse, l.real() / std::norm(l));  // Re(1/l)
  }
  if (!std::isfinite(min_re_inverse)) return 0.0;
  return 1.0 / min_re_inverse;
}

double cocoercivity_exact(const Mat& J) {
  Eigen::FullPivLU<Mat> lu(J);
  FEDBENCH_CHECK(lu.isInvertible(), "cocoercivity_exact needs an invertible operator");
  const Mat inv = lu.inverse();
  return 1.0 / strong_monotonicity(inv);
}

}  // namespace fedbench::linalg
