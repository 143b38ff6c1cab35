// Which problem constants a solver's `theory` presets read, observed rather than declared: every
// theory-capable parameter set to `theory`, the solver (and each of its aliases, whose defaults
// may take another branch, e.g. minibatches) is prepared on small instances of the problems
// that publish constants, and the constants it asked for are recorded. `fedbench describe`
// prints the result; adding a solver therefore touches no shared table.
#pragma once
#include <set>
#include <string>

#include "problem/constant_names.hpp"

namespace fedbench {

//! The constants read by the presets of `solver` or of any alias of it (or of the solver an
//! alias names), in enum order.
std::set<Constant> constants_read_by_presets(const std::string& solver);

}  // namespace fedbench
