#include "suite/grid.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"

namespace fedbench::suite {

std::string where(const std::string& file, const YAML::Node& node) {
  // A key the file lacks is an invalid node, whose Mark() throws YAML::InvalidNode.
  if (!node.IsDefined()) return file + ": ";
  const auto mark = node.Mark();
  if (mark.line < 0) return file + ": ";
  return file + ":" + std::to_string(mark.line + 1) + ": ";
}

namespace {

// Parses "name(a, b[, c])" into its numeric arguments; false when text is not such a call.
bool parse_call(const std::string& text, const std::string& name, std::vector<double>& args,
                const std::string& what) {
  if (text.rfind(name + "(", 0) != 0) return false;
  if (text.back() != ')')
    throw UserError(what + ": '" + text + "' lacks its closing parenthesis (inside YAML "
                                          "{...} or [...], quote it: \"" + name + "(a, b, n)\")");
  const std::string inside = text.substr(name.size() + 1, text.size() - name.size() - 2);
  for (const auto& part : split(inside, ',')) {
    std::string t = part;
    t.erase(0, t.find_first_not_of(' '));
    t.erase(t.find_last_not_of(' ') + 1);
    double v = 0;
    if (!parse_real(t, v))
      throw UserError(what + ": '" + t + "' in '" + text + "' is not a number");
    args.push_back(v);
  }
  return true;
}

[[noreturn]] void too_many_values(const std::string& what, const std::string& text, double count) {
  throw UserError(what + ": '" + text + "' has " + format_real(count) + " values; a grid expression may have at most " +
                  std::to_string(static_cast<long long>(kMaxGridValues)));
}

// The text of a suite or experiment file: a regular file of at most kMaxYamlBytes, checked on
// the open descriptor (O_NONBLOCK: a FIFO is never waited on), so that a directory, a FIFO, a
// device or a huge file is one line, not an internal error, a hang or a memory blow-up.
constexpr long long kMaxYamlBytes = 16LL << 20;
std::string read_yaml_text(const std::string& path, const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw UserError("cannot open " + what + " " + path + ": no such file or not readable");
  struct stat st {};
  const bool stated = ::fstat(fd, &st) == 0;
  std::string refusal;
  if (stated && S_ISDIR(st.st_mode)) refusal = "it is a directory; give a YAML file";
  else if (stated && !S_ISREG(st.st_mode)) refusal = "not a regular file (a FIFO, device or socket); give a YAML file";
  else if (stated && st.st_size > kMaxYamlBytes)
    refusal = std::to_string(st.st_size) + " bytes, more than a " + what + " file may have (16 MiB)";
  std::string text;
  if (refusal.empty()) {
    char buffer[1 << 16];
    ssize_t got = 0;
    while ((got = ::read(fd, buffer, sizeof buffer)) > 0 &&
           static_cast<long long>(text.size()) <= kMaxYamlBytes)
      text.append(buffer, static_cast<std::size_t>(got));
    if (got < 0) refusal = "cannot read it";
    else if (static_cast<long long>(text.size()) > kMaxYamlBytes) refusal = "more than 16 MiB; not a " + what + " file";
  }
  ::close(fd);
  if (!refusal.empty()) throw UserError("cannot open " + what + " " + path + ": " + refusal);
  return text;
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path, const std::string& what) {
  const std::string text = read_yaml_text(path, what);
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw UserError(path + ":" + std::to_string(e.mark.line + 1) + ": malformed YAML: " + e.msg);
  }
}

void check_keys(const YAML::Node& map, const std::vector<std::string>& valid,
                const std::string& file, const std::string& what) {
  if (!map.IsMap()) throw UserError(where(file, map) + what + " must be a map of key: value");
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(valid.begin(), valid.end(), key) == valid.end())
      throw UserError(where(file, kv.first) + "unknown key '" + key + "' in " + what +
                      "; valid: " + join(valid, ", ") + did_you_mean(key, valid));
  }
}

