// `fedbench plan SUITE.yaml`: the expanded runs with their ids and state, after validating
// everything a run would check, without running anything.
#include <cstdio>
#include <map>
#include <memory>

#include "commands.hpp"
#include "core/text.hpp"
#include "results/results_store.hpp"
#include "suite/suite_runner.hpp"

namespace fedbench::cli {
namespace {

std::string json_params(const ParamMap& m) {
  std::string out;
  for (const auto& [k, v] : m) out += (out.empty() ? "" : ", ") + json_quote(k) + ": " + json_quote(v);
  return "{" + out + "}";
}

void print_plan_json(const suite::Suite& s, const suite::ResultsStore& store) {
  std::printf("{\"suite\": %s, \"results\": %s, \"runs\": [", json_quote(s.name).c_str(),
              json_quote(s.results_dir).c_str());
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const auto& r = s.runs[i];
    std::string why;
    const suite::RunState state = store.state(r, &why);
    const std::string why_field = state == suite::RunState::stale || state == suite::RunState::corrupt
                                      ? ", \"why\": " + json_quote(why)
                                      : "";
    std::printf("%s\n  {\"id\": %s, \"state\": %s%s, \"problem\": %s, \"problem_params\": %s, "
                "\"solver\": %s, \"solver_params\": %s, \"participation\": %s, \"seed\": %llu}",
                i ? "," : "", json_quote(r.id).c_str(), json_quote(to_string(state)).c_str(), why_field.c_str(),
                json_quote(r.request.problem).c_str(), json_params(r.request.problem_params).c_str(),
                json_quote(r.request.solver).c_str(), json_params(r.request.solver_params).c_str(),
                json_quote(r.request.participation.to_text()).c_str(),
                static_cast<unsigned long long>(r.request.seed));
  }
  std::printf("]}\n");
}

}  // namespace

std::function<int()> add_plan(CLI::App& app) {
  auto* sub = app.add_subcommand("plan", "list and validate the runs of a suite file");
  struct Options {
    std::string suite, results;
    std::vector<std::string> solver_params, problem_params, only_solvers, only_problems;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("suite", o->suite, "suite file (YAML)")->required();
  sub->add_option("-s,--solver-param", o->solver_params, "solver grid key=v1,v2 (overrides the file)");
  sub->add_option("-p,--problem-param", o->problem_params, "problem grid key=v1,v2");
  sub->add_option("--results", o->results, "results directory (default from the file)");
  sub->add_option("--solver", o->only_solvers, "only the suite's entries of this solver (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--problem", o->only_problems, "only the suite's entries of this problem (repeatable)")
      ->allow_extra_args(false);
  sub->add_flag("--json", o->json, "print the runs as JSON instead of a table");
  return [o] {
    suite::SuiteOverrides overrides;
    overrides.solver_params = o->solver_params;
    overrides.problem_params = o->problem_params;
    overrides.results_dir = o->results;
    overrides.only_problems = o->only_problems;
    overrides.only_solvers = o->only_solvers;
    const suite::Suite s = suite::load_suite(o->suite, overrides);
    suite::validate_suite(s);
    const suite::ResultsStore store(s.results_dir);
    if (o->json) {
      print_plan_json(s, store);
      return 0;
    }
    std::map<suite::RunState, int> counts;
    std::map<std::string, int> stale_reasons;  // runs per reason, listed after the table
    std::printf("%-16s  %-7s  %-22s  %-5s  %s\n", "id", "state", "solver", "seed", "parameters");
    for (const auto& run : s.runs) {
      std::string why;
      const suite::RunState st = store.state(run, &why);
      ++counts[st];
      if (st == suite::RunState::stale) ++stale_reasons[why];
      std::string params;
      for (const auto& [k, v] : run.request.solver_params) params += k + "=" + v + " ";
      params += "| " + run.request.problem;
      for (const auto& [k, v] : run.request.problem_params) params += " " + k + "=" + v;
      params += " | " + run.request.participation.to_text();
      std::printf("%-16s  %-7s  %-22s  %-5llu  %s\n", run.id.c_str(), to_string(st).c_str(),
                  run.request.solver.c_str(), static_cast<unsigned long long>(run.request.seed),
                  params.c_str());
    }
    for (const auto& [why, n] : stale_reasons)
      std::printf("stale (%d): %s\n", n, why.c_str());
    const int stale = counts[suite::RunState::stale], corrupt = counts[suite::RunState::corrupt];
    std::printf("suite %s: %zu runs valid: %d done, %d partial, %d new%s%s; results in %s\n",
                s.name.c_str(), s.runs.size(), counts[suite::RunState::done],
                counts[suite::RunState::partial], counts[suite::RunState::fresh],
                stale ? (", " + std::to_string(stale) + " stale (run reruns them, --reuse-stale keeps them)").c_str() : "",
                corrupt ? (", " + std::to_string(corrupt) + " corrupt (run again)").c_str() : "",
                s.results_dir.c_str());
    return 0;
  };
}

}  // namespace fedbench::cli
