// Euclidean projections onto the constraint sets the problems use, in one place.
//   simplex {x >= 0, sum x = r}: the sort-based algorithm (Held, Wolfe, Crowder 1974; Duchi
//     et al. 2008), O(d log d)
//   ball {||x|| <= r}, box {lo <= x <= hi}: closed forms
#pragma once
#include "core/types.hpp"

namespace fedbench::linalg {

//! In place; `scratch` (resized as needed) keeps repeated calls allocation-free.
void project_simplex(Eigen::Ref<Vec> x, Vec& scratch, double radius = 1.0);
void project_ball(Eigen::Ref<Vec> x, double radius);
void project_box(Eigen::Ref<Vec> x, double lo, double hi);

}  // namespace fedbench::linalg
