// Name -> factory registries (one each for problems, solvers, and later datasets and
// partitioners). Each implementation file registers itself in its last line through a static
// Registrar, built as part of a CMake OBJECT library so that the linker drops nothing.
// Unknown names throw a UserError with the kind, the valid names and the nearest match.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/params.hpp"
#include "core/plugin_origin.hpp"
#include "core/text.hpp"

namespace fedbench {

template <class Product>
struct RegistryEntry {
  std::string name;
  std::string summary;   //!< one line
  std::string citation;  //!< paper and algorithm/equation number
  //! Problems: the exact objective, with every scaling, 1/2 factor, average (over clients or
  //! rows) and regulariser written out (`static constexpr const char* kObjective`).
  std::string objective;
  std::string kind;      //!< "problem" or "solver", for messages
  std::string family;    //!< "minimax" or "bilevel": the problem kind made or needed
  //! Problems whose metrics cost far more than a round (exact bilevel solves, inner ascents,
  //! full-data AUC): runs that do not choose a schedule evaluate at log-spaced rounds.
  bool expensive_metrics = false;
  std::vector<ParamSpec> params;
  ParamMap defaults;     //!< overrides of the schema defaults (aliases)
  std::string alias_of;  //!< "" for a primary entry
  //! The registering source file, relative to the tree ("lib/solvers/minimax/sgda.cpp"; ""
  //! for test-only entries): whose build-time fingerprint a run records.
  std::string source;
  //! Implementation version, part of every run's identity: bump it when a change alters
  //! results, and suites rerun the runs it affects. Declared as `static constexpr int
  //! version = N;` in the solver or problem (default 1).
  int version = 1;
  //! The plug-in that registered the entry (null: built into fedbench). Its runs record the
  //! plug-in's file fingerprint in place of a source file's.
  std::shared_ptr<const PluginOrigin> plugin;
  //! `name` is the entry's own name (an alias's, for aliases), used in messages.
  std::function<std::unique_ptr<Product>(const std::string& name, const ParamMap& given,
                                         const ParamMap& defaults)> make;
  //! Canonical resolved parameters (defaults filled in, numbers canonical); validates too.
  std::function<ParamMap(const std::string& name, const ParamMap& given,
                         const ParamMap& defaults)> resolve;

  //! Default text of a parameter after alias overrides.
  std::string default_of(const ParamSpec& spec) const {
    auto it = defaults.find(spec.name);
    return it == defaults.end() ? spec.default_text : it->second;
  }
  //! Sizes that cannot be allocated end in a one-line UserError naming the entry and what it
  //! was given, not in std::bad_alloc.
  std::unique_ptr<Product> create(const ParamMap& given) const {
    auto too_big = [&] {
      std::string with;
      for (const auto& [k, v] : given) with += (with.empty() ? "" : ", ") + k + " = " + v;
      return UserError(kind + " " + name + ": does not fit in memory with " +
                       (with.empty() ? std::string("its defaults") : with) + "; use smaller sizes");
    };
    try {
      return make(name, given, defaults);
    } catch (const std::bad_alloc&) {
      throw too_big();
    } catch (const std::length_error&) {  // a std::vector asked for more than max_size()
      throw too_big();
    }
  }
  ParamMap resolved(const ParamMap& given) const { return resolve(name, given, defaults); }
};

//! The descriptive part of an entry for type T (a solver or problem with a nested Params, a
//! static declare(Schema<Params>&) and optionally `static constexpr int version`). Returns
//! the entry and its schema (owner "KIND NAME"); the registrar adds make and resolve.
template <class Product, class T>
std::pair<RegistryEntry<Product>, Schema<typename T::Params>> describe_entry(
    const std::string& kind, const char* name, const char* summary, const char* citation) {
  Schema<typename T::Params> schema(kind + " " + name);
  T::declare(schema);
  RegistryEntry<Product> e;
  e.kind = kind;
  e.name = name;
  e.summary = summary;
  e.citation = citation;
  e.params = schema.specs();
  if constexpr (requires { T::version; }) e.version = T::version;
  e.plugin = loading_plugin();
  return {std::move(e), std::move(schema)};
}

template <class Product>
class Registry {
 public:
  using Entry = RegistryEntry<Product>;

  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  void add(Entry entry) {
    if (entries_.count(entry.name)) {
      // A plug-in registers while the dynamic loader runs its initializers, where an exception
      // cannot pass: the loader reports it once the plug-in is loaded.
      if (entry.plugin) {
        const auto& other = entries_.at(entry.name).plugin;
        report_plugin_error(kind_ + " '" + entry.name + "' is already registered by " +
                            (other ? "plug-in " + other->describe() : std::string("fedbench")) +
                            "; rename it in the plug-in");
        return;
      }
      throw InternalError(kind_ + " '" + entry.name + "' registered twice");
    }
    auto name = entry.name;
    entries_.emplace(std::move(name), std::move(entry));
  }

  //! Registers `alias` as `base` with some parameter defaults changed.
  void add_alias(const std::string& alias, const std::string& base, ParamMap defaults,
                 std::string summary) {
    if (!contains(base) && loading_plugin()) {
      report_plugin_error(kind_ + " alias '" + alias + "' names '" + base + "', which is not registered");
      return;
    }
    Entry e = get(base);
    e.name = alias;
    if (auto origin = loading_plugin()) e.plugin = origin;
    e.alias_of = base;
    e.summary = std::move(summary);
    for (auto& [k, v] : defaults) e.defaults[k] = v;
    add(std::move(e));
  }

  const Entry& get(const std::string& name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      const auto valid = names();
      throw UserError("unknown " + kind_ + " '" + name + "'; valid: " + join(valid, ", ") +
                      did_you_mean(name, valid));
    }
    return it->second;
  }
  bool contains(const std::string& name) const { return entries_.count(name) > 0; }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, e] : entries_) out.push_back(name);
    return out;  // std::map keeps them sorted
  }
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
  std::map<std::string, Entry> entries_;
};

}  // namespace fedbench
