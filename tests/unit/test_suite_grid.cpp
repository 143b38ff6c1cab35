// Grid expansion of suite files: logspace/linspace/range against their closed forms, the
// cartesian product, zip pairing, run identities, and the errors that point at a line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "core/text.hpp"
#include "suite/grid.hpp"
#include "results/select.hpp"
#include "engine/runner.hpp"
#include "suite/suite.hpp"

using namespace fedbench;
using namespace fedbench::suite;

TEST_CASE("grid: logspace, linspace and range give numpy's values") {
  const auto log = expand_text("logspace(-3, 0, 4)", "t");
  REQUIRE(log.size() == 4);
  for (int k = 0; k < 4; ++k) {
    double v = 0;
    REQUIRE(parse_real(log[k], v));
    CHECK(v == doctest::Approx(std::pow(10.0, k - 3)).epsilon(1e-15));
  }
  CHECK(expand_text("linspace(0, 1, 5)", "t") ==
        std::vector<std::string>{"0", "0.25", "0.5", "0.75", "1"});
  CHECK(expand_text("range(2, 5)", "t") == std::vector<std::string>{"2", "3", "4"});
  CHECK(expand_text("0.1", "t") == std::vector<std::string>{"0.1"});
  CHECK_THROWS_WITH(expand_text("logspace(0, 1)", "x"),
                    "x: 'logspace(0, 1)' must be logspace(start, stop, count) with a whole count >= 1");
  CHECK_THROWS_WITH(expand_text("range(3, 1)", "x"),
                    "x: 'range(3, 1)' must be range(first, stop) with whole numbers, first < stop");
}

TEST_CASE("grid: lists cross, zip pairs") {
  const YAML::Node n = YAML::Load("{a: [1, 2], b: [x, y, z], zip: {c: [5, 6], d: [7, 8]}}");
  const auto points = expand_params(n, "f.yaml", "solver s");
  CHECK(points.size() == 2 * 3 * 2);
  int paired = 0;
  for (const auto& p : points) {
    CHECK(((p.at("c") == "5" && p.at("d") == "7") || (p.at("c") == "6" && p.at("d") == "8")));
    paired += p.at("c") == "5";
  }
  CHECK(paired == 6);
  const YAML::Node bad = YAML::Load("a: 1\nzip:\n  c: [5, 6]\n  d: [7]\n");
  CHECK_THROWS_WITH(expand_params(bad, "f.yaml", "solver s"),
                    "f.yaml:4: solver s zip: 'd' has 1 values, the others 2; zipped lists pair "
                    "up and need equal lengths");
}

TEST_CASE("suite: ids depend on the configuration only, not on how it was written") {
  const std::string a = "/tmp/fedbench-suite-a.yaml", b = "/tmp/fedbench-suite-b.yaml";
  std::ofstream(a) << "rounds: 10\nproblems:\n  - name: two-client-game\n"
                      "solvers:\n  - name: gda\n    params: {step_size: [0.5, 0.25]}\n";
  // Same runs: default written out, numbers spelled differently, seeds 0 explicit.
  std::ofstream(b) << "seeds: 0\nrounds: 10\nproblems:\n  - name: two-client-game\n"
                      "    params: {delta: 0}\nsolvers:\n  - name: gda\n"
                      "    params: {step_size: [2.5e-1, .5], batch_size: 0}\n";
  const Suite sa = load_suite(a), sb = load_suite(b);
  REQUIRE(sa.runs.size() == 2);
  REQUIRE(sb.runs.size() == 2);
  std::vector<std::string> ia{sa.runs[0].id, sa.runs[1].id}, ib{sb.runs[0].id, sb.runs[1].id};
  std::sort(ia.begin(), ia.end());
  std::sort(ib.begin(), ib.end());
  CHECK(ia == ib);
  CHECK(sa.runs[0].id != sa.runs[1].id);
  CHECK(sa.runs[0].id.size() == 16);
}