std::vector<std::string> expand_text(const std::string& text, const std::string& what) {
  std::vector<double> a;
  std::vector<std::string> out;
  const bool log = parse_call(text, "logspace", a, what);
  if (log || parse_call(text, "linspace", a, what)) {
    if (a.size() != 3 || a[2] < 1 || a[2] != std::floor(a[2]))
      throw UserError(what + ": '" + text + "' must be " + (log ? "logspace" : "linspace") +
                      "(start, stop, count) with a whole count >= 1");
    if (a[2] > kMaxGridValues) too_many_values(what, text, a[2]);
    const int n = static_cast<int>(a[2]);
    for (int k = 0; k < n; ++k) {
      const double t = n == 1 ? a[0] : a[0] + (a[1] - a[0]) * k / (n - 1);
      out.push_back(format_real(log ? std::pow(10.0, t) : t));
    }
    return out;
  }
  if (parse_call(text, "range", a, what)) {
    if (a.size() != 2 || a[0] != std::floor(a[0]) || a[1] != std::floor(a[1]) || a[1] <= a[0])
      throw UserError(what + ": '" + text + "' must be range(first, stop) with whole numbers, "
                                            "first < stop");
    if (a[1] - a[0] > kMaxGridValues) too_many_values(what, text, a[1] - a[0]);
    if (std::abs(a[0]) > 9e15 || std::abs(a[1]) > 9e15)  // past the whole numbers a double holds
      throw UserError(what + ": '" + text + "' has bounds beyond 9e15");
    for (auto v = static_cast<long long>(a[0]); v < static_cast<long long>(a[1]); ++v)
      out.push_back(std::to_string(v));
    return out;
  }
  return {text};
}

std::vector<std::string> expand_node(const YAML::Node& node, const std::string& file,
                                     const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) return expand_text(node.Scalar(), where(file, node) + what);
  if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!item.IsScalar())
        throw UserError(where(file, item) + what + ": a grid lists plain values");
      for (auto& v : expand_text(item.Scalar(), where(file, item) + what)) out.push_back(v);
    }
    if (out.empty()) throw UserError(where(file, node) + what + ": empty grid");
    return out;
  }
  throw UserError(where(file, node) + what + ": expected a value or a list of values");
}

std::vector<ParamMap> cartesian(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& axes) {
  std::vector<ParamMap> out{ParamMap{}};
  for (const auto& [key, values] : axes) {
    std::vector<ParamMap> next;
    for (const auto& partial : out)
      for (const auto& v : values) {
        ParamMap m = partial;
        m[key] = v;
        next.push_back(std::move(m));
      }
    out = std::move(next);
  }
  return out;
}

std::vector<ParamMap> expand_params(const YAML::Node& node, const std::string& file,
                                    const std::string& what) {
  if (!node || node.IsNull()) return {ParamMap{}};
  if (!node.IsMap()) throw UserError(where(file, node) + what + ": expected a map of key: value");
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::vector<ParamMap> zipped{ParamMap{}};
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (key != "zip") {
      axes.emplace_back(key, expand_node(kv.second, file, what + " " + key));
      continue;
    }
    if (!kv.second.IsMap())
      throw UserError(where(file, kv.second) + what + " zip: expected a map of equal-length lists");
    std::size_t length = 0;
    std::vector<std::pair<std::string, std::vector<std::string>>> lists;
    for (const auto& z : kv.second) {
      lists.emplace_back(z.first.Scalar(), expand_node(z.second, file, what + " " + z.first.Scalar()));
      if (length && lists.back().second.size() != length)
        throw UserError(where(file, z.second) + what + " zip: '" + z.first.Scalar() + "' has " +
                        std::to_string(lists.back().second.size()) + " values, the others " +
                        std::to_string(length) + "; zipped lists pair up and need equal lengths");
      length = lists.back().second.size();
    }
    zipped.assign(length, ParamMap{});
    for (const auto& [k, values] : lists)
      for (std::size_t i = 0; i < length; ++i) zipped[i][k] = values[i];
  }
  double points = static_cast<double>(zipped.size());
  for (const auto& axis : axes) points *= static_cast<double>(axis.second.size());
  if (points > kMaxSuiteRuns)
    throw UserError(where(file, node) + what + ": the parameters cross to " + format_real(points) +
                    " points; a suite may have at most " + std::to_string(static_cast<long long>(kMaxSuiteRuns)) +
                    " (zip lists that go together, or split the suite)");
  std::vector<ParamMap> out;
  for (const auto& z : zipped)
    for (auto m : cartesian(axes)) {
      for (const auto& [k, v] : z) {
        if (m.count(k))
          throw UserError(where(file, node) + what + ": '" + k + "' is both in zip and outside it");
        m[k] = v;
      }
      out.push_back(std::move(m));
    }
  return out;
}

}  // namespace fedbench::suite
