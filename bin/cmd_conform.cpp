// `fedbench conform SOLVER`: the checks every built-in solver passes in fedbench's own tests,
// run on any registered solver, so that a plug-in's author can run them on theirs.
#include <algorithm>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/params.hpp"
#include "engine/conformance.hpp"
#include "engine/solver.hpp"

namespace fedbench::cli {

std::function<int()> add_conform(CLI::App& app) {
  struct Options {
    ConformanceRequest request;
    std::vector<std::string> solver_params, problem_params;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "conform", "check a solver (built in or from a plug-in) against the checks every solver passes: "
                 "documented, progress, honest counts, the same bits at any thread count");
  sub->add_option("solver", o->request.solver, "registered solver name")->required();
  sub->add_option("-s,--solver-param", o->solver_params, "solver parameter key=value, for every run")
      ->type_name("KEY=VALUE");
  sub->add_option("--problem", o->request.problem,
                  "problem to check on (default: a 5-client quadratic game, or the quadratic bilevel "
                  "problem for bilevel solvers)");
  sub->add_option("-p,--problem-param", o->problem_params, "problem parameter key=value (with --problem)")
      ->type_name("KEY=VALUE");
  sub->footer("Exit status 0 when every check passes, 1 when one fails. Example: fedbench --plugin "
              "build/libmy_methods.so conform my-gda");
  return [o] {
    o->request.solver_params = parse_assignments(o->solver_params, "solver " + o->request.solver);
    // A misspelt name is bad input (exit 2), not five failed checks.
    const auto& specs = solver_registry().get(o->request.solver).params;
    for (const auto& assignment : o->request.solver_params) {
      const std::string& key = assignment.first;
      if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; }))
        detail::unknown_parameter("solver " + o->request.solver, key, specs);
    }
    o->request.problem_params = parse_assignments(o->problem_params, "problem " + o->request.problem);
    int failed = 0;
    for (const auto& check : check_conformance(o->request)) {
      std::cout << (check.skipped ? "skip  " : check.passed ? "pass  " : "FAIL  ") << check.name << ": " << check.detail << "\n";
      failed += check.passed ? 0 : 1;
    }
    std::cout << (failed ? std::to_string(failed) + " check(s) failed" : std::string("all checks passed"))
              << " for solver " << o->request.solver << "\n";
    return failed ? 1 : 0;
  };
}

}  // namespace fedbench::cli
