// `fedbench plan SUITE.yaml`: the expanded runs with their ids and state, after validating
// everything a run would check, without running anything.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "suite/results_store.hpp"
#include "suite/suite_runner.hpp"

namespace fedbench::cli {

std::function<int()> add_plan(CLI::App& app) {
  auto* sub = app.add_subcommand("plan", "list and validate the runs of a suite file");
  struct Options {
    std::string suite, results;
    std::vector<std::string> solver_params, problem_params;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("suite", o->suite, "suite file (YAML)")->required();
  sub->add_option("-s,--solver-param", o->solver_params, "solver grid key=v1,v2 (overrides the file)");
  sub->add_option("-p,--problem-param", o->problem_params, "problem grid key=v1,v2");
  sub->add_option("--results", o->results, "results directory (default from the file)");
  return [o] {
    const suite::Suite s =
        suite::load_suite(o->suite, {o->solver_params, o->problem_params, o->results});
    suite::validate_suite(s);
    const suite::ResultsStore store(s.results_dir);
    int counts[3] = {0, 0, 0};
    std::printf("%-16s  %-7s  %-22s  %-5s  %s\n", "id", "state", "solver", "seed", "parameters");
    for (const auto& run : s.runs) {
      const suite::RunState st = store.state(run.id);
      ++counts[static_cast<int>(st)];
      std::string params;
      for (const auto& [k, v] : run.request.solver_params) params += k + "=" + v + " ";
      params += "| " + run.request.problem;
      for (const auto& [k, v] : run.request.problem_params) params += " " + k + "=" + v;
      params += " | " + run.request.participation.to_text();
      std::printf("%-16s  %-7s  %-22s  %-5llu  %s\n", run.id.c_str(), to_string(st).c_str(),
                  run.request.solver.c_str(), static_cast<unsigned long long>(run.request.seed),
                  params.c_str());
    }
    std::printf("suite %s: %zu runs valid: %d done, %d partial, %d new; results in %s\n",
                s.name.c_str(), s.runs.size(), counts[2], counts[1], counts[0],
                s.results_dir.c_str());
    return 0;
  };
}

}  // namespace fedbench::cli
