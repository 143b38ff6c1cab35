// Experiment files: the checks made when they are read (every compared method has a claim,
// claims name known statements and axes) and claims read on exchanges instead of rounds.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "engine/runner.hpp"
#include "io/run_sinks.hpp"
#include "experiment/experiment.hpp"

using namespace fedbench;
using namespace fedbench::suite;

namespace {

std::string write_experiment(const std::string& body) {
  const std::string path = "/tmp/fedbench-test-experiment.yaml";
  std::ofstream(path) << "name: t\ntitle: t\nreference: r\nreproduces: r\nsuite: s.yaml\n" << body;
  return path;
}

const char* kStatement =
    "statements:\n"
    "  - id: s1\n    text: \"A beats all baselines\"\n    solver: a\n    than: [b, c]\n";

}  // namespace

TEST_CASE("experiments: a statement's every compared method needs a claim or a reason") {
  const std::string claim_b =
      "  - text: A beats B\n    statement: s1\n    better: {solver: a, than: b, metric: m, at: 1}\n";
  const std::string claim_c =
      "  - text: A beats C\n    statement: s1\n    better: {solver: a, than: c, metric: m, at: 1}\n";
  // c has no claim: refused, naming the statement, the method and the fix.
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(std::string(kStatement) + "claims:\n" + claim_b)),
                       doctest::Contains("statement 's1' compares a with c but no claim does"), UserError);
  // With its claim, or with a stated reason, it loads.
  CHECK(load_experiment(write_experiment(std::string(kStatement) + "claims:\n" + claim_b + claim_c))
            .statements.size() == 1);
  const Experiment e = load_experiment(write_experiment(
      std::string(kStatement) + "    not_claimed: {c: \"not run here\"}\nclaims:\n" + claim_b));
  CHECK(e.statements[0].not_claimed.at("c") == "not run here");
  // A claim naming a statement that does not exist is refused.
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(
                           "claims:\n  - text: x\n    statement: nope\n    better: {solver: a, than: b, metric: m, at: 1}\n")),
                       doctest::Contains("names statement 'nope'"), UserError);
  // An unknown axis is refused with the valid ones.
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(
                           "claims:\n  - text: x\n    below: {solver: a, metric: m, at: 1, value: 1, axis: seconds}\n")),
                       doctest::Contains("use round, exchanges, bytes, samples"), UserError);
}

TEST_CASE("experiments: every shipped experiment file reads and passes its completeness checks") {
  const auto experiments = load_experiments("results/experiments");
  CHECK(experiments.size() >= 30);
  std::size_t statements = 0;
  for (const auto& e : experiments) statements += e.statements.size();
  CHECK(statements > 0);
}

TEST_CASE("experiments: a claim on the exchanges axis reads the row of that many exchanges") {
  // CD-MAGE talks to the clients twice per round: 10 exchanges are round 5, not round 10.
  namespace fs = std::filesystem;
  const std::string dir = "/tmp/fedbench-test-claims-axis";
  fs::remove_all(dir);
  fs::create_directories(dir + "/runs");
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = {{"clients", "3"}, {"samples", "4"}, {"dim", "2"}};
  req.solver = "cd-mage";
  req.solver_params = {{"local_steps", "2"}, {"batch_size", "0"}};
  req.budget.rounds = 12;
  PreparedRun run = prepare_run(req);
  run.identity = identity_text(req);  // a suite's run: under its id, with its identity
  std::vector<double> rel_error;
  {
    auto file = io::make_file_sink(io::OutputFormat::hdf5, dir + "/runs/" + run_id(run.identity) + ".h5");
    MemoryTrajectory memory;
    TeeSink tee({file.get(), &memory});
    execute(run, 1, tee);
    rel_error = memory.metric("rel_error");
  }
  REQUIRE(rel_error.size() == 13);
  REQUIRE(rel_error[10] < rel_error[5]);
  const auto claim = [&](double value) {
    Claim c;
    c.text = "t";
    c.kind = Claim::Kind::below;
    c.solver = "cd-mage";
    c.metric = "rel_error";
    c.at = 10;
    c.axis = "exchanges";
    c.value = value;
    return c;
  };
  const auto results = check_claims({claim(rel_error[5] * (1 + 1e-9)), claim(rel_error[5] * (1 - 1e-9))}, {dir});
  CHECK(results[0].passed);
  CHECK_FALSE(results[1].passed);  // read on rounds, round 10's lower value would pass it
  CHECK(results[0].line.find("at exchanges 10") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("experiments: median claims need a tuning suite with three seeds when it chooses") {
  Experiment e;
  e.path = "e.yaml";
  e.suite_path = "s.yaml";
  e.select_metric = "rel_error";
  e.report_seeds = {1, 2, 3, 4, 5};
  const std::string path = "/tmp/fedbench-test-tuning.yaml";
  const auto suite = [&](const std::string& seeds, const std::string& steps) {
    std::ofstream(path) << "seeds: " << seeds << "\nrounds: 10\nproblems:\n  - name: two-client-game\n"
                        << "solvers:\n  - name: gda\n    params: {step_size: " << steps << "}\n";
    return load_suite(path);
  };
  // One seed, two step sizes to choose from: refused, naming the fix.
  CHECK_THROWS_WITH_AS(check_tuning_seeds(e, suite("[0]", "[0.5, 0.25]")),
                       doctest::Contains("tunes on 1; give the suite at least 3 seeds"), UserError);
  CHECK_THROWS_AS(check_tuning_seeds(e, suite("[0, 6]", "[0.5, 0.25]")), UserError);
  CHECK_NOTHROW(check_tuning_seeds(e, suite("[0, 6, 7]", "[0.5, 0.25]")));
  // Nothing to choose (one configuration), or a single report seed: one tuning seed is fine.
  CHECK_NOTHROW(check_tuning_seeds(e, suite("[0]", "0.5")));
  e.report_seeds = {1};
  CHECK_NOTHROW(check_tuning_seeds(e, suite("[0]", "[0.5, 0.25]")));
}
