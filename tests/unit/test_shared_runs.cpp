// Runs shared between results directories (SuiteOptions::share_from, `run --share-runs`,
// `reproduce` across experiments): a finished run of the same configuration and code is copied,
// and the copy holds the bits a rerun writes; anything else (another configuration, a damaged
// donor file, --force) is run.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/trajectory_file.hpp"
#include "results/results_store.hpp"
#include "suite/suite_runner.hpp"

using namespace fedbench;
namespace fs = std::filesystem;

namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct SharedRunsFixture {
  // One directory per process: ctest runs the two cases at once.
  fs::path dir = fs::temp_directory_path() / ("fedbench-test-shared-runs-" + std::to_string(::getpid()));
  std::string suite_file;
  SharedRunsFixture() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    suite_file = (dir / "suite.yaml").string();
    std::ofstream(suite_file) << "rounds: 30\nseeds: [0, 1]\nproblems:\n  - name: two-client-game\n"
                                 "solvers:\n  - name: gda\n    params: {step_size: 0.5}\n";
  }
  ~SharedRunsFixture() { fs::remove_all(dir); }

  suite::Suite load(const std::string& results, const std::vector<std::string>& solver_params = {}) const {
    suite::SuiteOverrides overrides;
    overrides.results_dir = (dir / results).string();
    overrides.solver_params = solver_params;
    return suite::load_suite(suite_file, overrides);
  }
  suite::SuiteTotals run(const suite::Suite& s, std::vector<std::string> share_from = {}, bool force = false) const {
    suite::SuiteOptions options;
    options.quiet = true;
    options.jobs = 1;
    options.force = force;
    for (auto& d : share_from) d = (dir / d).string();
    options.share_from = std::move(share_from);
    return suite::run_suite(s, options);
  }
};

}  // namespace

TEST_CASE_FIXTURE(SharedRunsFixture, "shared runs: a finished run of the same configuration is copied, not rerun") {
  const auto donor = load("donor");
  REQUIRE(donor.runs.size() == 2);
  CHECK(run(donor).finished == 2);

  const auto shared = load("shared");
  const auto t = run(shared, {"missing", "donor"});  // a directory that does not exist is skipped
  CHECK(t.finished == 0);
  CHECK(t.shared == 2);
  CHECK(t.cached == 2);

  // The copy is what a rerun writes: the trajectories of an independent run agree bit for bit.
  const auto fresh = load("fresh");
  CHECK(run(fresh).finished == 2);
  const suite::ResultsStore shared_store(shared.results_dir), fresh_store(fresh.results_dir);
  for (const auto& r : shared.runs) {
    REQUIRE(shared_store.state(r) == suite::RunState::done);
    const auto a = io::read_trajectory(shared_store.run_file(r.id));
    const auto b = io::read_trajectory(fresh_store.run_file(r.id));
    REQUIRE(a.column_names == b.column_names);
    for (const auto& name : a.column_names)
      if (name.find("time") == std::string::npos) CHECK_MESSAGE(a.column(name) == b.column(name), name);
    CHECK(bytes_of(shared_store.run_file(r.id)) == bytes_of(suite::ResultsStore(donor.results_dir).run_file(r.id)));
  }
}

TEST_CASE_FIXTURE(SharedRunsFixture, "shared runs: another configuration, a damaged donor file or --force runs") {
  const auto donor = load("donor");
  run(donor);

  // Another step size is another run: nothing to copy.
  CHECK(run(load("other", {"step_size=0.25"}), {"donor"}).finished == 2);

  // A donor file cut short is not a finished run: only the intact one is copied.
  const std::string damaged = suite::ResultsStore(donor.results_dir).run_file(donor.runs[0].id);
  fs::resize_file(damaged, fs::file_size(damaged) / 2);
  const auto t = run(load("partly"), {"donor"});
  CHECK(t.shared == 1);
  CHECK(t.finished == 1);

  // --force reruns everything, donors or not.
  const auto forced = run(load("forced"), {"partly"}, true);
  CHECK(forced.shared == 0);
  CHECK(forced.finished == 2);
}
