// The reproduce protocol on a tiny experiment whose numbers are known in closed form: GDA on the
// two-client game with delta = 0 contracts ||z - z*||^2 by (1 - eta)^2 a round, so at round 10
// rel_error is 0.25^10 = 9.54e-7 at eta = 0.5 and 0.5625^10 = 3.17e-3 at eta = 0.25. Selection
// must pick 0.5, rerun it on the report seeds, and the claims must read those runs. The game is
// deterministic (full participation, full gradients), so its five report seeds give the same
// bits and the verdicts are exact.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "experiment/reproduce.hpp"

using namespace fedbench;
using namespace fedbench::suite;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::size_t run_files(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) n += entry.path().extension() == ".h5";
  return n;
}

// The experiment directory: a tuning suite over two steps, a variant at the slower step.
Experiment tiny_experiment(const fs::path& dir, const std::string& extra = "") {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string game = "rounds: 10\neval: {every: 5}\nproblems:\n  - name: two-client-game\n";
  std::ofstream(dir / "grid.yaml") << "name: grid\nseeds: [0, 1, 2]\n" << game
                                   << "solvers:\n  - name: gda\n    params: {step_size: [0.5, 0.25]}\n";
  // Both clients every round, as `full`, but recorded as another participation: the variant's
  // claim picks its run by it.
  std::ofstream(dir / "slow.yaml") << "name: slow\nseeds: [0]\n" << game
                                   << "solvers:\n  - name: gda\n    participation: \"uniform:2\"\n"
                                   << "    params: {step_size: 0.25}\n";
  std::ofstream(dir / "tiny.yaml")
      << "name: tiny\ntitle: t\nreference: r\nreproduces: r\nsuite: grid.yaml\n"
      << "select: {metric: rel_error, at: \"rounds=10\"}\nreport_seeds: [3, 4, 5, 6, 7]\n"
      << "quick: {rounds: 5, seeds: [0, 1, 2], report_seeds: [3]}\nfigure: {x: round, y: rel_error}\n"
      << "claims:\n"
      << "  - text: the winner reaches its closed form\n"
      << "    within: {solver: gda, metric: rel_error, at: 10, value: 9.5e-7, high: 9.6e-7}\n"
      << "    quick: {at: 5, value: 9.7e-4, high: 9.8e-4}\n"
      << "  - text: an impossible floor\n"
      << "    below: {solver: gda, metric: rel_error, at: 10, value: 1e-9}\n"
      << "    quick: {at: 5}\n"
      << "variants:\n  - name: slow\n    explains: an impossible floor\n    suite: slow.yaml\n"
      << "    claims:\n"
      << "      - text: the slower step is where its closed form is\n"
      << "        within: {solver: gda, metric: rel_error, at: 10, value: 3.1e-3, high: 3.2e-3, where: {participation: \"uniform:2\"}}\n"
      << "        quick: {at: 5}\n"  // the quick budget's last round (a claim past it is refused)
      << extra;
  return load_experiment((dir / "tiny.yaml").string());
}

}  // namespace

TEST_CASE("reproduce: tuning, the winner on the report seeds, claims, variants, claims.txt") {
  const fs::path dir = "/tmp/fedbench-test-reproduce";
  const Experiment e = tiny_experiment(dir);
  ReproduceOptions o;
  o.output = (dir / "out").string();
  o.suite.quiet = true;
  o.suite.jobs = 1;
  int drawn = 0;
  std::vector<std::string> notes;
  o.draw = [&](const Experiment& x, const ReproduceOutcome& outcome) {
    ++drawn;
    CHECK(x.name == "tiny");
    CHECK(outcome.report_dir == o.output + "/report");
    CHECK(outcome.claims.size() == 2);  // drawn after the claims: the page states their verdicts
  };
  o.note = [&](const std::string& line) { notes.push_back(line); };
  const auto out = reproduce(e, o);

  CHECK(drawn == 1);
  CHECK(run_files(dir / "out/tuning") == 6);  // 2 steps x 3 seeds
  CHECK(run_files(dir / "out/report") == 5);  // the winner on seeds 3-7
  CHECK(read(dir / "out/winners-1.yaml").find("step_size: 0.5") != std::string::npos);
  CHECK(read(dir / "out/winners-1.yaml").find("seeds: [3, 4, 5, 6, 7]") != std::string::npos);
  REQUIRE(out.claims.size() == 2);
  CHECK(out.claims[0].verdict == Verdict::holds);
  CHECK(out.claims[1].verdict == Verdict::contradicted);
  CHECK(out.claims[0].evidence.seed_free);
  CHECK(out.claims[0].evidence.n == 5);
  CHECK(out.holds == 1);
  CHECK(out.contradicted == 1);
  CHECK(out.tuning_seeds == std::vector<std::uint64_t>{0, 1, 2});
  CHECK(out.report_seeds == std::vector<std::uint64_t>{3, 4, 5, 6, 7});
  // The variant's claim holds on its own runs; its lines never change the verdict.
  CAPTURE(out.diagnosis);
  CHECK(out.diagnosis.find("variant slow, explaining \"an impossible floor\":\n  claim: the slower step is "
                           "where its closed form is: holds") == 0);
  CHECK(read(dir / "out/claims.txt") == out.claims[0].line + "\n" + out.claims[1].line + "\n" + out.diagnosis +
                                            "1 holds, 1 contradicted, 0 inconclusive\n");
  CHECK(notes.size() == 3);  // tuning, selection, the variant

  // --quick: the quick budget and the claims' quick fields (0.25^5 at round 5); no draw asked.
  ReproduceOptions quick = o;
  quick.quick = true;
  quick.draw = nullptr;
  quick.output = (dir / "quick").string();
  const auto q = reproduce(e, quick);
  // One quick report seed cannot show that the seed does not matter: not decided, and said so.
  CHECK(q.claims[0].verdict == Verdict::inconclusive);
  CHECK(q.claims[0].units.at(0).holds);
  CHECK(q.claims[0].line.find("claim: the winner reaches its closed form: not decided at the quick budget (") == 0);
  CHECK(q.tally() == "0 hold, 0 contradicted, 2 not decided at the quick budget");
  CHECK(run_files(dir / "quick/tuning") == 6);  // 2 steps x 3 seeds
  fs::remove_all(dir);
}

TEST_CASE("reproduce: an out-of-scope experiment is refused before any run") {
  const fs::path dir = "/tmp/fedbench-test-reproduce-scope";
  Experiment e = tiny_experiment(dir);
  e.out_of_scope = "needs a GPU cluster";
  ReproduceOptions o;
  o.output = (dir / "out").string();
  CHECK_THROWS_WITH_AS(reproduce(e, o), "experiment 'tiny' is out of scope here: needs a GPU cluster", UserError);
  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}
