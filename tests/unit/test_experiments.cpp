// Experiment files: the checks made when they are read (every compared method has a claim,
// claims name known statements and axes) and claims read on exchanges instead of rounds.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <cmath>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "engine/runner.hpp"
#include "io/run_sinks.hpp"
#include "io/trajectory_file.hpp"
#include "results/results_store.hpp"
#include "experiment/claims.hpp"
#include "experiment/experiment.hpp"
#include "suite/suite_runner.hpp"

using namespace fedbench;
using namespace fedbench::suite;

namespace {

std::string write_experiment(const std::string& body) {
  // One file per process: ctest runs the test cases of this file side by side.
  const std::string path = "/tmp/fedbench-test-experiment-" + std::to_string(::getpid()) + ".yaml";
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
  // A comparison of the paper's that names no statement is refused; one of fedbench's own is not.
  const std::string unlinked = "claims:\n  - text: A beats B\n    better: {solver: a, than: b, metric: m, at: 1}\n";
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(unlinked)),
                       doctest::Contains("claim 'A beats B' compares methods but names no statement"), UserError);
  CHECK(load_experiment(write_experiment("claims:\n  - text: A beats B\n    origin: fedbench\n"
                                         "    better: {solver: a, than: b, metric: m, at: 1}\n"))
            .claims[0]
            .extra);
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(std::string(kStatement) + "claims:\n" + claim_b + claim_c +
                                                        "  - text: own\n    origin: fedbench\n    statement: s1\n"
                                                        "    better: {solver: a, than: b, metric: m, at: 1}\n")),
                       doctest::Contains("a claim of fedbench's own checks no statement of the paper"), UserError);
  // An unknown axis is refused with the valid ones.
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(
                           "claims:\n  - text: x\n    below: {solver: a, metric: m, at: 1, value: 1, axis: seconds}\n")),
                       doctest::Contains("use round, exchanges, bytes, bytes_up, samples"), UserError);
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
  REQUIRE(results[0].units.size() == 1);
  CHECK(results[0].units[0].values[0] == rel_error[5]);
  CHECK(results[0].units[0].holds);
  CHECK_FALSE(results[1].units[0].holds);  // read on rounds, round 10's lower value would pass it
  CHECK(results[0].line.find("at exchanges 10") != std::string::npos);
  // One seed decides nothing.
  CHECK(results[0].verdict == Verdict::inconclusive);
  CHECK(results[0].line.find(": inconclusive (") != std::string::npos);
  std::filesystem::remove_all(dir);
}

namespace {

// An experiment on the two-client game in `dir`: a tuning suite over two steps on `seeds`, the
// experiment file's extra lines in `lines` (select, report_seeds, quick, variants).
Experiment seeded_experiment(const std::string& dir, const std::string& seeds, const std::string& lines) {
  namespace fs = std::filesystem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/grid.yaml") << "name: grid\nseeds: " << seeds << "\nrounds: 10\n"
                                    << "problems:\n  - name: two-client-game\n"
                                    << "solvers:\n  - name: gda\n    params: {step_size: [0.5, 0.25]}\n";
  std::ofstream(dir + "/e.yaml") << "name: e\ntitle: t\nreference: r\nreproduces: r\nsuite: grid.yaml\n"
                                 << "select: {metric: rel_error, at: \"rounds=10\"}\n" << lines
                                 << "claims:\n  - text: c\n    below: {solver: gda, metric: rel_error, at: 5, value: 1}\n";
  return load_experiment(dir + "/e.yaml");
}

}  // namespace

TEST_CASE("experiments: tuning seeds are at least three and never report, with or without --quick") {
  const std::string dir = "/tmp/fedbench-test-seed-rules";
  const auto refused = [&](const std::string& seeds, const std::string& lines, const std::string& why) {
    CAPTURE(seeds);
    CAPTURE(lines);
    CHECK_THROWS_WITH_AS(validate_experiment(seeded_experiment(dir, seeds, lines)), doctest::Contains(why.c_str()), UserError);
  };
  // Valid: three tuning seeds, fresh report seeds, quick tuning on three other seeds.
  CHECK_NOTHROW(validate_experiment(seeded_experiment(dir, "[0, 1, 2]",
                                                      "report_seeds: range(10, 20)\nquick: {rounds: 5}\n")));
  // Too few tuning seeds: full, or only under --quick.
  refused("[0]", "report_seeds: [5]\n", "select tunes on 1 seed of " + dir + "/grid.yaml; give the tuning at least 3");
  refused("[0, 1, 2]", "report_seeds: [5]\nquick: {rounds: 5, seeds: [0]}\n",
          "select tunes on 1 seed of " + dir + "/grid.yaml (--quick: quick.seeds)");
  // Report seeds that tune: full, quick, a variant's own seeds.
  refused("[0, 1, 2]", "report_seeds: [2, 3]\n", "report_seeds share seeds [2] with the tuning seeds [0, 1, 2]");
  refused("[0, 1, 2]", "report_seeds: [5]\nquick: {rounds: 5, report_seeds: [1]}\n",
          "the quick report seeds share seeds [1] with the tuning seeds [0, 1, 2] (--quick: quick.seeds)");
  refused("[0, 6, 7]",
          "report_seeds: [1]\nvariants:\n  - name: more\n    explains: c\n    suite: grid.yaml\n"
          "    seeds: range(6, 16)\n    claims:\n      - text: v\n        below: {solver: gda, metric: rel_error, at: 10, value: 1}\n",
          "variant more's seeds share seeds [6, 7]");
  // Winners need seeds to be rerun on.
  refused("[0, 1, 2]", "", "select picks winners but the file has no report_seeds");
  std::filesystem::remove_all(dir);
}

