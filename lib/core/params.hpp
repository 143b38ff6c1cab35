// Typed parameter schemas. A solver or problem declares each parameter once (name, type,
// default, range, one-line doc with the paper's symbol); the schema parses "key=value" text,
// rejects unknown keys and out-of-range values with a message that names the owner, the
// parameter, the value and the constraint, prints the documentation table, and writes the
// canonical resolved configuration. There is no second copy of any of this anywhere.
#pragma once
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace fedbench {

//! Raw "key=value" settings as given by the user, or the canonical resolved configuration.
using ParamMap = std::map<std::string, std::string>;

//! The value text meaning "compute from the problem's constants" (the theory preset).
inline constexpr const char* kTheory = "theory";
//! A real parameter still to be filled in from theory holds this sentinel after parsing.
inline constexpr double kUnsetReal = std::numeric_limits<double>::quiet_NaN();
inline bool is_unset(double v) { return std::isnan(v); }
//! An integer parameter still to be filled in from theory holds its type's lowest value.
template <class Int>
  requires std::is_integral_v<Int>
constexpr bool is_unset(Int v) { return v == std::numeric_limits<Int>::lowest(); }

//! Open/closed bounds for numeric parameters; designated initializers read like the math:
//! {.gt = 0, .le = 1} is 0 < v <= 1.
struct Bounds {
  std::optional<double> gt = {}, ge = {}, lt = {}, le = {};
};

enum class ParamType { integer, real, boolean, choice, text, alias };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::real;
  std::string default_text;
  std::string doc;
  Bounds bounds;
  std::vector<std::string> choices;  // for ParamType::choice
  bool accepts_theory = false;       // "theory" is a valid value (computed from constants)
  std::vector<std::string> targets;  // for ParamType::alias: the parameters it sets

  std::string type_name() const;
  //! "0 < v <= 1", "one of: a, b", or "" when unconstrained.
  std::string constraint_text() const;
};

namespace detail {
//! Parses and checks one value; throws UserError naming owner, parameter, value, constraint.
double parse_number(const std::string& owner, const ParamSpec& spec, const std::string& text);
bool parse_bool(const std::string& owner, const ParamSpec& spec, const std::string& text);
void check_choice(const std::string& owner, const ParamSpec& spec, const std::string& text);
std::string canonical_number(const ParamSpec& spec, double v);
//! `given` with every alias replaced by its targets; throws if a target is given as well.
ParamMap expand_aliases(const std::string& owner, const std::vector<ParamSpec>& specs,
                        const ParamMap& given);
[[noreturn]] void unknown_parameter(const std::string& owner, const std::string& key,
                                    const std::vector<ParamSpec>& specs);
}  // namespace detail

//! Schema of the plain parameter struct P. `owner` is used in messages ("solver local-sgda").
template <class P>
class Schema {
 public:
  explicit Schema(std::string owner = {}) : owner_(std::move(owner)) {}

  Schema& real(std::string name, double P::*field, std::string default_text, Bounds bounds,
               std::string doc, bool accepts_theory = false) {
    ParamSpec s{std::move(name), ParamType::real, std::move(default_text), std::move(doc),
                bounds, {}, accepts_theory, {}};
    add(std::move(s),
        [field](P& p, const std::string& owner, const ParamSpec& spec, const std::string& t) {
          p.*field = (spec.accepts_theory && t == kTheory) ? kUnsetReal
                                                           : detail::parse_number(owner, spec, t);
        },
        [field](const P& p, const ParamSpec& spec) {
          return is_unset(p.*field) ? std::string(kTheory)
                                    : detail::canonical_number(spec, p.*field);
        });
    return *this;
  }

  template <class Int>
  Schema& integer(std::string name, Int P::*field, std::string default_text, Bounds bounds,
                  std::string doc, bool accepts_theory = false) {
    ParamSpec s{std::move(name), ParamType::integer, std::move(default_text), std::move(doc),
                bounds, {}, accepts_theory, {}};
    add(std::move(s),
        [field](P& p, const std::string& owner, const ParamSpec& spec, const std::string& t) {
          if (spec.accepts_theory && t == kTheory) {
            p.*field = std::numeric_limits<Int>::lowest();
            return;
          }
          const double v = detail::parse_number(owner, spec, t);
          // A value past the field's type would wrap (3e9 clients into a negative int).
          if (v > static_cast<double>(std::numeric_limits<Int>::max()) ||
              v < static_cast<double>(std::numeric_limits<Int>::lowest()))
            throw UserError(owner + ": " + spec.name + " = '" + t + "' is out of range (at most " +
                            std::to_string(std::numeric_limits<Int>::max()) + ")");
          p.*field = static_cast<Int>(v);
        },
        [field](const P& p, const ParamSpec& spec) {
          return is_unset(p.*field) ? std::string(kTheory)
                                    : detail::canonical_number(spec, static_cast<double>(p.*field));
        });
    return *this;
  }

