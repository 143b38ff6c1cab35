// `fedbench plan SUITE.yaml`: the expanded runs with their ids and state, after validating
// everything a run would check, without running anything. The runs are streamed: memory does
// not grow with their number.
#include <cstdio>
#include <map>
#include <memory>

#include "commands.hpp"
#include "core/json.hpp"
#include "results/results_store.hpp"
#include "suite/suite_runner.hpp"
#include "suite/suite_search.hpp"

namespace fedbench::cli {
namespace {

void print_run_json(const suite::SuiteRun& r, suite::RunState state, const std::string& why, bool first) {
  Json run = {{"id", r.id}, {"state", to_string(state)}};
  if (state == suite::RunState::stale || state == suite::RunState::corrupt) run["why"] = why;
  run["problem"] = r.request.problem;
  run["problem_params"] = r.request.problem_params;
  run["solver"] = r.request.solver;
  run["solver_params"] = r.request.solver_params;
  run["participation"] = r.request.participation.to_text();
  run["seed"] = r.request.seed;
  std::printf("%s\n  %s", first ? "" : ",", json_text(run).c_str());
}

void print_run_row(const suite::SuiteRun& run, suite::RunState state) {
  std::string params;
  for (const auto& [k, v] : run.request.solver_params) params += k + "=" + v + " ";
  params += "| " + run.request.problem;
  for (const auto& [k, v] : run.request.problem_params) params += " " + k + "=" + v;
  params += " | " + run.request.participation.to_text();
  std::printf("%-16s  %-7s  %-22s  %-5llu  %s\n", run.id.c_str(), to_string(state).c_str(),
              run.request.solver.c_str(), static_cast<unsigned long long>(run.request.seed), params.c_str());
}

// Checks every run as `run` would, once per configuration: prepare_run reads the seed only into
// the configuration it records, and a suite of 10^6 runs is typically a thousand configurations
// times a thousand seeds. In chunks, so that a grid of as many configurations is not prepared
// all at once (each chunk builds its problems again: few chunks share one).
void validate(const suite::SuitePlan& plan) {
  constexpr std::size_t kChunk = 16384;
  suite::Suite chunk;
  chunk.path = plan.path;
  chunk.name = plan.name;
  chunk.results_dir = plan.results_dir;
  chunk.partial = plan.partial;
  auto check = [&] {
    suite::validate_suite(chunk);
    chunk.runs.clear();
  };
  plan.for_each_configuration([&](const suite::SuiteRun& run) {
    chunk.runs.push_back(run);
    if (chunk.runs.size() == kChunk) check();
  });
  if (!chunk.runs.empty()) check();
}

// The runs are printed as they are built, never held (a suite may have 10^6 of them): each
// run's object through the JSON library, the list around them by hand.
void print_plan_json(const suite::SuitePlan& plan, const suite::RunStateLookup& states) {
  const std::string head = json_text(Json{{"suite", plan.name}, {"results", plan.results_dir}});
  std::printf("%s,\"runs\":[", head.substr(0, head.size() - 1).c_str());  // the object, still open
  bool first = true;
  plan.for_each_run([&](const suite::SuiteRun& run) {
    std::string why;
    const suite::RunState state = states.state(run, &why);
    print_run_json(run, state, why, first);
    first = false;
  });
  std::printf("]}\n");
}

void print_plan_table(const suite::SuitePlan& plan, const suite::RunStateLookup& states) {
  std::map<suite::RunState, long long> counts;
  std::map<std::string, long long> stale_reasons;  // runs per reason, listed after the table
  std::printf("%-16s  %-7s  %-22s  %-5s  %s\n", "id", "state", "solver", "seed", "parameters");
  plan.for_each_run([&](const suite::SuiteRun& run) {
    std::string why;
    const suite::RunState state = states.state(run, &why);
    ++counts[state];
    if (state == suite::RunState::stale) ++stale_reasons[why];
    print_run_row(run, state);
  });
  for (const auto& [why, n] : stale_reasons) std::printf("stale (%lld): %s\n", n, why.c_str());
  const long long stale = counts[suite::RunState::stale], corrupt = counts[suite::RunState::corrupt];
  std::printf("suite %s: %zu runs valid: %lld done, %lld partial, %lld new%s%s; results in %s\n",
              plan.name.c_str(), plan.size(), counts[suite::RunState::done], counts[suite::RunState::partial],
              counts[suite::RunState::fresh],
              stale ? (", " + std::to_string(stale) + " stale (run reruns them, --reuse-stale keeps them)").c_str()
                    : "",
              corrupt ? (", " + std::to_string(corrupt) + " corrupt (run again)").c_str() : "",
              plan.results_dir.c_str());
  // Backups and copies under runs/: listed, never taken for runs.
  if (const auto foreign = suite::ResultsStore(plan.results_dir).foreign_files(); !foreign.empty())
    std::printf("%zu file%s under runs/ %s not runs of this suite (the name is not a run id, e.g. %s)\n",
                foreign.size(), foreign.size() == 1 ? "" : "s", foreign.size() == 1 ? "is" : "are",
                foreign.front().c_str());
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
  sub->add_option("suite", o->suite, "suite file (YAML) or a shipped suite's name")->required();
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
    const suite::SuitePlan plan = suite::load_suite_plan(suite::resolve_suite_path(o->suite), overrides);
    validate(plan);
    const suite::ResultsStore store(plan.results_dir);
    const suite::RunStateLookup states(store);
    if (o->json) print_plan_json(plan, states);
    else print_plan_table(plan, states);
    return 0;
  };
}

}  // namespace fedbench::cli
