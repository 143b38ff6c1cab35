// Experiment files checked against their suites before anything runs: a claim naming a solver,
// a parameter or a metric the runs lack, a round they never reach, a negative round or an
// inverted band is refused with its file and line, and a malformed file in a directory does
// not hide the others from the list.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/error.hpp"
#include "experiment/experiment.hpp"
#include "experiment/reproduce.hpp"

using namespace fedbench;
using namespace fedbench::suite;
namespace fs = std::filesystem;

namespace {

// A directory of its own per test case (ctest runs them in parallel, others may run the same
// tests at once): a 10-round tuning suite of gda, a baselines suite of local-gda and a variant
// suite of proxskip-gda-fl, all on the two-client game (which records rel_error and op_norm),
// and the experiments in experiments/ beside them.
class Scratch {
 public:
  explicit Scratch(const std::string& name)
      : dir_(fs::temp_directory_path() / ("fedbench-test-validation-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "experiments");
    suite("grid", "gda");
    suite("base", "local-gda");
    suite("var", "proxskip-gda-fl");
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  const fs::path& dir() const { return dir_; }
  // An experiment on those suites with one claim (YAML lines 9-10) and `extra` lines after it.
  std::string experiment(const std::string& claim, const std::string& extra = "") const {
    const fs::path path = dir_ / "experiments/e.yaml";
    std::ofstream(path) << "name: e\ntitle: t\nreference: r\nreproduces: r\nsuite: ../grid.yaml\n"
                        << "baselines: ../base.yaml\nquick: {rounds: 5}\nclaims:\n  - text: c\n    " << claim << "\n    origin: fedbench\n"
                        << extra;
    return path.string();
  }

 private:
  void suite(const std::string& name, const std::string& solver) const {
    std::ofstream(dir_ / (name + ".yaml")) << "name: " << name << "\nseeds: [0, 1, 2]\nrounds: 10\neval: {every: 5}\n"
                                           << "problems:\n  - name: two-client-game\n"
                                           << "solvers:\n  - name: " << solver << "\n";
  }
  fs::path dir_;
};

void validate(const std::string& path) { validate_experiment(load_experiment(path)); }

}  // namespace

TEST_CASE("experiment validation: a claim on the suite's solvers, parameters and budget passes") {
  const Scratch s("passes");
  const std::string path = s.experiment(
      "better: {solver: gda, than: local-gda, metric: rel_error, at: 10, where: {delta: 0, step_size: 0.5}, "
      "than_where: {local_steps: 2, participation: full}}\n    quick: {at: 5}",
      "select: {metric: rel_error, at: \"rounds=10\"}\nreport_seeds: [5]\nfigure: {y: \"rel_error,op_norm\"}\n");
  CHECK_NOTHROW(validate(path));
  CHECK_NOTHROW(check_recorded_metrics(load_experiment(path)));
  // Counters every run records are metrics too.
  CHECK_NOTHROW(validate(s.experiment("below: {solver: gda, metric: hvp_calls, at: 5, value: 1}")));
}

TEST_CASE("experiment validation: a solver the runs lack is refused with the claim's line") {
  const Scratch s("solver");
  CHECK_THROWS_WITH_AS(validate(s.experiment("better: {solver: gda, than: local-sgd, metric: rel_error, at: 5}")),
                       doctest::Contains((s.dir().string() + "/experiments/e.yaml:9: claim 'c': than 'local-sgd' has no runs in").c_str()),
                       UserError);
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gdaa, metric: rel_error, at: 5, value: 1}")),
                       doctest::Contains("solver 'gdaa' has no runs in"), UserError);
  // A variant's solver is no solver of the experiment's own claims, but of the variant's.
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: proxskip-gda-fl, metric: rel_error, at: 5, value: 1}")),
                       doctest::Contains("solver 'proxskip-gda-fl' has no runs"), UserError);
  const std::string variant =
      "variants:\n  - name: v\n    explains: c\n    suite: ../var.yaml\n    claims:\n"
      "      - text: d\n        closer: {solver: proxskip-gda-fl, to: gda, than: local-gda, metric: rel_error, at: 5}\n";
  CHECK_NOTHROW(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 5, value: 1}", variant)));
}

TEST_CASE("experiment validation: a where key that is no parameter of the problem or solver is refused") {
  const Scratch s("where");
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 5, value: 1, where: {delt: 0}}")),
                       doctest::Contains("e.yaml:9: claim 'c': where key 'delt' is not a parameter of the problems "
                                         "or of gda; use one of"),
                       UserError);
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 5, value: 1, where: {delt: 0}}")),
                       doctest::Contains("(did you mean 'delta'?)"), UserError);
  // than_where is checked against the `than` side's solver: step_size is gda's and
  // local-gda's, local_steps only local-gda's.
  CHECK_THROWS_WITH_AS(
      validate(s.experiment("better: {solver: local-gda, than: gda, metric: rel_error, at: 5, where: {local_steps: 2}}")),
      doctest::Contains("than_where key 'local_steps' is not a parameter of the problems or of gda"), UserError);
}

