#include "results/score.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "results/results_store.hpp"

namespace fedbench::suite {

Direction recorded_direction(const io::StoredRun& run, const std::string& metric) {
  const auto& h = run.record.header;
  for (std::size_t k = 0; k < h.metric_names.size() && k < h.metric_meta.size(); ++k)
    if (h.metric_names[k] == metric) return h.metric_meta[k].direction;
  return Direction::min;
}

double worst_value(Direction d) { return d == Direction::max ? -INFINITY : INFINITY; }

namespace {

const std::vector<double>& metric_column(const io::StoredRun& run, const std::string& metric) {
  if (!run.columns.count(metric))
    throw UserError(run.path + " has no metric '" + metric + "'; columns: " + join(run.column_names, ", "));
  return run.column(metric);
}

}  // namespace

double value_at(const io::StoredRun& run, const std::string& metric, const std::string& axis, double budget,
                Direction d, Reading reading) {
  const auto& y = metric_column(run, metric);
  if (run.text.at("status") != "ok" || y.empty()) return worst_value(d);
  const std::vector<double> x = counter_axis(run, axis);
  double value = y.front();
  if (reading == Reading::within) {
    for (std::size_t r = 0; r < y.size() && x[r] <= budget; ++r) value = y[r];
  } else {
    std::size_t r = 0;
    while (r + 1 < y.size() && x[r] < budget) ++r;
    value = y[r];
  }
  return std::isnan(value) ? worst_value(d) : value;
}

double log_area(const io::StoredRun& run, const std::string& metric, Direction d) {
  const auto& y = metric_column(run, metric);
  if (run.text.at("status") != "ok") return worst_value(d);
  const auto& rounds = run.column("round");
  const auto lg = [](double v) { return std::log10(std::max(v, 1e-300)); };
  double area = 0;
  for (std::size_t r = 1; r < y.size(); ++r) area += 0.5 * (lg(y[r]) + lg(y[r - 1])) * (rounds[r] - rounds[r - 1]);
  return std::isnan(area) ? worst_value(d) : area;
}

double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace fedbench::suite
