// The named problem constants: every constant a theory preset reads is published by at least
// one problem, and the "read by" column of problem/constant_names.hpp says exactly which
// solvers' presets read it, as observed by running every preset on every cheap problem.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "engine/solver.hpp"
#include "problem/constant_names.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench {
namespace {

// Instances without data files, one per family member a preset targets.
std::vector<std::shared_ptr<const Problem>> cheap_problems() {
  const std::vector<std::pair<std::string, ParamMap>> specs = {
      {"quadratic-game", {{"clients", "4"}, {"samples", "6"}, {"dim", "3"}}},
      {"two-client-game", {}},
      {"robust-least-squares", {}},
      {"nc-sc-quadratic", {}},
      {"matrix-game", {}},
      {"wgan-gaussian", {{"samples", "20"}}},
      {"two-sided-pl", {}},
      {"bilevel-quadratic", {}},
  };
  std::vector<std::shared_ptr<const Problem>> out;
  for (const auto& [name, params] : specs) out.emplace_back(make_problem(name, params));
  return out;
}

//! Solver names listed in a table row's "read by" text ("a, b (note), c").
std::set<std::string> readers_of(const ConstantInfo& info) {
  std::set<std::string> out;
  for (auto item : split(std::string(info.read_by), ',')) {
    item.erase(0, item.find_first_not_of(' '));
    if (const auto paren = item.find(" ("); paren != std::string::npos) item.resize(paren);
    if (!item.empty()) out.insert(item);
  }
  return out;
}

}  // namespace

TEST_CASE("constants: the table lists every constant once, in enum order, with a meaning") {
  std::set<std::string_view> names;
  for (const auto& info : kConstantTable) {
    CHECK(names.insert(info.name).second);
    CHECK_FALSE(info.meaning.empty());
    CHECK(constant_from_name(info.name) == info.id);
  }
  CHECK_FALSE(constant_from_name("mu_typo").has_value());
}

TEST_CASE("constants: theory presets read what some problem publishes, as the table says") {
  const auto problems = cheap_problems();
  // solver -> constants its presets asked for; an alias (other defaults, e.g. minibatches)
  // counts for the solver it names
  std::map<std::string, std::set<Constant>> read;
  for (const auto& name : solver_registry().names()) {
    const auto& entry = solver_registry().get(name);
    const std::string solver = entry.alias_of.empty() ? name : entry.alias_of;
    ParamMap theory;
    for (const auto& spec : entry.params)
      if (spec.accepts_theory) theory[spec.name] = kTheory;
    for (const auto& problem : problems) {
      RunConfig config;
      config.problem = "test";
      config.solver = name;
      auto runner = entry.create(theory);
      try {
        runner->prepare(*problem, config);
      } catch (const UserError&) {
        // a constant this problem lacks, or settings it refuses: the attempt is still noted
      }
      for (Constant c : runner->constants_read()) read[solver].insert(c);
    }
  }
  REQUIRE_FALSE(read.empty());

  for (const auto& entry : read)  // not a structured binding: INFO is a lambda (clang 14)
    for (Constant c : entry.second) {
      const auto& solver = entry.first;
      INFO("solver " << solver << " reads " << constant_name(c));
      bool published = false;
      for (const auto& problem : problems) published = published || problem->constants().has(c);
      CHECK(published);
      CHECK(readers_of(constant_info(c)).count(solver) == 1);
    }
  for (const auto& info : kConstantTable)
    for (const auto& solver : readers_of(info)) {
      INFO("the table says " << solver << " reads " << info.name);
      REQUIRE(solver_registry().contains(solver));
      CHECK(read[solver].count(info.id) == 1);
    }
}

}  // namespace fedbench
