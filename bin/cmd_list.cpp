// `fedbench list problems|solvers` and `fedbench describe NAME`: generated from the
// registries' schemas, so the documentation cannot drift from the code.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::cli {
namespace {

template <class Product>
void print_entry(const RegistryEntry<Product>& e, bool with_params) {
  std::cout << e.name;
  if (!e.alias_of.empty()) std::cout << "  (= " << e.alias_of << ")";
  std::cout << "  [" << e.family << "]";
  // An alias's summary names its own paper where it has one; the citation is the base's.
  std::cout << "\n  " << e.summary << "\n  "
            << (e.alias_of.empty() ? "" : "implemented as " + e.alias_of + ": ") << e.citation << "\n";
  if (!with_params) return;
  if (!e.objective.empty()) std::cout << "  objective: " << e.objective << "\n";
  auto specs = e.params;
  for (auto& s : specs) s.default_text = e.default_of(s);  // alias defaults
  if (specs.empty()) std::cout << "  (no parameters)\n";
  else std::cout << describe_params(specs);
}

template <class Product>
void print_all(const Registry<Product>& registry) {
  for (const auto& name : registry.names()) {
    print_entry(registry.get(name), true);
    std::cout << "\n";
  }
}

//! The constants whose table entry names this solver as a reader (a test checks the table
//! against what the presets actually read).
void print_constants_read(const std::string& solver) {
  std::vector<std::string> read;
  for (const auto& info : kConstantTable) {
    const std::string readers(info.read_by);
    const auto at = readers.find(solver);
    const auto end = at + solver.size();
    if (at != std::string::npos && (at == 0 || readers[at - 1] == ' ') &&
        (end == readers.size() || readers[end] == ',' || readers[end] == ' '))
      read.emplace_back(info.name);
  }
  if (read.empty()) std::cout << "  theory presets read no problem constant\n";
  else std::cout << "  theory presets read the problem constants: " << join(read, ", ") << "\n";
}

//! The constants of one instance (defaults unless -p is given), with value and meaning.
void print_constants_published(const std::string& problem, const ParamMap& given) {
  std::unique_ptr<Problem> instance;
  try {
    instance = make_problem(problem, given);
  } catch (const UserError& e) {
    std::cout << "  constants: not shown, the instance cannot be built here (" << e.what() << ")\n";
    return;
  }
  const Constants& k = instance->constants();
  if (k.values().empty()) {
    std::cout << "  publishes no constants\n";
    return;
  }
  std::cout << "  constants of this instance (name, value, meaning; how computed):\n";
  for (const auto& [key, value] : k.values()) {
    const auto id = constant_from_name(key);
    std::cout << "    " << key << std::string(key.size() < 30 ? 30 - key.size() : 1, ' ')
              << format_real(value) << "  "
              << (id ? std::string(constant_info(*id).meaning) : std::string("?")) << "; "
              << k.docs().at(key) << "\n";
  }
}

}  // namespace

std::function<int()> add_list(CLI::App& app) {
  auto* sub = app.add_subcommand("list", "list problems or solvers with their parameters");
  auto what = std::make_shared<std::string>();
  sub->add_option("what", *what, "problems or solvers")
      ->required()
      ->check(CLI::IsMember({"problems", "solvers"}));
  return [what] {
    if (*what == "problems") print_all(problem_registry());
    else print_all(solver_registry());
    return 0;
  };
}

std::function<int()> add_describe(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "describe", "print a problem's or solver's parameter table and the problem constants it "
                  "publishes or its theory presets read");
  auto name = std::make_shared<std::string>();
  auto params = std::make_shared<std::vector<std::string>>();
  sub->add_option("name", *name, "a problem or solver name")->required();
  sub->add_option("-p,--param", *params, "problem parameter key=value (the instance whose "
                  "constants are shown)");
  return [name, params] {
    if (solver_registry().contains(*name)) {
      const auto& entry = solver_registry().get(*name);
      print_entry(entry, true);
      print_constants_read(entry.alias_of.empty() ? entry.name : entry.alias_of);
    } else if (problem_registry().contains(*name)) {
      print_entry(problem_registry().get(*name), true);
      print_constants_published(*name, parse_assignments(*params, "problem " + *name));
    } else {
      auto names = solver_registry().names();
      for (auto& n : problem_registry().names()) names.push_back(n);
      throw UserError("unknown problem or solver '" + *name + "'; see fedbench list problems|solvers" +
                      did_you_mean(*name, names));
    }
    return 0;
  };
}

}  // namespace fedbench::cli