TEST_CASE("experiments: equal: COUNTER names the paper's axis of a better claim on rounds") {
  const std::string claim = "claims:\n  - text: A beats B\n    origin: fedbench\n    better: {solver: a, than: b, metric: m, at: 10, ";
  CHECK(load_experiment(write_experiment(claim + "equal: samples}\n")).claims[0].equal == "samples");
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(claim + "equal: seconds}\n")),
                       doctest::Contains("claim equal 'seconds': use exchanges, bytes, bytes_up, samples"), UserError);
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(claim + "equal: samples, axis: exchanges}\n")),
                       doctest::Contains("a better claim on rounds only"), UserError);
}

TEST_CASE("experiments: every method is tuned over as many configurations, or the file says why") {
  const std::string dir = "/tmp/fedbench-test-effort";
  namespace fs = std::filesystem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  // GDA over two steps, FedGDA-GT over one: 2 against 1.
  std::ofstream(dir + "/grid.yaml") << "name: grid\nseeds: [0, 1, 2]\nrounds: 10\nproblems:\n  - name: two-client-game\n"
                                    << "solvers:\n  - name: gda\n    params: {step_size: [0.5, 0.25]}\n"
                                    << "  - name: fedgda-gt\n";
  const auto experiment = [&](const std::string& extra) {
    std::ofstream(dir + "/e.yaml") << "name: e\ntitle: t\nreference: r\nreproduces: r\nsuite: grid.yaml\n" << extra
                                   << "select: {metric: rel_error, at: \"rounds=10\"}\nreport_seeds: [5]\n"
                                   << "claims:\n  - text: c\n    below: {solver: gda, metric: rel_error, at: 5, value: 1}\n";
    return load_experiment(dir + "/e.yaml");
  };
  const Experiment unequal = experiment("");
  CHECK(tuning_effort(unequal) == std::map<std::string, std::size_t>{{"fedgda-gt", 1}, {"gda", 2}});
  CHECK_THROWS_WITH_AS(validate_experiment(unequal),
                       doctest::Contains("select tunes the methods over grids of different sizes (fedgda-gt 1, gda 2 "
                                         "configurations); give every method the same number or say why under effort:"),
                       UserError);
  const Experiment stated = experiment("effort: \"FedGDA-GT runs at its theory step\"\n");
  CHECK(stated.effort == "FedGDA-GT runs at its theory step");
  CHECK_NOTHROW(validate_experiment(stated));
  fs::remove_all(dir);
}

TEST_CASE("experiments: a quick factor never loosens a claim") {
  const std::string full = "claims:\n  - text: A beats B\n    origin: fedbench\n    better: {solver: a, than: b, metric: m, at: 10";
  // factor 0.9 under --quick would let a reversed ordering pass.
  CHECK_THROWS_WITH_AS(load_experiment(write_experiment(full + "}\n    quick: {at: 5, factor: 0.9}\n")),
                       doctest::Contains("quick factor 0.9 loosens the claim"), UserError);
  // A stricter one, or a quick run at the claim's own factor, is fine; so is a tie claim's own
  // factor below 1 kept under --quick.
  CHECK(load_experiment(write_experiment(full + ", factor: 1e6}\n    quick: {at: 5, factor: 1e3}\n"))
            .quick_claims[0].factor == 1e3);
  CHECK(load_experiment(write_experiment(full + ", factor: 0.5}\n    quick: {at: 5, factor: 0.5}\n"))
            .quick_claims[0].factor == 0.5);
  CHECK_THROWS_AS(load_experiment(write_experiment(full + ", factor: 0.5}\n    quick: {at: 5, factor: 0.4}\n")),
                  UserError);
}

