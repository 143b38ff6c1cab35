#include "engine/theory_reads.hpp"

#include <memory>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench {
namespace {

// Instances without data files, one per kind of problem a preset targets (every constant a
// preset reads is published by one of them: a unit test checks it).
const std::vector<std::shared_ptr<const Problem>>& probe_problems() {
  static const auto problems = [] {
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
  }();
  return problems;
}

void probe(const std::string& name, std::set<Constant>& read) {
  const auto& entry = solver_registry().get(name);
  ParamMap theory;
  for (const auto& spec : entry.params)
    if (spec.accepts_theory) theory[spec.name] = kTheory;
  for (const auto& problem : probe_problems()) {
    RunConfig config;
    config.problem = "probe";
    config.solver = name;
    auto runner = entry.create(theory);
    try {
      runner->prepare(*problem, config);
    } catch (const UserError&) {
      // a constant this problem lacks, or settings it refuses: what was asked is still noted
    }
    for (Constant c : runner->constants_read()) read.insert(c);
  }
}

}  // namespace

std::set<Constant> constants_read_by_presets(const std::string& solver) {
  const auto& entry = solver_registry().get(solver);
  const std::string base = entry.alias_of.empty() ? solver : entry.alias_of;
  std::set<Constant> read;
  for (const auto& name : solver_registry().names()) {
    const auto& e = solver_registry().get(name);
    if (name == base || e.alias_of == base) probe(name, read);
  }
  return read;
}

}  // namespace fedbench
