// The stochastic Neumann-series hypergradient of one client (S. Ghadimi, M. Wang, "Approximation
// Methods for Bilevel Programming", arXiv 1802.02246, 2018; in the form of F. Huang,
// arXiv 2211.01122, 2022, Section 4, eq. (13)), the building block of AdaFBiO, LocalBSGVRM,
// FedNest and FedMBO:
//   HG(x, y; xi, zeta_0..zeta_{K-1}, k) = grad_x f(x,y;xi)
//       - grad^2_xy g(x,y;zeta_0) [K theta prod_{i=1..k} (I - theta grad^2_yy g(x,y;zeta_i))] grad_y f(x,y;xi)
// with k ~ U{0..K-1} (`randomized`, eq. (13)), or the deterministic sum
//   theta sum_{j=0}^{K-1} prod_{i<=j} (I - theta H_i) grad_y f      (`deterministic`, the FedNest
// code, github.com/ucr-optml/FedNest: K-1 HVPs, the same expectation over k, less variance).
// Evaluated right to left with Hessian-vector products only. A draw (the minibatches and k) is stored so that STORM
// methods can evaluate the SAME sample at the old and the new point (Huang 2022, eqs. (8)-(9)).
// The client's own Hessians are used: under heterogeneity the average of these local
// estimates is biased for the global lower level (FedMBO and LFedNest as run here; see
// Y. Zhang et al., IJCAI 2025, Section 2.2, on what each method communicates).
#pragma once
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "core/text.hpp"
#include "engine/context.hpp"
#include "engine/solver.hpp"
#include "engine/solver_diagnostics.hpp"
#include "problem/bilevel_problem.hpp"

namespace fedbench::solvers {

//! How the Neumann series is evaluated: one random term k ~ U{0..K-1} scaled by K (the
//! papers' estimator) or the deterministic sum of all K terms.
enum class NeumannSum { randomized, deterministic };

//! `theta = theory`: 1/L_g from the problem's bound on the lower level's smoothness (the upper
//! end of theta in (0, 1/L_g] that Huang 2022, eq. (13), asks for); a problem without the
//! bound refuses it.
inline double theory_neumann_step(const SolverSetup& s) {
  return 1.0 / s.constant(Constant::lipschitz_g_client_max);
}

//! `neumann_terms = theory`: with theta = 1/L_g the truncated series theta sum_{j<Q} (I - theta
//! H)^j misses H^{-1} (I - theta H)^Q, a relative error of at most (1 - 1/kappa)^Q with kappa =
//! L_g / mu_g (each client's own Hessian: the largest smoothness and the smallest strong
//! convexity over clients). Q is the least count that brings it to 1/T, T the run's rounds:
//! the O(1/T) bias of Huang 2022, Lemma 3 (K = (L_g/mu) log(C T/mu)), about kappa ln T.
inline int theory_neumann_terms(const SolverSetup& s) {
  const double kappa =
      s.constant(Constant::lipschitz_g_client_max) / s.constant(Constant::mu_g_client_min);
  const double rounds = std::max<double>(2, static_cast<double>(s.config.budget.rounds));
  const double q = kappa <= 1 ? 1 : std::ceil(std::log(rounds) / -std::log1p(-1.0 / kappa));
  constexpr double kMaxTerms = 100000;  // each term is one HVP per hypergradient
  if (!(q <= kMaxTerms))
    s.reject("neumann_terms = theory gives " + format_real(q) + " terms (kappa = L_g/mu_g = " +
             format_real(kappa) + " over " + format_real(rounds) +
             " rounds); give -s neumann_terms=Q (and a theta) for this problem");
  return static_cast<int>(std::max(1.0, q));
}

//! The `neumann_ratio` column of a solver whose hypergradient uses a Neumann series with step
//! theta and `terms` terms: the bias its truncation leaves, at every evaluation point.
inline SolverDiagnostics neumann_diagnostics(double theta, int terms) {
  return {{"neumann_ratio"}, [theta, terms](const Problem& problem, const Vec& model, std::span<double> out,
                                            MetricState* state) {
            out[0] = dynamic_cast<const BilevelProblem&>(problem).neumann_ratio(model, theta, terms, state);
          }};
}

class NeumannHypergradient {
 public:
  struct Settings {
    int terms = 5;           //!< K, Neumann terms
    double theta = 0.01;     //!< theta <= 1/L_g, the series' step
    bool randomized = true;  //!< k ~ U{0..K-1} (paper) or the deterministic sum
    int upper_batch = 10;    //!< rows of xi (0 = all upper rows of the client)
    int lower_batch = 10;    //!< rows of each zeta_i (0 = all lower rows)
  };

  NeumannHypergradient() = default;
  explicit NeumannHypergradient(Settings s) : s_(s) {}
  const Settings& settings() const { return s_; }

  //! Draws xi, zeta_0..zeta_{K-1} and k (k from `coins`).
  void draw(BilevelOracle& o, Stream& coins) {
    copy(o.draw_upper(s_.upper_batch), upper_);
    lower_.resize(static_cast<std::size_t>(s_.terms));
    for (auto& zeta : lower_) copy(o.draw_lower(s_.lower_batch), zeta);
    k_ = s_.randomized ? static_cast<int>(coins.below(static_cast<std::uint64_t>(s_.terms))) : 0;
  }
  //! Fixes k (tests: the expectation over k, exactly).
  void set_k(int k) { k_ = k; }

  //! out = HG at z = (x, y) on the current draw (size dim_x).
  void evaluate(BilevelOracle& o, const Vec& z, Vec& out) {
    correction(o, z, jv_);
    o.upper_grad_x(upper_, z, out);
    out -= jv_;
  }
  //! out = grad^2_xy g(zeta_0) [Neumann approximation of H^-1] grad_y f(xi): the second-order
  //! part of HG, which FedNest-style methods freeze while x moves locally.
  void correction(BilevelOracle& o, const Vec& z, Vec& out) {
    o.upper_grad_y(upper_, z, r_);
    if (s_.randomized) {
      for (int i = 1; i <= k_; ++i) neumann_step(o, z, i);
      v_ = (s_.terms * s_.theta) * r_;
    } else {
      v_ = r_;
      for (int j = 1; j < s_.terms; ++j) {
        neumann_step(o, z, j);
        v_ += r_;
      }
      v_ *= s_.theta;
    }
    o.lower_jvp(lower_[0], z, v_, out);
  }
  //! The minibatch xi of the current draw.
  std::span<const Index> xi() const { return upper_; }

 private:
  static void copy(std::span<const Index> from, std::vector<Index>& to) { to.assign(from.begin(), from.end()); }
  //! r <- r - theta H(zeta_i) r.
  void neumann_step(BilevelOracle& o, const Vec& z, int i) {
    o.lower_hvp(lower_[static_cast<std::size_t>(i)], z, r_, hr_);
    r_ -= s_.theta * hr_;
  }

  Settings s_;
  std::vector<Index> upper_;
  std::vector<std::vector<Index>> lower_;
  int k_ = 0;
  Vec r_, hr_, v_, jv_;
};

}  // namespace fedbench::solvers
