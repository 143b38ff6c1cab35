// The STORM recursion (A. Cutkosky, F. Orabona, NeurIPS 2019) of the momentum-based
// variance-reduced bilevel methods (Y. Zhang et al., IJCAI 2025, eq. (5); F. Huang,
// arXiv 2211.01122, 2022, eqs. (8)-(9)): the fresh minibatch gradient at the new point
// plus (1 - a) times the old estimate corrected by the SAME minibatch at the old point.
// a = 1 gives the plain minibatch gradient; a -> 0 a SARAH-like recursion.
#pragma once
#include "core/types.hpp"

namespace fedbench::solvers {

//! With a = 1 the old point's gradient has weight 0: solvers skip computing it, so that the
//! plain-gradient variants (FedBiO, a = 1 reductions) pay one evaluation per step, not two.
inline bool storm_needs_old_point(double a) { return a < 1; }

//! at_old is not read when a = 1 (see storm_needs_old_point); the result equals the formula's.
inline void storm_update(Vec& estimate, const Vec& at_old, const Vec& at_new, double a) {
  if (!storm_needs_old_point(a)) {
    estimate = at_new;
    return;
  }
  estimate = (1 - a) * (estimate - at_old) + at_new;
}

}  // namespace fedbench::solvers