TEST_CASE("suite: a solver's own participation replaces the suite's for that solver only") {
  const std::string path = "/tmp/fedbench-suite-participation.yaml";
  std::ofstream(path) << "rounds: 10\nparticipation: [full, \"uniform:10\"]\n"
                         "problems:\n  - name: quadratic-game\n    params: {clients: 20}\n"
                         "solvers:\n  - name: gda\n"
                         "  - name: local-sgda\n    participation: \"uniform:5\"\n";
  const Suite suite = load_suite(path);
  std::map<std::string, std::vector<std::string>> seen;
  for (const auto& run : suite.runs) seen[run.request.solver].push_back(run.request.participation.to_text());
  CHECK(seen["gda"] == std::vector<std::string>{"full", "uniform:10"});
  CHECK(seen["local-sgda"] == std::vector<std::string>{"uniform:5"});
  std::ofstream(path) << "rounds: 10\nproblems:\n  - name: quadratic-game\n"
                         "solvers:\n  - name: gda\n    participation: \"uniform:x\"\n";
  CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains("fedbench-suite-participation.yaml:6:"), UserError);
  std::ofstream(path) << "rounds: 10\nproblems:\n  - name: quadratic-game\n    participation: full\n"
                         "solvers:\n  - name: gda\n";
  CHECK_THROWS_AS(load_suite(path), UserError);  // only solvers have their own participation
}

TEST_CASE("select: a winners suite reruns each winner at its own participation") {
  // Tuning runs whose solvers sample different client counts: the rerun must keep each one's.
  const std::string path = "/tmp/fedbench-suite-winners.yaml";
  std::ofstream(path) << "rounds: 10\nparticipation: \"uniform:10\"\n"
                         "problems:\n  - name: quadratic-game\n    params: {clients: 20}\n"
                         "solvers:\n  - name: gda\n    params: {step_size: 0.01}\n"
                         "  - name: local-sgda\n    participation: \"uniform:5\"\n"
                         "    params: {schedule: constant, step_size: 0.02}\n";
  const Suite tuning = load_suite(path);
  REQUIRE(tuning.runs.size() == 2);
  std::vector<Configuration> winners;
  for (const auto& run : tuning.runs) {
    Configuration c;
    const PreparedRun prepared = prepare_run(run.request);  // what a run file records
    c.problem = prepared.config.problem;
    c.solver = prepared.config.solver;
    c.problem_params = prepared.config.problem_params;
    c.solver_params = prepared.config.solver_params;
    c.config_text = prepared.config.to_text();
    winners.push_back(c);
  }
  // The solver whose participation differs from the suite's comes first (the old writer took
  // the first winner's participation for every solver).
  std::sort(winners.begin(), winners.end(),
            [](const Configuration& a, const Configuration& b) { return a.solver > b.solver; });
  std::ofstream(path) << winners_suite(winners, {1, 2}, "rerun", "test");
  const Suite rerun = load_suite(path);
  REQUIRE(rerun.runs.size() == 4);
  std::map<std::string, std::string> participation;
  for (const auto& run : rerun.runs) participation[run.request.solver] = run.request.participation.to_text();
  CHECK(participation["local-sgda"] == "uniform:5");
  CHECK(participation["gda"] == "uniform:10");
  // Everything else of the configuration is kept too: only the seed differs.
  for (const auto& run : rerun.runs) {
    const auto& original = run.request.solver == "gda" ? tuning.runs[0] : tuning.runs[1];
    std::string a = prepare_run(run.request).config.to_text();
    std::string b = prepare_run(original.request).config.to_text();
    for (std::string* text : {&a, &b}) {  // the run's own seed line, not instance_seed
      const auto at = text->find("\nseed:");
      text->erase(at, text->find('\n', at + 1) - at);
    }
    CHECK(a == b);
  }
}

