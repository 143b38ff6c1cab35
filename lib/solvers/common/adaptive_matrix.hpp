// The adaptive matrices of AdaFBiO (F. Huang, "Fast Adaptive Federated Bilevel Optimization",
// arXiv 2211.01122, 2022: Algorithm 1 line 6, the Adam-type rule, and eqs. (6)-(7), the
// AdaBelief-type rule; the amsgrad and adagrad rules are ours, not in the paper), built on the server from the averaged trackers at each synchronisation: a diagonal A_t for x
// (A^-1 w computed elementwise) and a scalar B_t = (b_t + rho) I for y.
//   adam:      a = varrho a + (1 - varrho) wbar^2,             b = varrho b + (1 - varrho) ||vbar||
//   adabelief: a = varrho a + (1 - varrho) (wbar - wbar_prev)^2, b = ... ||vbar - vbar_prev||
//   amsgrad:   adam's a, then ahat = max(ahat, a) is used
//   adagrad:   a = a + wbar^2,  b^2 = b^2 + ||vbar||^2
//   identity:  A = I, B = I (non-adaptive AdaFBiO, Theorem 2)
// A = diag(sqrt(a) + rho), B = b + rho, a_0 = 0, b_0 = 0, no bias correction.
// Resolved: AdaBelief's first reference (before any synchronisation) is 0; the norm in the b
// rule is the Euclidean norm, not squared, as Algorithm 1 line 6 and eq. (7) print it. Our
// AdaGrad rule accumulates a; its b mirrors A = sqrt(a) + rho as the root of the summed
// squares, so that B grows like sqrt(#synchronisations) as A does, not linearly.
#pragma once
#include <cmath>
#include <string>

#include "core/types.hpp"
#include "engine/state_visitor.hpp"

namespace fedbench::solvers {

//! The adaptive-matrix rules of AdaFBiO (identity: the non-adaptive method).
enum class MatrixRule { adam, adabelief, amsgrad, adagrad, identity };

class AdaptiveMatrix {
 public:
  AdaptiveMatrix() = default;
  AdaptiveMatrix(MatrixRule rule, double rho, double varrho)
      : rule_(rule), rho_(rho), varrho_(varrho) {}

  bool identity() const { return rule_ == MatrixRule::identity; }

  void update(const Vec& w_bar, const Vec& v_bar) {
    if (identity()) return;
    if (a_.size() == 0) {
      a_ = Vec::Zero(w_bar.size());
      a_hat_ = a_;
      w_prev_ = Vec::Zero(w_bar.size());
      v_prev_ = Vec::Zero(v_bar.size());
    }
    if (rule_ == MatrixRule::adagrad) {
      a_ += w_bar.cwiseAbs2();
      b_ = std::sqrt(b_ * b_ + v_bar.squaredNorm());
    } else {
      // AdaBelief measures the change since the last synchronisation, Adam the value itself.
      const bool belief = rule_ == MatrixRule::adabelief;
      const Vec w_signal = belief ? Vec(w_bar - w_prev_) : w_bar;
      const double v_signal = belief ? (v_bar - v_prev_).norm() : v_bar.norm();
      a_ = varrho_ * a_ + (1 - varrho_) * w_signal.cwiseAbs2();
      b_ = varrho_ * b_ + (1 - varrho_) * v_signal;
    }
    if (rule_ == MatrixRule::amsgrad) a_hat_ = a_hat_.cwiseMax(a_);
    w_prev_ = w_bar;
    v_prev_ = v_bar;
  }

  //! For traces: a_t (and AMSGrad's ahat_t) and b_t of Algorithm 1 line 6, from the first
  //! update on; none for the identity rule. The AdaBelief references are the last averages,
  //! which the solver shows itself.
  void states(StateVisitor& v) const {
    if (identity() || a_.size() == 0) return;
    v.visit("matrix_a", a_);
    if (rule_ == MatrixRule::amsgrad) v.visit("matrix_a_hat", a_hat_);
    v.visit("matrix_b", b_);
  }

  //! diag(A_t) (call after update; ones for the identity rule).
  Vec diag_a(Index dim_x) const {
    if (identity()) return Vec::Ones(dim_x);
    return (rule_ == MatrixRule::amsgrad ? a_hat_ : a_).cwiseSqrt().array() + rho_;
  }
  //! B_t (a scalar times the identity).
  double b() const { return identity() ? 1.0 : b_ + rho_; }

 private:
  MatrixRule rule_ = MatrixRule::identity;
  double rho_ = 1, varrho_ = 1;
  Vec a_, a_hat_, w_prev_, v_prev_;
  double b_ = 0;
};

}  // namespace fedbench::solvers