  Schema& boolean(std::string name, bool P::*field, std::string default_text, std::string doc) {
    ParamSpec s{std::move(name), ParamType::boolean, std::move(default_text), std::move(doc),
                {}, {}, false, {}};
    add(std::move(s),
        [field](P& p, const std::string& owner, const ParamSpec& spec, const std::string& t) {
          p.*field = detail::parse_bool(owner, spec, t);
        },
        [field](const P& p, const ParamSpec&) { return std::string(p.*field ? "true" : "false"); });
    return *this;
  }

  //! A choice among named options, stored as an enum: each accepted text maps to one value
  //! and the canonical text is the value's first name. Solvers and problems compare enums,
  //! never strings, so a typo is a compile error.
  template <class E>
    requires std::is_enum_v<E>
  Schema& choice(std::string name, E P::*field, std::string default_text,
                 std::vector<std::pair<std::string, E>> options, std::string doc) {
    std::vector<std::string> names;
    for (const auto& option : options) names.push_back(option.first);
    ParamSpec s{std::move(name), ParamType::choice, std::move(default_text), std::move(doc),
                {}, std::move(names), false, {}};
    add(std::move(s),
        [field, options](P& p, const std::string& owner, const ParamSpec& spec,
                         const std::string& t) {
          detail::check_choice(owner, spec, t);
          for (const auto& [text, value] : options)
            if (text == t) p.*field = value;
        },
        [field, options](const P& p, const ParamSpec& spec) {
          for (const auto& [text, value] : options)
            if (value == p.*field) return text;
          throw InternalError(spec.name + ": an enum value without a name");
        });
    return *this;
  }

  //! Free text (a file path, a dataset name); no constraint beyond what the owner checks.
  Schema& text(std::string name, std::string P::*field, std::string default_text,
               std::string doc) {
    ParamSpec s{std::move(name), ParamType::text, std::move(default_text), std::move(doc),
                {}, {}, false, {}};
    add(std::move(s),
        [field](P& p, const std::string&, const ParamSpec&, const std::string& t) { p.*field = t; },
        [field](const P& p, const ParamSpec&) { return p.*field; });
    return *this;
  }

  //! A second name that sets one or more parameters to the same text (`step_size` for a
  //! solver's primary steps, so that one grid key tunes every solver). Not part of the
  //! canonical configuration: run identities name only the targets.
  Schema& alias(std::string name, std::vector<std::string> targets, std::string doc) {
    for (const auto& t : targets)
      FEDBENCH_CHECK(find(t) >= 0, "alias " + name + " of undeclared parameter " + t);
    ParamSpec s{std::move(name), ParamType::alias, "", std::move(doc), {}, {}, false, {}};
    s.targets = std::move(targets);
    add(std::move(s), [](P&, const std::string&, const ParamSpec&, const std::string&) {},
        [](const P&, const ParamSpec&) { return std::string(); });
    return *this;
  }

  const std::vector<ParamSpec>& specs() const { return specs_; }
  const std::string& owner() const { return owner_; }
  void set_owner(std::string owner) { owner_ = std::move(owner); }

  //! Applies defaults (overridden by `defaults`, e.g. an alias's), then `given`; rejects
  //! unknown keys before parsing anything.
  P parse(const ParamMap& given, const ParamMap& defaults = {}) const {
    for (const auto& [key, value] : given)
      if (find(key) < 0) detail::unknown_parameter(owner_, key, specs_);
    const ParamMap expanded = detail::expand_aliases(owner_, specs_, given);
    P p{};
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const auto& spec = specs_[i];
      if (spec.type == ParamType::alias) continue;
      std::string text = spec.default_text;
      if (auto d = defaults.find(spec.name); d != defaults.end()) text = d->second;
      if (auto g = expanded.find(spec.name); g != expanded.end()) text = g->second;
      setters_[i](p, owner_, spec, text);
    }
    return p;
  }

  //! Canonical text of every parameter (the resolved configuration).
  ParamMap to_map(const P& p) const {
    ParamMap out;
    for (std::size_t i = 0; i < specs_.size(); ++i)
      if (specs_[i].type != ParamType::alias) out[specs_[i].name] = getters_[i](p, specs_[i]);
    return out;
  }

 private:
  using Setter = std::function<void(P&, const std::string&, const ParamSpec&, const std::string&)>;
  using Getter = std::function<std::string(const P&, const ParamSpec&)>;

  void add(ParamSpec spec, Setter set, Getter get) {
    FEDBENCH_CHECK(find(spec.name) < 0, "duplicate parameter " + spec.name);
    specs_.push_back(std::move(spec));
    setters_.push_back(std::move(set));
    getters_.push_back(std::move(get));
  }
  int find(const std::string& name) const {
    for (std::size_t i = 0; i < specs_.size(); ++i)
      if (specs_[i].name == name) return static_cast<int>(i);
    return -1;
  }

  std::string owner_;
  std::vector<ParamSpec> specs_;
  std::vector<Setter> setters_;
  std::vector<Getter> getters_;
};

//! Parses "key=value" items (as given by -s / -p on the command line) into a map; throws on a
//! missing '=' or a key given twice.
ParamMap parse_assignments(const std::vector<std::string>& items, const std::string& owner);

//! Documentation table of a schema, one parameter a line: name, type, default, constraint, doc.
std::string describe_params(const std::vector<ParamSpec>& specs);

}  // namespace fedbench