namespace {

// A fresh, empty directory at `path`.
std::string fresh_dir(const std::string& path) {
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

// Writes `text` as DIR/NAME.yaml and runs it, quietly on one job, into DIR/RESULTS: the suite as
// loaded (`into` may narrow it).
Suite run_written_suite(const std::string& dir, const std::string& name, const std::string& text,
                        const std::string& results, SuiteOverrides into = {}) {
  std::ofstream(dir + "/" + name + ".yaml") << text;
  into.results_dir = dir + "/" + results;
  Suite suite = load_suite(dir + "/" + name + ".yaml", into);
  SuiteOptions options;
  options.quiet = true;
  options.jobs = 1;
  run_suite(suite, options);
  return suite;
}

}  // namespace

TEST_CASE("experiments: rounds of different cost are also compared at equal exchanges") {
  // GDA talks to the clients once per round, FedGDA-GT twice: at round 10 GDA has spent 10
  // exchanges and FedGDA-GT 20, so at equal communication FedGDA-GT is read at its round 5.
  const std::string dir = fresh_dir("/tmp/fedbench-test-equal-exchanges");
  const std::string both = "name: s\nseeds: [0, 1]\nrounds: 10\neval: {every: 1}\n"
                           "problems:\n  - name: two-client-game\n"
                           "solvers:\n  - name: fedgda-gt\n  - name: gda\n    params: {step_size: 0.25}\n";
  run_written_suite(dir, "s", both, "runs-dir");
  Claim better;
  better.text = "FedGDA-GT beats GDA";
  better.kind = Claim::Kind::better;
  better.solver = "fedgda-gt";
  better.than = "gda";
  better.metric = "rel_error";
  better.at = 10;
  Claim at_five;
  at_five.text = "FedGDA-GT at round 5";
  at_five.kind = Claim::Kind::below;
  at_five.solver = "fedgda-gt";
  at_five.metric = "rel_error";
  at_five.at = 5;
  at_five.value = 1;
  const auto results = check_claims({better, at_five}, {dir + "/runs-dir"});
  const ClaimResult& r = results[0];
  REQUIRE(r.has_second);
  CHECK(r.second.axis == "exchanges");
  CHECK(r.second.budget == 10);
  REQUIRE(r.second.medians.size() == 2);
  CHECK(r.second.medians[0] == results[1].sides[0].median);  // FedGDA-GT's round 5
  CHECK(r.second.medians[1] == r.sides[1].median);            // GDA's round 10 is its 10 exchanges
  CHECK(r.second.medians[0] > r.sides[0].median);             // half the rounds: a larger error
  CHECK(r.line.find("; at equal exchanges (10: fedgda-gt 20 by round 10, gda 10)") != std::string::npos);
  // Full participation and full batches: the seed changes nothing, both verdicts are exact.
  CHECK(r.evidence.seed_free);
  CHECK(r.second.evidence.seed_free);
  // Where the paper's sentence is about communication, `equal: exchanges` decides there and
  // shows the per-round reading beside it.
  Claim paper_axis = better;
  paper_axis.equal = "exchanges";
  const ClaimResult p = check_claims({paper_axis}, {dir + "/runs-dir"})[0];
  CHECK(p.sides[0].median == r.second.medians[0]);
  CHECK(p.sides[1].median == r.second.medians[1]);
  REQUIRE(p.has_second);
  CHECK(p.second.axis == "round");
  CHECK(p.second.medians[0] == r.sides[0].median);
  CHECK(p.line.find("(rel_error at equal exchanges (10: fedgda-gt 20 by round 10, gda 10), n = 2 seeds") !=
        std::string::npos);
  CHECK(p.line.find("; per round (round 10): ") != std::string::npos);
  // A method that keeps its own participation pairs with the others by seed: here GDA on both
  // clients recorded as uniform:2 against FedGDA-GT at full participation.
  {
    run_written_suite(dir, "own",
                      "name: own\nseeds: [0, 1]\nrounds: 10\neval: {every: 1}\n"
                      "problems:\n  - name: two-client-game\n"
                      "solvers:\n  - name: gda\n    participation: \"uniform:2\"\n    params: {step_size: 0.25}\n",
                      "own-dir");
    SuiteOverrides fed;
    fed.only_solvers = {"fedgda-gt"};
    run_written_suite(dir, "s", both, "fed-dir", fed);
    const ClaimResult mixed = check_claims({better}, {dir + "/fed-dir", dir + "/own-dir"})[0];
    CHECK(mixed.evidence.n == 2);
    REQUIRE(mixed.units.size() == 2);
    CHECK(mixed.units[0].label == "seed 0");
    REQUIRE(mixed.sides.size() == 2);
    CHECK(mixed.sides[1].median == r.sides[1].median);  // the same GDA iterates, recorded apart
  }
  // A claim between methods whose rounds cost the same has no such second reading.
  Claim same = better;
  same.solver = "gda";
  same.than = "gda";
  CHECK_FALSE(check_claims({same}, {dir + "/runs-dir"})[0].has_second);
  std::filesystem::remove_all(dir);
}

TEST_CASE("experiments: a budget between two evaluations is judged at both ends of the gap") {
  // Both methods evaluated at even rounds only; the claim reads round 5, where each curve lies
  // between its rounds 4 and 6. The three-valued rule, computed here from the stored rows: the
  // claim holds if the claimed method's worse reading beats the other's better one, is
  // contradicted if its better reading loses to the other's worse one, else inconclusive.
  const std::string dir = fresh_dir("/tmp/fedbench-test-bracketed-budget");
  const Suite suite = run_written_suite(dir, "s",
                                        "name: s\nseeds: [0, 1]\nrounds: 10\neval: {every: 2}\n"
                                        "problems:\n  - name: two-client-game\n"
                                        "solvers:\n  - name: gda\n    params: {step_size: 0.25}\n"
                                        "  - name: gda\n    params: {step_size: 0.05}\n"
                                        "  - name: gda\n    params: {step_size: 0.24}\n",
                                        "runs-dir");
  // rel_error of each step size at rounds 4 and 6, from the files.
  std::map<std::string, std::pair<double, double>> at;
  for (const auto& run : suite.runs) {
    const auto stored = io::read_trajectory(ResultsStore(suite.results_dir).run_file(run.id));
    const auto& rounds = stored.column("round");
    const auto& err = stored.column("rel_error");
    double r4 = NAN, r6 = NAN;
    for (std::size_t k = 0; k < rounds.size(); ++k) {
      REQUIRE(static_cast<long long>(rounds[k]) % 2 == 0);  // no row at round 5
      if (rounds[k] == 4) r4 = err[k];
      if (rounds[k] == 6) r6 = err[k];
    }
    at[run.request.solver_params.at("step_size")] = {r4, r6};  // the seeds agree: no randomness
  }
  const auto [fast4, fast6] = at.at("0.25");
  const auto [slow4, slow6] = at.at("0.05");
  REQUIRE(fast6 < fast4);  // both improve between the evaluations
  REQUIRE(slow6 < slow4);
  const auto expected = [](double mine_worse, double mine_better, double other_worse, double other_better) {
    if (mine_worse < other_better) return Verdict::holds;
    if (mine_better > other_worse) return Verdict::contradicted;
    return Verdict::inconclusive;
  };
  const auto claim = [&](const std::string& mine, const std::string& other) {
    Claim c;
    c.text = "step " + mine + " beats step " + other + " at round 5";
    c.kind = Claim::Kind::better;
    c.solver = c.than = "gda";
    c.where = {{"step_size", mine}};
    c.than_where = {{"step_size", other}};
    c.metric = "rel_error";
    c.at = 5;
    return check_claims({c}, {suite.results_dir})[0];
  };
  const ClaimResult fast = claim("0.25", "0.05"), slow = claim("0.05", "0.25");
  CHECK(fast.verdict == expected(fast4, fast6, slow4, slow6));
  CHECK(slow.verdict == expected(slow4, slow6, fast4, fast6));
  CHECK(fast.verdict != slow.verdict);
  // Two step sizes whose gaps overlap: neither end decides.
  const auto [near4, near6] = at.at("0.24");
  REQUIRE(expected(fast4, fast6, near4, near6) == Verdict::inconclusive);
  const ClaimResult close = claim("0.25", "0.24");
  CHECK(close.verdict == Verdict::inconclusive);
  CHECK(close.line.find("the budget falls between two evaluations of gda [step_size=0.25] and gda "
                        "[step_size=0.24]") != std::string::npos);
  // The evidence is read at an end of the gap, never elsewhere.
  const auto step_of = [](const std::string& label) {  // "gda [step_size=0.25]" -> "0.25"
    const auto from = label.find('=') + 1;
    return label.substr(from, label.find(']') - from);
  };
  for (const ClaimResult* r : {&fast, &slow, &close})
    for (const auto& side : r->sides) {
      const auto& [e4, e6] = at.at(step_of(side.label));
      CHECK((side.median == e4 || side.median == e6));
    }
  // A claim whose runs were evaluated at its budget reads there, as before: round 6.
  Claim exact;
  exact.text = "step 0.25 beats step 0.05 at round 6";
  exact.kind = Claim::Kind::better;
  exact.solver = exact.than = "gda";
  exact.where = {{"step_size", "0.25"}};
  exact.than_where = {{"step_size", "0.05"}};
  exact.metric = "rel_error";
  exact.at = 6;
  const ClaimResult e = check_claims({exact}, {suite.results_dir})[0];
  CHECK(e.sides[0].median == fast6);
  CHECK(e.sides[1].median == slow6);
  CHECK(e.verdict == (fast6 < slow6 ? Verdict::holds : Verdict::contradicted));
  std::filesystem::remove_all(dir);
}
