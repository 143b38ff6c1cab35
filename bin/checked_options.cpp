#include "checked_options.hpp"

#include <cmath>

#include "core/text.hpp"

namespace fedbench::cli {

std::int64_t whole_number_value(const std::string& option, const std::string& text, std::int64_t min,
                                std::int64_t max, const std::string& hint) {
  long long v = 0;
  if (!parse_whole_number(text, v) || v < min || v > max)
    throw CLI::ValidationError(not_a_whole_number(option, text, min, max) + (hint.empty() ? "" : "; " + hint));
  return v;
}

double positive_real_value(const std::string& option, const std::string& text, const std::string& what) {
  double v = 0;
  if (!parse_real(text, v) || !std::isfinite(v) || v <= 0)
    throw CLI::ValidationError(option + " = '" + text + "' is not a number > 0 (" + what + ")");
  return v;
}

}  // namespace fedbench::cli