TEST_CASE("experiment validation: a negative round or one past the budget is refused") {
  const Scratch s("round");
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: -5, value: 1}")),
                       doctest::Contains("e.yaml:9: claim 'c': at -5 is negative"), UserError);
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 20, value: 1}")),
                       doctest::Contains("e.yaml:9: claim 'c': at 20 is past the 10 rounds of gda's runs"), UserError);
  // Under --quick the budget is the quick rounds: a claim without its quick `at` is refused.
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 10, value: 1}")),
                       doctest::Contains("claim 'c' (--quick): at 10 is past the 5 rounds of gda's runs"), UserError);
  // Other axes have no round budget to check.
  CHECK_NOTHROW(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 1000, value: 1, axis: exchanges}")));
  // The select criterion reads the tuning runs' full budget.
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 5, value: 1}",
                                             "select: {metric: rel_error, at: \"rounds=50\"}\n")),
                       doctest::Contains("e.yaml:12: select: at rounds=50 is past the 10 rounds"), UserError);
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 5, value: 1}",
                                             "select: {metric: rel_error, at: \"round=5\"}\n")),
                       doctest::Contains("e.yaml:12: select: at: --at 'round=5' is not one of"), UserError);
}

TEST_CASE("experiment validation: an inverted band is refused") {
  const Scratch s("band");
  CHECK_THROWS_WITH_AS(validate(s.experiment("within: {solver: gda, metric: rel_error, at: 5, value: 0.6, high: 0.2}")),
                       doctest::Contains("e.yaml:9: claim 'c': the band is inverted (value 0.6 > high 0.2)"), UserError);
  // Its quick fields are checked too.
  CHECK_THROWS_WITH_AS(validate(s.experiment("within: {solver: gda, metric: rel_error, at: 5, value: 0.2, high: 0.6}\n"
                                             "    quick: {high: 0.1}")),
                       doctest::Contains("claim 'c' (--quick): the band is inverted"), UserError);
}

TEST_CASE("experiment validation: a metric no run records is refused before the runs") {
  const Scratch s("metric");
  // Not a column of any run: refused by the cheap check (what --list runs).
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_eror, at: 5, value: 1}")),
                       doctest::Contains("e.yaml:9: claim 'c': metric 'rel_eror' is not a column of any run"),
                       UserError);
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_eror, at: 5, value: 1}")),
                       doctest::Contains("(did you mean 'rel_error'?)"), UserError);
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 5, value: 1}",
                                             "figure: {y: \"rel_error,op_nrom\"}\n")),
                       doctest::Contains("e.yaml:12: figure y: metric 'op_nrom'"), UserError);
  // Another problem's metric: refused once the suite's problem is built, before any run.
  const std::string path = s.experiment("below: {solver: gda, metric: test_accuracy, at: 5, value: 1}");
  CHECK_NOTHROW(validate(path));
  CHECK_THROWS_WITH_AS(check_recorded_metrics(load_experiment(path)),
                       doctest::Contains(("e.yaml:9: claim 'c': metric 'test_accuracy' is not recorded by the problems of " +
                                          (s.dir() / "grid.yaml").string()).c_str()),
                       UserError);
  ReproduceOptions o;
  o.output = (s.dir() / "out").string();
  o.suite.quiet = true;
  CHECK_THROWS_AS(reproduce(load_experiment(path), o), UserError);
  CHECK_FALSE(fs::exists(s.dir() / "out"));  // nothing ran
}

TEST_CASE("experiment validation: a key given twice is refused, not silently dropped") {
  const Scratch s("twice");
  CHECK_THROWS_WITH_AS(validate(s.experiment("below: {solver: gda, metric: rel_error, at: 10, value: 1}\n"
                                             "    quick: {value: 2}\n    quick: {at: 5}")),
                       doctest::Contains("e.yaml:12: key 'quick' is given twice in one map"), UserError);
}

TEST_CASE("experiment validation: a malformed file is listed with its error beside the others") {
  const Scratch s("list");
  s.experiment("below: {solver: gda, metric: rel_error, at: 5, value: 1}");
  std::ofstream(s.dir() / "experiments/bad.yaml")
      << "name: bad\ntitle: t\nreference: r\nreproduces: r\nsuite: ../grid.yaml\n"
      << "claims:\n  - text: c\n    below: {solver: nobody, metric: rel_error, at: 5, value: 1}\n";
  std::ofstream(s.dir() / "experiments/broken.yaml") << "name: [\n";
  const auto listed = list_experiments((s.dir() / "experiments").string());
  REQUIRE(listed.size() == 3);  // sorted by file name
  CHECK(listed[0].path.find("bad.yaml") != std::string::npos);
  CHECK_FALSE(listed[0].experiment);
  CHECK(listed[0].error.find("bad.yaml:7: claim 'c': solver 'nobody' has no runs") != std::string::npos);
  CHECK_FALSE(listed[1].experiment);
  CHECK(listed[1].error.find(listed[1].path) == 0);  // names the file
  REQUIRE(listed[2].experiment);
  CHECK(listed[2].experiment->name == "e");
}

TEST_CASE("experiment validation: every shipped experiment passes") {
  for (const auto& item : list_experiments("results/experiments")) {
    CAPTURE(item.path);
    CHECK(item.error == "");
  }
}

TEST_CASE("experiment validation: a variant name that is no directory name is refused at its line") {
  // A variant's runs go to variants/NAME: a slash or a line break there is refused at load.
  const Scratch s("variant-name");
  const std::string claim = "below: {solver: gda, metric: rel_error, at: 5, value: 1}";
  const std::string variant = "variants:\n  - name: \"../up\"\n    explains: c\n    suite: ../var.yaml\n    claims:\n"
                              "      - text: v\n        " + claim + "\n";
  CHECK_THROWS_WITH_AS(load_experiment(s.experiment(claim, variant)),
                       (s.dir().string() + "/experiments/e.yaml:13: variant name \"../up\" has '/'; use letters, "
                                           "digits, '-', '_', '.'").c_str(),
                       UserError);
}
