// A claim checked on finished runs, seed by seed: each side of the claim (the method, the one it
// is compared with, the one it should be closer to) gives one value per unit (a seed, with the
// problem settings the claim leaves free), a margin is measured per unit, and verdict.hpp judges
// the margins. The result keeps every unit's numbers, so a verdict file can show them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "experiment/experiment.hpp"
#include "experiment/verdict.hpp"

namespace fedbench::suite {

//! One method's runs in a claim.
struct ClaimSide {
  std::string label;      //!< "solver", or "solver [key=value]" when the sides differ in `where`
  double median = 0;      //!< median over the paired units of this side's value
  std::size_t runs = 0, diverged = 0, collapsed = 0;  //!< diverged: runs that did not end "ok"
};

//! One unit: the runs of every side at one seed (and the same free problem settings).
struct ClaimUnit {
  std::string label;           //!< "seed 3" or "seed 3, delta=1e6"
  std::uint64_t seed = 0;
  std::vector<double> values;  //!< one per side, in ClaimResult::sides' order
  double margin = 0;
  bool holds = false;
};

struct ClaimResult {
  Verdict verdict = Verdict::inconclusive;
  std::string margin_name;  //!< what a unit's margin is ("ratio local-gda / proxskip-gda-fl", ...)
  Sense sense = Sense::above;
  double low = 0, high = 0;  //!< the threshold(s) the margin is judged against
  Evidence evidence;
  std::vector<ClaimSide> sides;
  std::vector<ClaimUnit> units;
  //! A second reading that never decides: at equal exchanges where the sides' rounds cost
  //! different numbers of them (computed from the runs' counters), or per round where the claim
  //! is read at equal `equal` counter. `has_second` false: none.
  struct Reading {
    std::string axis;  //!< "exchanges" or "round"
    double budget = 0;  //!< on that axis: the fewer exchanges either side spent by `at`, or `at`
    Verdict verdict = Verdict::inconclusive;
    Evidence evidence;
    std::vector<double> medians;  //!< per side
  } second;
  bool has_second = false;
  std::string line;  //!< "claim: TEXT: holds (...)"
};

//! Evaluates claims on the finished runs of one or more results directories (together); `quick`
//! marks each verdict as one at the quick budget.
std::vector<ClaimResult> check_claims(const std::vector<Claim>& claims, const std::vector<std::string>& results_dirs,
                                      bool quick = false);

//! The word a verdict line uses: holds / contradicted / inconclusive, or at the quick budget
//! "holds at the quick budget" / "contradicted at the quick budget" / "not decided at the quick
//! budget".
std::string verdict_text(Verdict v, bool quick);

}  // namespace fedbench::suite
