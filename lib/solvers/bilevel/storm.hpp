// The STORM recursion (Cutkosky & Orabona 2019) of the momentum-based variance-reduced bilevel
// methods (seed 003 eq. 5, seed 004 eqs. 8-9): the fresh minibatch gradient at the new point
// plus (1 - a) times the old estimate corrected by the SAME minibatch at the old point.
// a = 1 gives the plain minibatch gradient; a -> 0 a SARAH-like recursion.
#pragma once
#include "core/types.hpp"

namespace fedbench::solvers {

inline void storm_update(Vec& estimate, const Vec& at_old, const Vec& at_new, double a) {
  estimate = (1 - a) * (estimate - at_old) + at_new;
}

}  // namespace fedbench::solvers
