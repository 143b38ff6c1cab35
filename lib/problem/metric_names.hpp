// Every metric a problem can record, by its column name: which way is better, what it
// measures and its unit. Run files carry this with every column, `fedbench select` and the
// reports follow the direction, and a test checks that every problem's metrics are listed.
//
// Adding a metric: one row here, then return its name from the problem's metric hooks.
#pragma once
#include <array>
#include <optional>
#include <string_view>

namespace fedbench {

enum class Direction { min, max };
constexpr std::string_view direction_name(Direction d) { return d == Direction::min ? "min" : "max"; }
//! Whether `a` is strictly better than `b` for a metric of direction `d`.
constexpr bool better(Direction d, double a, double b) { return d == Direction::max ? a > b : a < b; }
//! "min" or "max" as written in run files; nothing for any other text.
constexpr std::optional<Direction> parse_direction(std::string_view text) {
  if (text == "min") return Direction::min;
  if (text == "max") return Direction::max;
  return std::nullopt;
}

struct MetricInfo {
  std::string_view name;
  Direction direction;       //!< min: smaller is better; max: larger is better
  std::string_view description;
  std::string_view unit;     //!< "1" for dimensionless numbers
};

inline constexpr std::array kMetricTable{
    MetricInfo{"rel_error", Direction::min,
               "||z - z*||^2 / ||z0 - z*||^2, squared distance to the exact solution relative to "
               "the start", "1"},
    MetricInfo{"op_norm", Direction::min, "||F(z)||, norm of the global operator", "1"},
    MetricInfo{"duality_gap", Direction::min, "max_y' f(x, y') - min_x' f(x', y) on the feasible sets",
               "1"},
    MetricInfo{"param_error", Direction::min,
               "(mu - mu_real)^2 + (sigma - sigma_real)^2, squared error of the generator", "1"},
    MetricInfo{"phi", Direction::min, "Phi(x) = max_y f(x, y) on the full data", "1"},
    MetricInfo{"objective", Direction::min, "global objective f(x, y) at the model", "1"},
    MetricInfo{"train_auc", Direction::max, "area under the ROC curve on the training rows", "1"},
    MetricInfo{"test_auc", Direction::max, "area under the ROC curve on the test rows", "1"},
    MetricInfo{"max_class_loss", Direction::min, "largest per-class training loss (worst class)", "nat"},
    MetricInfo{"test_accuracy", Direction::max, "accuracy on the test rows", "1"},
    MetricInfo{"worst_class_accuracy", Direction::max, "lowest per-class test accuracy", "1"},
    MetricInfo{"y_entropy", Direction::max,
               "entropy of the class weights y (log C: uniform weights)", "nat"},
    MetricInfo{"robust_train_loss", Direction::min,
               "training loss under the strongest perturbation found by inner ascent", "nat"},
    MetricInfo{"robust_test_loss", Direction::min,
               "test loss under the strongest perturbation found by inner ascent", "nat"},
    MetricInfo{"robust_test_accuracy", Direction::max,
               "test accuracy under the strongest perturbation found by inner ascent", "1"},
    MetricInfo{"upper_value", Direction::min, "f(x, y), the upper-level loss at the model", "nat"},
    MetricInfo{"hyper_objective", Direction::min,
               "F(x) = f(x, y*(x)), the upper-level loss at the exact lower solution", "nat"},
    MetricInfo{"hypergrad_norm", Direction::min, "||grad F(x)||, exact hypergradient norm", "1"},
    MetricInfo{"lower_gap", Direction::min, "g(x, y) - g(x, y*(x)), lower-level suboptimality", "nat"},
    MetricInfo{"neumann_ratio", Direction::max,
               "<h_Q, h*> / ||h*||^2 at y*(x): the share of the exact hypergradient h* that the solver's "
               "truncated Neumann series (its theta and Q terms, on the averaged lower Hessian) keeps; "
               "1 is no truncation bias", "1"},
    MetricInfo{"test_loss", Direction::min, "test loss of the model y*(x)", "nat"},
    MetricInfo{"model_test_accuracy", Direction::max, "test accuracy of the model's own y", "1"},
    MetricInfo{"corrupted_low_weight", Direction::max,
               "fraction of corrupted training rows given weight < 1/2", "1"},
    MetricInfo{"clean_low_weight", Direction::min,
               "fraction of clean training rows given weight < 1/2", "1"},
};

//! The entry of a metric column, if listed.
constexpr std::optional<MetricInfo> metric_info(std::string_view name) {
  for (const auto& info : kMetricTable)
    if (info.name == name) return info;
  return std::nullopt;
}

}  // namespace fedbench
