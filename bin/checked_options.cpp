#include "checked_options.hpp"

#include <cmath>

#include "core/text.hpp"

namespace fedbench::cli {
namespace {

// A bound as the limits table writes it: 9e18, 1024, 2147483647.
std::string bound_text(std::int64_t v) {
  int zeros = 0;
  std::int64_t lead = v;
  while (lead != 0 && lead % 10 == 0) {
    lead /= 10;
    ++zeros;
  }
  if (zeros >= 6 && lead > -10 && lead < 10) return std::to_string(lead) + "e" + std::to_string(zeros);
  return std::to_string(v);
}

}  // namespace

std::int64_t whole_number_value(const std::string& option, const std::string& text, std::int64_t min,
                                std::int64_t max, const std::string& hint) {
  long long v = 0;
  double real = 0;
  bool ok = false;
  if (parse_int(text, v)) {
    ok = v >= min && v <= max;
  } else if (parse_real(text, real) && real == std::floor(real) && real >= static_cast<double>(min) &&
             std::fabs(real) < 9223372036854775808.0) {
    v = static_cast<long long>(real);  // exact: a whole double below 2^63 in magnitude
    ok = v >= min && v <= max;
  }
  if (!ok)
    throw CLI::ValidationError(option + " = '" + printable(text) + "' is not a whole number from " +
                               bound_text(min) + " to " + bound_text(max) + (hint.empty() ? "" : "; " + hint));
  return v;
}

double positive_real_value(const std::string& option, const std::string& text, const std::string& what) {
  double v = 0;
  if (!parse_real(text, v) || !std::isfinite(v) || v <= 0)
    throw CLI::ValidationError(option + " = '" + text + "' is not a number > 0 (" + what + ")");
  return v;
}

}  // namespace fedbench::cli