TEST_CASE("suite: without an eval key, expensive problems are evaluated at log-spaced rounds") {
  CHECK(default_eval_schedule("quadratic-game").to_text() == "every:1");
  for (const char* expensive : {"hyper-logreg", "data-hypercleaning", "bilevel-quadratic", "auc", "robust-training"})
    CHECK(default_eval_schedule(expensive).to_text() == "log:10");
  const std::string path = "/tmp/fedbench-suite-eval.yaml";
  std::ofstream(path) << "rounds: 10\nproblems:\n  - name: quadratic-game\n  - name: bilevel-quadratic\n"
                         "solvers:\n  - name: fedbioacc\n  - name: gda\n";
  std::map<std::string, std::string> schedule;
  for (const auto& run : load_suite(path).runs) schedule[run.request.problem] = run.request.eval.to_text();
  CHECK(schedule["quadratic-game"] == "every:1");
  CHECK(schedule["bilevel-quadratic"] == "log:10");
  std::ofstream(path) << "rounds: 10\neval: {every: 2}\nproblems:\n  - name: bilevel-quadratic\n"
                         "solvers:\n  - name: fedbioacc\n";
  CHECK(load_suite(path).runs.front().request.eval.to_text() == "every:2");
}

TEST_CASE("suite: rounds cut short from outside evaluate at least min_points times") {
  // An experiment's --quick rounds: the file's schedule was meant for the full budget. Counted
  // here by walking the rounds: at least 10 evaluated after round 0, and every round the
  // file's schedule evaluates within the short budget still evaluated (claims are read there).
  const std::string path = "/tmp/fedbench-suite-short-eval.yaml";
  const auto evaluated = [](const EvalSchedule& e, std::int64_t rounds) {
    std::vector<std::int64_t> due;
    for (std::int64_t r = 1; r <= rounds; ++r)
      if (e.due(r)) due.push_back(r);
    return due;
  };
  for (const auto& sizes : std::vector<std::tuple<int, int, int>>{
           {200, 4000, 400}, {100, 500, 100}, {25, 200, 25}, {50, 2000, 400}, {7, 100, 30}, {10, 400, 150}}) {
    // Plain variables, not a structured binding: clang 14 cannot capture those in CAPTURE.
    const int every = std::get<0>(sizes), full = std::get<1>(sizes), quick = std::get<2>(sizes);
    CAPTURE(every);
    CAPTURE(quick);
    std::ofstream(path) << "rounds: " << full << "\neval: {every: " << every
                        << ", min_points: 10}\nproblems:\n  - name: bilevel-quadratic\nsolvers:\n  - name: fedbioacc\n";
    SuiteOverrides overrides;
    overrides.rounds = quick;
    const EvalSchedule shortened = load_suite(path, overrides).runs.front().request.eval;
    const auto due = evaluated(shortened, quick);
    CHECK(due.size() >= std::min<std::size_t>(10, static_cast<std::size_t>(quick)));
    EvalSchedule file;
    file.every = every;
    for (const auto r : evaluated(file, quick)) CHECK(std::count(due.begin(), due.end(), r) == 1);
    // the full budget keeps the file's schedule
    CHECK(load_suite(path).runs.front().request.eval.every == every);
  }
  SuiteOverrides overrides;
  overrides.rounds = 400;
  // without min_points the file's schedule stays; with 4, 400 rounds evaluate every 100
  std::ofstream(path) << "rounds: 4000\neval: {every: 200}\nproblems:\n"
                         "  - name: bilevel-quadratic\nsolvers:\n  - name: fedbioacc\n";
  CHECK(load_suite(path, overrides).runs.front().request.eval.to_text() == "every:200");
  std::ofstream(path) << "rounds: 4000\neval: {every: 200, min_points: 4}\nproblems:\n"
                         "  - name: bilevel-quadratic\nsolvers:\n  - name: fedbioacc\n";
  CHECK(load_suite(path, overrides).runs.front().request.eval.to_text() == "every:100");
  std::ofstream(path) << "rounds: 4000\neval: {every: 200, min_points: 0}\nproblems:\n"
                         "  - name: bilevel-quadratic\nsolvers:\n  - name: fedbioacc\n";
  CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains("min_points"), UserError);
  std::ofstream(path) << "rounds: 4000\neval: {log: 5}\nproblems:\n  - name: bilevel-quadratic\n"
                         "solvers:\n  - name: fedbioacc\n";
  overrides.rounds = 100;
  CHECK(load_suite(path, overrides).runs.front().request.eval.to_text() == "log:5");
}

