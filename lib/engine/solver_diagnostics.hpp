// Metrics that a solver adds to its run's rows: diagnostics of the solver's own approximations
// that only its settings define (e.g. how much of the exact hypergradient a truncated Neumann
// series keeps at the solver's theta and number of terms). They are computed after the
// problem's metrics, on the same rows, threads and warm-start state, and stored as columns of
// their own; a solver declares them with a static `diagnostics(const Params&)` hook.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace fedbench {

class Problem;
struct MetricState;

struct SolverDiagnostics {
  std::vector<std::string> names;  //!< columns, each listed in problem/metric_names.hpp
  //! Writes names.size() values for `model`, after the problem's metrics of the same row
  //! (`state` holds that row's exact solves).
  std::function<void(const Problem& problem, const Vec& model, std::span<double> out, MetricState* state)> evaluate;
};

}  // namespace fedbench
