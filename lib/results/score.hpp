// How runs are valued, in one place: `select` (the best configuration), the experiments' claims
// and the HTML report (through `fedbench select --json`) all read a run's metric at a budget
// the same way: the last recorded row whose counter (round, samples, exchanges, bytes) is within
// the budget, the worst value of the metric's direction for a run that did not end "ok" or
// reads NaN, and the median over seeds.
#pragma once
#include <string>
#include <vector>

#include "io/trajectory_file.hpp"
#include "problem/metric_names.hpp"

namespace fedbench::suite {

//! The direction recorded with the metric's column in the run file (min when absent).
Direction recorded_direction(const io::StoredRun& run, const std::string& metric);

//! -inf for a maximised metric, +inf for a minimised one.
double worst_value(Direction d);

//! Which recorded row stands for a budget: the last one whose counter is within it (the first
//! row when none is), or the first one whose counter reaches it (the last row when none does).
enum class Reading { within, reaching };

//! The metric at the row `reading` picks for counter `axis` and `budget`; the worst value for a
//! run that did not end "ok" or whose value is NaN. Throws UserError naming the file when it
//! has no such metric.
double value_at(const io::StoredRun& run, const std::string& metric, const std::string& axis, double budget,
                Direction d, Reading reading = Reading::within);

//! The area under log10(metric) against rounds (trapezoids; values floored at 1e-300); the
//! worst value as for value_at.
double log_area(const io::StoredRun& run, const std::string& metric, Direction d);

//! The median (the mean of the two middle values for an even count); NaN for none.
double median(std::vector<double> values);

}  // namespace fedbench::suite