TEST_CASE("grid: expansions past the caps are refused before they are built, naming their size") {
  for (const char* text : {"logspace(0, 1, 1e9)", "linspace(0, 1, 3e9)", "range(0, 1e18)"})
    CHECK_THROWS_WITH_AS(expand_text(text, "solver gda step_size"),
                         doctest::Contains("a grid expression may have at most 100000"), UserError);
  const std::string path = "/tmp/fedbench-suite-caps.yaml";
  std::ofstream(path) << "rounds: 10\nseeds: range(0, 1e18)\nproblems:\n  - name: quadratic-game\n"
                         "solvers:\n  - name: gda\n";
  CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains("at most 100000"), UserError);
  // Four crossed grids of 100 values: 10^8 points, refused before the product is built.
  std::ofstream(path) << "rounds: 10\nproblems:\n  - name: quadratic-game\n"
                         "    params: {mu_min: \"linspace(0.001, 0.009, 100)\", mu_max: \"linspace(1, 2, 100)\","
                         " b_max: \"linspace(0, 1, 100)\", heterogeneity: \"linspace(0, 1, 100)\"}\n"
                         "solvers:\n  - name: gda\n";
  CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains("cross to 1e+08 points"), UserError);
  // Seeds times points: 1000 x 1000 runs.
  std::ofstream(path) << "rounds: 10\nseeds: range(0, 1001)\nproblems:\n  - name: quadratic-game\n"
                         "solvers:\n  - name: gda\n    params: {step_size: \"logspace(-3, 0, 1000)\"}\n";
  CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains("the suite expands to 1001000 runs; a suite may have at most 1000000"), UserError);
  // Unknown keys are named before any grid is crossed.
  std::string many = "rounds: 10\nproblems:\n  - name: quadratic-game\nsolvers:\n  - name: gda\n    params: {";
  for (int k = 0; k < 10; ++k) many += (k ? ", " : "") + std::string("bogus") + std::to_string(k) + ": \"range(0, 10)\"";
  std::ofstream(path) << many << "}\n";
  CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains("unknown parameter 'bogus0'"), UserError);
  std::ofstream(path) << "rounds: 1e19\nproblems:\n  - name: quadratic-game\nsolvers:\n  - name: gda\n";
  CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains("rounds = '1e19' is not a whole number from 0 to 9e18"),
                       UserError);
}

