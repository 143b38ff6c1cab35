#include "core/params.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace fedbench {

std::string ParamSpec::type_name() const {
  switch (type) {
    case ParamType::integer: return "int";
    case ParamType::real: return "real";
    case ParamType::boolean: return "bool";
    case ParamType::choice: return "choice";
    case ParamType::text: return "text";
    case ParamType::alias: return "alias";
  }
  return "?";
}

std::string ParamSpec::constraint_text() const {
  if (type == ParamType::choice) return "one of: " + join(choices, ", ");
  if (type == ParamType::boolean) return "true or false";
  if (type == ParamType::text) return "";
  if (type == ParamType::alias) return "sets " + join(targets, " and ");
  std::string lo, hi;
  if (bounds.gt) lo = format_real(*bounds.gt) + " < ";
  if (bounds.ge) lo = format_real(*bounds.ge) + " <= ";
  if (bounds.lt) hi = " < " + format_real(*bounds.lt);
  if (bounds.le) hi = " <= " + format_real(*bounds.le);
  if (lo.empty() && hi.empty()) return "";
  return lo + name + hi;
}

namespace detail {

double parse_number(const std::string& owner, const ParamSpec& spec, const std::string& text) {
  double v = 0;
  bool ok = false;
  if (spec.type == ParamType::integer) {
    long long i = 0;
    ok = parse_whole_number(text, i);
    // Past 2^53 a double skips whole numbers: the value would change silently, and next to
    // 2^63 its conversion back to a 64-bit field is undefined.
    constexpr long long kExact = 1LL << 53;
    if (ok && (i > kExact || i < -kExact))
      throw UserError(owner + ": " + spec.name + " = '" + text +
                      "' is out of range (whole numbers up to 2^53 = 9007199254740992)");
    v = static_cast<double>(i);
  } else {
    ok = parse_real(text, v);
  }
  if (!ok) {
    std::string expect = spec.type == ParamType::integer ? "a whole number" : "a finite number";
    if (spec.accepts_theory) expect += " or 'theory'";
    throw UserError(owner + ": " + spec.name + " = '" + text + "' is not " + expect);
  }
  const auto& b = spec.bounds;
  const bool in_range = (!b.gt || v > *b.gt) && (!b.ge || v >= *b.ge) && (!b.lt || v < *b.lt) &&
                        (!b.le || v <= *b.le);
  if (!in_range)
    throw UserError(owner + ": " + spec.name + " = " + text + " violates " + spec.constraint_text());
  return v;
}

bool parse_bool(const std::string& owner, const ParamSpec& spec, const std::string& text) {
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no") return false;
  throw UserError(owner + ": " + spec.name + " = '" + text + "' is not true or false");
}

ParamMap expand_aliases(const std::string& owner, const std::vector<ParamSpec>& specs,
                        const ParamMap& given) {
  ParamMap out = given;
  for (const auto& spec : specs) {
    if (spec.type != ParamType::alias) continue;
    const auto it = given.find(spec.name);
    if (it == given.end()) continue;
    for (const auto& target : spec.targets) {
      if (given.count(target))
        throw UserError(owner + ": give " + spec.name + " or " + target + ", not both (" +
                        spec.name + " sets " + join(spec.targets, " and ") + ")");
      out[target] = it->second;
    }
    out.erase(spec.name);
  }
  return out;
}

void check_choice(const std::string& owner, const ParamSpec& spec, const std::string& text) {
  if (std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end()) return;
  throw UserError(owner + ": " + spec.name + " = '" + text + "' is not one of: " +
                  join(spec.choices, ", ") + did_you_mean(text, spec.choices));
}

std::string canonical_number(const ParamSpec& spec, double v) {
  if (spec.type == ParamType::integer) return std::to_string(static_cast<long long>(v));
  return format_real(v);
}

void unknown_parameter(const std::string& owner, const std::string& key,
                       const std::vector<ParamSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  std::sort(names.begin(), names.end());
  throw UserError(owner + ": unknown parameter '" + key + "'; valid: " +
                  (names.empty() ? std::string("(none)") : join(names, ", ")) +
                  did_you_mean(key, names));
}

}  // namespace detail

ParamMap parse_assignments(const std::vector<std::string>& items, const std::string& owner) {
  ParamMap out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UserError(owner + ": '" + item + "' is not of the form key=value");
    const auto key = item.substr(0, eq);
    if (out.count(key)) throw UserError(owner + ": parameter '" + key + "' given twice");
    out[key] = item.substr(eq + 1);
  }
  return out;
}

std::string describe_params(const std::vector<ParamSpec>& specs) {
  std::size_t wn = 4, wt = 4, wd = 7;
  for (const auto& s : specs) {
    wn = std::max(wn, s.name.size());
    wt = std::max(wt, s.type_name().size());
    wd = std::max(wd, s.default_text.size());
  }
  auto pad = [](std::string s, std::size_t w) { return s.append(w - std::min(w, s.size()), ' '); };
  std::string out = "  " + pad("name", wn) + "  " + pad("type", wt) + "  " + pad("default", wd) +
                    "  description\n";
  for (const auto& s : specs) {
    std::string doc = s.doc;
    const auto c = s.constraint_text();
    if (!c.empty()) doc += " [" + c + "]";
    out += "  " + pad(s.name, wn) + "  " + pad(s.type_name(), wt) + "  " +
           pad(s.default_text, wd) + "  " + doc + "\n";
  }
  return out;
}

}  // namespace fedbench
