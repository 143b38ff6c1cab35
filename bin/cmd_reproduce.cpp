// `fedbench reproduce --list` and `fedbench reproduce NAME [--quick] [--jobs N] [-o DIR]`: a
// paper experiment end to end: tuning grid, best configuration per method, winners on report
// seeds, HTML report and the figure on the paper's axes, then the paper's claims checked.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "io/durable_rename.hpp"
#include "external.hpp"
#include "screened_copies.hpp"
#include "suite/experiment.hpp"
#include "suite/mpi_world.hpp"
#include "suite/select.hpp"
#include "suite/suite_runner.hpp"

namespace fedbench::cli {
namespace {

namespace fs = std::filesystem;

// Experiment files: ./results/experiments, else those of the source tree this binary was
// built from (FEDBENCH_EXPERIMENTS overrides both).
std::string experiments_dir() {
  if (const char* env = std::getenv("FEDBENCH_EXPERIMENTS")) return env;
  std::error_code ec;
  if (fs::is_directory("results/experiments", ec)) return "results/experiments";
#ifdef FEDBENCH_SOURCE_DIR
  const fs::path source = fs::path(FEDBENCH_SOURCE_DIR) / "results" / "experiments";
  if (fs::is_directory(source, ec)) return source.string();
#endif
  throw UserError("no results/experiments directory here; run from the fedbench source tree or "
                  "set FEDBENCH_EXPERIMENTS");
}

void list(const std::vector<suite::Experiment>& experiments) {
  for (const auto& e : experiments) {
    std::printf("%s\n  %s\n  reference:   %s\n  reproduces:  %s\n", e.name.c_str(), e.title.c_str(),
                e.reference.c_str(), e.reproduces.c_str());
    if (!e.out_of_scope.empty()) {
      std::printf("  out of scope: %s\n\n", e.out_of_scope.c_str());
      continue;
    }
    std::printf("  substitutes: %s\n", e.substitutes.empty() ? "none" : e.substitutes.c_str());
    for (const auto& s : e.follows_code) std::printf("  follows the authors' code: %s\n", s.c_str());
    for (const auto& s : e.follows_paper) std::printf("  follows the paper's text: %s\n", s.c_str());
    std::printf("  claims:      %zu; time on 2 cores: %s (--quick: %s)\n\n", e.claims.size(),
                e.time.empty() ? "not measured" : e.time.c_str(),
                e.quick_time.empty() ? "not measured" : e.quick_time.c_str());
  }
}

suite::SuiteTotals run_into(const std::string& suite_path, suite::SuiteOverrides overrides,
                            const suite::SuiteOptions& options) {
  const suite::Suite s = suite::load_suite(suite_path, overrides);
  return suite::run_suite(s, options);
}

}  // namespace

std::function<int()> add_reproduce(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "reproduce", "run a paper experiment end to end and check the paper's claims (--list: all)");
  struct Options {
    std::string name, output;
    bool list = false, quick = false, quiet = false;
    int jobs = 0;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("name", o->name, "experiment name (fedbench reproduce --list)");
  sub->add_flag("--list", o->list, "list every experiment with its reference and substitutes");
  sub->add_flag("--quick", o->quick, "a reduced budget with the same claims");
  sub->add_option("--jobs", o->jobs, "runs in parallel (default: all cores)");
  sub->add_option("-o,--output", o->output, "output directory (default results/reproduce/NAME)");
  sub->add_flag("-q,--quiet", o->quiet, "print only the claims");
  return [o] {
    const auto experiments = suite::load_experiments(experiments_dir());
    if (o->list) {
      list(experiments);
      return 0;
    }
    if (o->name.empty()) throw UserError("reproduce needs an experiment name or --list");
    std::vector<std::string> names;
    for (const auto& e : experiments) names.push_back(e.name);
    const auto it = std::find(names.begin(), names.end(), o->name);
    if (it == names.end())
      throw UserError("unknown experiment '" + o->name + "'; valid: " + join(names, ", ") +
                      did_you_mean(o->name, names));
    const suite::Experiment& e = experiments[static_cast<std::size_t>(it - names.begin())];
    if (!e.out_of_scope.empty())
      throw UserError("experiment '" + e.name + "' is out of scope here: " + e.out_of_scope);
    const std::string out = o->output.empty()
                                ? "results/reproduce/" + e.name + (o->quick ? "-quick" : "")
                                : o->output;
    fs::create_directories(out);
    suite::SuiteOptions options;
    options.jobs = o->jobs;
    options.quiet = o->quiet;
    options.command_line = command_line();

    // 1. The tuning grid.
    suite::SuiteOverrides tuning;
    tuning.results_dir = out + "/tuning";
    if (o->quick) {
      tuning.rounds = e.quick_rounds;
      tuning.seeds = e.quick_seeds;
    }
    const auto& report_seeds = o->quick && !e.quick_report_seeds.empty() ? e.quick_report_seeds : e.report_seeds;
    if (!o->quiet) std::printf("%s: tuning grid (%s)\n", e.name.c_str(), e.suite_path.c_str());
    {
      const suite::Suite grid = suite::load_suite(e.suite_path, tuning);
      if (!o->quick) suite::check_tuning_seeds(e, grid);  // --quick checks mechanics, not verdicts
      suite::run_suite(grid, options);
    }

    // 2. The best configuration per method, rerun on the report seeds.
    std::string report_dir = tuning.results_dir;
    if (e.select_metric) {
      const auto criterion = suite::SelectCriterion::parse(*e.select_metric, *e.select_at);
      const auto selection = suite::select_best(tuning.results_dir, criterion);
      std::map<std::string, std::vector<suite::Configuration>> by_problem;
      for (const auto& w : selection.winners) by_problem[w.problem_key].push_back(w);
      report_dir = out + "/report";
      int k = 0;
      for (const auto& [key, winners] : by_problem) {
        const std::string path = out + "/winners-" + std::to_string(++k) + ".yaml";
        io::write_text_file(path, suite::winners_suite(
            winners, report_seeds.empty() ? winners.front().seeds : report_seeds, e.name + "-report",
            "written by fedbench reproduce: winners by " + criterion.describe()));
        suite::SuiteOverrides report;
        report.results_dir = report_dir;
        run_into(path, report, options);
      }
      if (!o->quiet)
        std::printf("%s: best per method by the median over tuning seeds of %s; winners rerun on the "
                    "report seeds\n", e.name.c_str(), criterion.describe().c_str());
    } else if (!report_seeds.empty()) {
      suite::SuiteOverrides report = tuning;
      report.results_dir = report_dir = out + "/report";
      report.seeds = report_seeds;
      run_into(e.suite_path, report, options);
    }

    // Fixed reference runs (no selection) next to the report runs.
    if (!e.baselines_path.empty()) {
      suite::SuiteOverrides baselines;
      baselines.results_dir = report_dir;
      if (!report_seeds.empty()) baselines.seeds = report_seeds;
      if (!o->quiet) std::printf("%s: baselines (%s)\n", e.name.c_str(), e.baselines_path.c_str());
      run_into(e.baselines_path, baselines, options);
    }

    // 3. The figure on the paper's axes and the HTML report (python3 + matplotlib).
    if (suite::world().rank() == 0 && !e.figure_y.empty()) {
      const ScreenedRunCopies copies(report_dir, out);
      std::vector<std::string> plot = {python_program(), find_script("plot.py"), out + "/figure.png",
                                       copies.dir(), "--x", e.figure_x, "--y", e.figure_y, "--group",
                                       e.figure_group, "--title", e.title};
      if (!e.figure_panel.empty()) plot.insert(plot.end(), {"--panel", e.figure_panel});
      if (e.figure_linear) plot.push_back("--linear");
      run_program(plot);
      // The report ranks by the figure's first metric.
      std::vector<std::string> report = {python_program(), find_script("report.py"), copies.dir(), "-o",
                                         out + "/html", "--metric", e.figure_y.substr(0, e.figure_y.find(','))};
      for (auto& a : copies.report_arguments()) report.push_back(std::move(a));
      run_program(report);
    }

    // 4. The claims.
    const auto results = suite::check_claims(o->quick ? e.quick_claims : e.claims, {report_dir});
    int passed = 0;
    std::string log;
    for (const auto& r : results) {
      passed += r.passed;
      std::printf("%s\n", r.line.c_str());
      log += r.line + "\n";
    }
    const int failed = static_cast<int>(results.size()) - passed;

    // 5. Diagnoses: each variant's runs on the report seeds, its claims checked together with
    // the report runs. They explain failed claims and do not decide the exit status.
    std::string diagnosis;
    for (const auto& v : e.variants) {
      suite::SuiteOverrides variant;
      variant.results_dir = out + "/variants/" + v.name;
      variant.seeds = v.seeds.empty() ? report_seeds : v.seeds;
      if (o->quick) variant.rounds = e.quick_rounds;
      if (!o->quiet) std::printf("%s: variant %s (%s)\n", e.name.c_str(), v.name.c_str(), v.suite_path.c_str());
      run_into(v.suite_path, variant, options);
      diagnosis += "variant " + v.name + ", explaining \"" + v.explains + "\":\n";
      for (const auto& r : suite::check_claims(o->quick ? v.quick_claims : v.claims,
                                               {report_dir, variant.results_dir}))
        diagnosis += "  " + r.line + "\n";
    }
    std::printf("%s", diagnosis.c_str());
    std::printf("%d passed, %d failed\n", passed, failed);
    io::write_text_file(out + "/claims.txt", log + diagnosis + std::to_string(passed) + " passed, " +
                                                 std::to_string(failed) + " failed\n");
    if (!o->quiet)
      std::printf("figure: %s/figure.png  report: %s/html/index.html\n", out.c_str(), out.c_str());
    return failed > 0 ? 1 : 0;
  };
}

}  // namespace fedbench::cli