TEST_CASE("suite: a name a directory cannot have is refused at its line") {
  const std::string body = "rounds: 2\nproblems:\n  - name: quadratic-game\nsolvers:\n  - name: gda\n";
  const std::string path = "/tmp/fedbench-suite-name.yaml";
  const std::string rule = "; a suite's name is a directory name (results/NAME): use letters, digits, '-', '_', '.'";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"\"\"", "name \"\" is empty"},
      {"\"a\\nb\"", "name \"a\\nb\" has a newline"},
      {"a/b", "name \"a/b\" has '/'"},
      {"\"a b\"", "name \"a b\" has a space"},
      {"..", "name \"..\" is the parent directory"},
      {".", "name \".\" is the directory itself"},
      {"\"tab\\there\"", "name \"tab\\there\" has the byte 0x09"},
      {std::string(256, 'x'), "has 256 characters (at most 255)"}};
  for (const auto& entry : bad) {  // not a structured binding: clang 14 cannot capture one
    const std::string& name = entry.first;
    const std::string& why = entry.second;
    CAPTURE(name);
    std::ofstream(path) << "seeds: 0\nname: " << name << "\n" << body;
    const std::string at = path + ":2: name ", message = why + rule;
    CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains(at.c_str()), UserError);
    CHECK_THROWS_WITH_AS(load_suite(path), doctest::Contains(message.c_str()), UserError);
  }
  // The names in use: letters, digits, '-', '_', '.'; up to 255 of them.
  for (const std::string& name : std::vector<std::string>{"zhang2024-fig1a", "auc_grid", "v1.2", std::string(255, 'x')}) {
    std::ofstream(path) << "name: " << name << "\n" << body;
    CHECK(load_suite(path).name == name);
  }
  // Without a name the file's gives it, under the same rule.
  const std::string unnamed = "/tmp/fedbench suite unnamed.yaml";
  std::ofstream(unnamed) << body;
  CHECK_THROWS_WITH_AS(load_suite(unnamed),
                       doctest::Contains("a suite without 'name' is named after its file, and \"fedbench suite unnamed\" has a space"),
                       UserError);
  std::filesystem::remove(unnamed);
}

namespace {

// Every run of a plan, copied out of the streamed SuiteRun.
std::vector<SuiteRun> streamed(const SuitePlan& plan, bool configurations_only = false) {
  std::vector<SuiteRun> runs;
  auto keep = [&](const SuiteRun& run) { runs.push_back(run); };
  if (configurations_only) plan.for_each_configuration(keep);
  else plan.for_each_run(keep);
  return runs;
}

void check_same_runs(const std::vector<SuiteRun>& a, const std::vector<SuiteRun>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i].id == b[i].id);
    CHECK(a[i].identity_text == b[i].identity_text);
    CHECK(a[i].request.problem_params == b[i].request.problem_params);
    CHECK(a[i].request.solver_params == b[i].request.solver_params);
    CHECK(a[i].request.participation.to_text() == b[i].request.participation.to_text());
    CHECK(a[i].request.seed == b[i].request.seed);
    CHECK(a[i].cost == b[i].cost);
    CHECK(a[i].problem_where == b[i].problem_where);
    CHECK(a[i].solver_where == b[i].solver_where);
  }
}

}  // namespace

TEST_CASE("suite: a plan streams load_suite's runs, in order, with the same ids") {
  const std::string path = "/tmp/fedbench-suite-plan.yaml";
  const std::vector<std::string> suites = {
      // zip, a participation list, a solver's own participation, several problems and seeds
      "rounds: 10\nseeds: [3, 1, 2]\nparticipation: [full, \"uniform:2\"]\n"
      "problems:\n  - name: quadratic-game\n    params: {clients: [4, 6], dim: [3, 5]}\n"
      "  - name: two-client-game\n"
      "solvers:\n  - name: gda\n    params: {step_size: \"logspace(-2, 0, 3)\"}\n"
      "  - name: local-sgda\n    params: {zip: {step_size: [0.1, 0.01], local_steps: [5, 10]}}\n"
      "    participation: \"uniform:2\"\n",
      // one problem, one solver, the default seed
      "rounds: 5\nproblems:\n  - name: quadratic-game\nsolvers:\n  - name: gda\n",
      // an evaluation schedule and a budget of the suite's own
      "rounds: 7\neval: {every: 2}\nbudget: {max_samples: 1e6, target: \"rel_error<=1e-9\"}\n"
      "seeds: range(0, 4)\nproblems:\n  - name: bilevel-quadratic\n  - name: quadratic-game\n"
      "solvers:\n  - name: fedbioacc\n  - name: gda\n    params: {step_size: [0.5, 0.25]}\n"};
  for (const auto& text : suites) {
    CAPTURE(text);
    std::ofstream(path) << text;
    const SuitePlan plan = load_suite_plan(path);
    const Suite suite = load_suite(path);
    CHECK(plan.size() == suite.runs.size());
    check_same_runs(streamed(plan), suite.runs);
    // The configurations are the first seed's runs.
    std::vector<SuiteRun> first_seed;
    for (const auto& run : suite.runs)
      if (run.request.seed == plan.seeds.front()) first_seed.push_back(run);
    check_same_runs(streamed(plan, true), first_seed);
  }
}

