#include "core/text.hpp"

#include "core/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace fedbench {

std::string format_real(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

bool parse_real(std::string_view text, double& out) {
  if (text.empty()) return false;
  if (text.front() == '+') text.remove_prefix(1);
  auto res = std::from_chars(text.data(), text.data() + text.size(), out);
  return res.ec == std::errc() && res.ptr == text.data() + text.size() && std::isfinite(out);
}

bool parse_int(std::string_view text, long long& out) {
  if (text.empty()) return false;
  if (text.front() == '+') text.remove_prefix(1);
  auto res = std::from_chars(text.data(), text.data() + text.size(), out);
  return res.ec == std::errc() && res.ptr == text.data() + text.size();
}

bool parse_whole_number(std::string_view text, long long& out) {
  if (parse_int(text, out)) return true;
  double real = 0;
  if (!parse_real(text, real) || real != std::floor(real) || !(std::fabs(real) < 9223372036854775808.0))
    return false;
  out = static_cast<long long>(real);  // exact: a whole double below 2^63 in magnitude
  return true;
}

namespace {

// A bound as the limits table writes it: 9e18, 1024, 2147483647.
std::string bound_text(long long v) {
  int zeros = 0;
  long long lead = v;
  while (lead != 0 && lead % 10 == 0) {
    lead /= 10;
    ++zeros;
  }
  if (zeros >= 6 && lead > -10 && lead < 10) return std::to_string(lead) + "e" + std::to_string(zeros);
  return std::to_string(v);
}

}  // namespace

std::string not_a_whole_number(const std::string& what, std::string_view text, long long min, long long max) {
  return what + " = '" + printable(std::string(text)) + "' is not a whole number from " + bound_text(min) + " to " +
         bound_text(max);
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto pos = text.find(sep, start);
    out.emplace_back(text.substr(start, pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
  std::size_t best = std::string::npos;
  const std::string* best_name = nullptr;
  for (const auto& c : candidates) {
    const auto d = edit_distance(given, c);
    if (d < best) {
      best = d;
      best_name = &c;
    }
  }
  // Close enough to be a typo, and not a wholesale replacement of a short word.
  const std::size_t limit = std::max<std::size_t>(1, given.size() / 3);
  if (best_name && best <= limit && best < given.size()) return " (did you mean '" + *best_name + "'?)";
  return "";
}

std::string printable(std::string_view text, std::size_t max) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : text.substr(0, max)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

std::string json_literal(const std::string& text) { return json_text(Json(text)); }

std::string naming(const std::string& file, const std::string& message) {
  return message.find(file) == std::string::npos ? file + ": " + message : message;
}

}  // namespace fedbench
