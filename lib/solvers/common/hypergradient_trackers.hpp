// One client's STORM trackers of the lower-level gradient (v) and of its local Neumann
// hypergradient (w), shared by LocalBSGVRM (H. Gao, arXiv 2204.13299, 2022, as reconstructed in
// solvers/bilevel/local_bsgvrm.cpp) and AdaFBiO (F. Huang, arXiv 2211.01122, 2022, eqs. (8)-(9)):
//   w = HG(now; xibar) + (1 - a_w)(w - HG(old; xibar)),
//   v = grad_y g(now; zeta) + (1 - a_v)(v - grad_y g(old; zeta)),
// with the same draws (xibar including the Neumann k, and zeta) at both points.
#pragma once
#include "solvers/common/neumann_hypergradient.hpp"
#include "solvers/common/storm.hpp"

namespace fedbench::solvers {

class HypergradientTrackers {
 public:
  Vec v, w;

  //! Initial trackers at z on one draw of `initial` rows; later draws use `settings`.
  void init(ClientCtx& c, const Vec& z, NeumannHypergradient::Settings settings, int initial) {
    auto& o = c.bilevel();
    Stream coins = c.stream("neumann-k");
    NeumannHypergradient::Settings first = settings;
    first.upper_batch = first.lower_batch = initial;
    hg_ = NeumannHypergradient(first);
    hg_.draw(o, coins);
    hg_.evaluate(o, z, w);
    o.lower_grad_y(o.draw_lower(initial), z, v);
    hg_ = NeumannHypergradient(settings);
  }

  //! The STORM step from `old` to `now`.
  void track(BilevelOracle& o, Stream& coins, const Vec& old, const Vec& now, double a_v, double a_w) {
    hg_.draw(o, coins);
    if (storm_needs_old_point(a_w)) hg_.evaluate(o, old, hg_old_);
    hg_.evaluate(o, now, hg_new_);
    const auto zeta = o.draw_lower(hg_.settings().lower_batch);
    if (storm_needs_old_point(a_v)) o.lower_grad_y(zeta, old, g_old_);
    o.lower_grad_y(zeta, now, g_new_);
    storm_update(w, hg_old_, hg_new_, a_w);
    storm_update(v, g_old_, g_new_, a_v);
  }

 private:
  NeumannHypergradient hg_;
  Vec hg_old_, hg_new_, g_old_, g_new_;
};

}  // namespace fedbench::solvers