TEST_CASE("suite: runs repeated by equal points, participations or seeds are listed once") {
  // The ids of the whole product, the first of equal ids kept: what the runs must be.
  const std::string path = "/tmp/fedbench-suite-plan-repeats.yaml";
  std::ofstream(path) << "rounds: 10\nseeds: [1, 2, 1]\nparticipation: [full, \"uniform:2\", full]\n"
                         "problems:\n  - name: quadratic-game\n    params: {mu_min: [0.01, 1e-2]}\n"
                         "  - name: two-client-game\n"
                         "solvers:\n  - name: gda\n    params: {step_size: [0.5, 5e-1, 0.25]}\n"
                         "  - name: gda\n    params: {step_size: 0.25}\n    participation: \"bernoulli:0.5\"\n"
                         "  - name: gda\n    params: {step_size: 0.5}\n";
  struct Point {
    std::string name;
    ParamMap params;
    std::vector<std::string> participations;
  };
  const std::vector<Point> problems = {
      {"quadratic-game", {{"mu_min", "0.01"}}, {}},
      {"quadratic-game", {{"mu_min", "1e-2"}}, {}},
      {"two-client-game", {}, {}}};
  const std::vector<std::string> suite_participations = {"full", "uniform:2", "full"};
  const std::vector<Point> solvers = {{"gda", {{"step_size", "0.5"}}, suite_participations},
                                      {"gda", {{"step_size", "5e-1"}}, suite_participations},
                                      {"gda", {{"step_size", "0.25"}}, suite_participations},
                                      {"gda", {{"step_size", "0.25"}}, {"bernoulli:0.5"}},
                                      {"gda", {{"step_size", "0.5"}}, suite_participations}};
  std::vector<std::string> expected;
  for (const auto& p : problems)
    for (const auto& s : solvers)
      for (const auto& part : s.participations)
        for (std::uint64_t seed : {1, 2, 1}) {
          RunRequest r;
          r.problem = p.name;
          r.problem_params = p.params;
          r.solver = s.name;
          r.solver_params = s.params;
          r.participation = Participation::parse(part);
          r.seed = seed;
          r.budget.rounds = 10;
          r.eval = default_eval_schedule(p.name);
          const std::string id = run_id(identity_text(r));
          if (std::find(expected.begin(), expected.end(), id) == expected.end()) expected.push_back(id);
        }
  const Suite suite = load_suite(path);
  std::vector<std::string> ids;
  for (const auto& run : suite.runs) ids.push_back(run.id);
  CHECK(ids == expected);
  CHECK(ids.size() == 2 * (2 * 2 + 1) * 2);  // problems x (step sizes x participations + 1) x seeds
  check_same_runs(streamed(load_suite_plan(path)), suite.runs);
}

TEST_CASE("suite: a plan of 10^6 runs holds its points, not its runs") {
  const std::string path = "/tmp/fedbench-suite-plan-large.yaml";
  std::ofstream(path) << "rounds: 10\nseeds: range(0, 1000)\nproblems:\n  - name: quadratic-game\n"
                         "solvers:\n  - name: gda\n    params: {step_size: \"logspace(-3, 0, 1000)\"}\n";
  const SuitePlan plan = load_suite_plan(path);
  CHECK(plan.size() == 1000000);
  CHECK(plan.problems.size() == 1);
  CHECK(plan.solvers.size() == 1000);
  CHECK(plan.seeds.size() == 1000);
  std::size_t configurations = 0;
  plan.for_each_configuration([&](const SuiteRun& run) {
    CHECK(run.request.seed == 0);
    ++configurations;
  });
  CHECK(configurations == 1000);
}
