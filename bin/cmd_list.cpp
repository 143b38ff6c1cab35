// `fedbench list problems|solvers` and `fedbench describe NAME`: generated from the
// registries' schemas, so the documentation cannot drift from the code.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::cli {
namespace {

template <class Product>
void print_entry(const RegistryEntry<Product>& e, bool with_params) {
  std::cout << e.name;
  if (!e.alias_of.empty()) std::cout << "  (= " << e.alias_of << ")";
  std::cout << "  [" << e.family << "]";
  std::cout << "\n  " << e.summary << "\n  " << e.citation << "\n";
  if (!with_params) return;
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
  auto* sub = app.add_subcommand("describe", "print a problem's or solver's parameter table");
  auto name = std::make_shared<std::string>();
  sub->add_option("name", *name, "a problem or solver name")->required();
  return [name] {
    if (solver_registry().contains(*name)) print_entry(solver_registry().get(*name), true);
    else if (problem_registry().contains(*name)) print_entry(problem_registry().get(*name), true);
    else {
      auto names = solver_registry().names();
      for (auto& n : problem_registry().names()) names.push_back(n);
      throw UserError("unknown problem or solver '" + *name + "'; see fedbench list problems|solvers" +
                      did_you_mean(*name, names));
    }
    return 0;
  };
}

}  // namespace fedbench::cli
