// A suite goes on past a run that throws: the run is stored with status error and its
// message, the others finish, and the totals say one failed. Uses a test-only problem whose
// oracle fails after a number of calls.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "io/trajectory_file.hpp"
#include "problem/problem_registry.hpp"
#include "problems/minimax/affine_game.hpp"
#include "results/results_store.hpp"
#include "suite/suite_runner.hpp"

using namespace fedbench;

namespace {

// The two-client identity game whose oracle throws from its 30th call on.
class FaultyGame : public AffineGame {
 public:
  struct Params {
    int fail_after;
  };
  static void declare(Schema<Params>& s) {
    s.integer("fail_after", &Params::fail_after, "30", {.ge = 0}, "calls before failing");
  }
  explicit FaultyGame(const Params& p) : fail_after_(p.fail_after) {
    std::vector<std::vector<Component>> clients(2);
    for (auto& c : clients) c.push_back({Mat::Identity(2, 2), Vec::Ones(2)});
    set_components(1, 1, std::move(clients));
  }

 protected:
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override {
    if (calls_++ >= fail_after_) throw std::runtime_error("sensor offline");
    AffineGame::do_op(client, samples, z, out);
  }

 private:
  int fail_after_;
  mutable std::atomic<int> calls_{0};
};

FEDBENCH_REGISTER_PROBLEM(FaultyGame, "test-faulty-game", "test only: an oracle that fails",
                          "tests/unit/test_suite_runner.cpp");

}  // namespace

TEST_CASE("suite: a run that throws is stored as an error and the suite goes on") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "fedbench-test-suite-runner";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string file = (dir / "suite.yaml").string();
  std::ofstream(file) << "rounds: 40\nproblems:\n  - name: two-client-game\n"
                         "  - name: test-faulty-game\nsolvers:\n  - name: gda\n"
                         "    params: {step_size: 0.5}\n";
  suite::SuiteOverrides overrides;
  overrides.results_dir = (dir / "results").string();
  suite::Suite s = suite::load_suite(file, overrides);
  REQUIRE(s.runs.size() == 2);
  suite::SuiteOptions options;
  options.quiet = true;
  options.jobs = 2;
  const suite::SuiteTotals t = suite::run_suite(s, options);
  CHECK(t.finished == 2);
  CHECK(t.failed == 1);
  const suite::ResultsStore store(s.results_dir);
  for (const auto& run : s.runs) {
    REQUIRE(store.state(run) == suite::RunState::done);
    const auto stored = io::read_trajectory(store.run_file(run.id));
    if (run.request.problem == "test-faulty-game") {
      CHECK(stored.text.at("status") == "error");
      CHECK(stored.text.at("message").find("sensor offline") != std::string::npos);
    } else {
      CHECK(stored.text.at("status") == "ok");
    }
  }
  // The manifest lists both, with their status.
  std::ifstream manifest(s.results_dir + "/manifest.tsv");
  std::string text((std::istreambuf_iterator<char>(manifest)), {});
  CHECK(text.find("\terror\t") != std::string::npos);
  CHECK(text.find("\tok\t") != std::string::npos);
}
