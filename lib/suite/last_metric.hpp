// The last recorded value of a run's primary metric, for a suite's progress line.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/trajectory.hpp"

namespace fedbench::suite {

// Remembers the last row's primary metric for the progress line.
class LastMetric : public TrajectorySink {
 public:
  void begin(const RunHeader& h) override {
    name = h.primary_metric;
    column = static_cast<std::size_t>(std::find(h.metric_names.begin(), h.metric_names.end(), name) -
                                      h.metric_names.begin());
    direction = column < h.metric_meta.size() ? h.metric_meta[column].direction : Direction::min;
  }
  void row(const TrajectoryRow& r) override {
    if (column < r.metrics.size()) value = r.metrics[column];
  }
  void end(const RunSummary&) override {}
  std::string name;
  std::size_t column = 0;
  double value = NAN;
  Direction direction = Direction::min;
};

}  // namespace fedbench::suite
