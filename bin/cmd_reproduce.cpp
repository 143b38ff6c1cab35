// `fedbench reproduce --list` and `fedbench reproduce NAME [--quick] [--no-figure] [--jobs N]
// [-o DIR]`: a paper experiment end to end (the protocol is suite::reproduce); this file parses
// the options, draws the figure and report through python, and prints the verdict.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "external.hpp"
#include "screened_copies.hpp"
#include "suite/experiment.hpp"
#include "suite/reproduce.hpp"

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

// The figure on the paper's axes and the HTML report of the report runs (python3 + matplotlib),
// both read from screened copies of the run files.
void draw_figure_and_report(const suite::Experiment& e, const std::string& report_dir, const std::string& out) {
  const ScreenedRunCopies copies(report_dir, out);
  std::vector<std::string> plot = {python_program(), find_script("plot.py"), out + "/figure.png", copies.dir(),
                                   "--x", e.figure_x, "--y", e.figure_y, "--group", e.figure_group, "--title",
                                   e.title};
  if (!e.figure_panel.empty()) plot.insert(plot.end(), {"--panel", e.figure_panel});
  if (e.figure_linear) plot.push_back("--linear");
  run_program(plot);
  // The report ranks by the figure's first metric.
  std::vector<std::string> report = {python_program(), find_script("report.py"), copies.dir(), "-o",
                                     out + "/html", "--metric", e.figure_y.substr(0, e.figure_y.find(','))};
  for (auto& a : copies.report_arguments()) report.push_back(std::move(a));
  run_program(report);
}

}  // namespace

std::function<int()> add_reproduce(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "reproduce", "run a paper experiment end to end and check the paper's claims (--list: all)");
  struct Options {
    std::string name, output;
    bool list = false, quick = false, quiet = false, no_figure = false;
    int jobs = 0;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("name", o->name, "experiment name (fedbench reproduce --list)");
  sub->add_flag("--list", o->list, "list every experiment with its reference and substitutes");
  sub->add_flag("--quick", o->quick, "a reduced budget with the same claims");
  sub->add_option("--jobs", o->jobs, "runs in parallel (default: all cores)");
  sub->add_option("-o,--output", o->output, "output directory (default results/reproduce/NAME)");
  sub->add_flag("-q,--quiet", o->quiet, "print only the claims");
  sub->add_flag("--no-figure", o->no_figure, "runs and claims only: no figure, no HTML report (no python)");
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
    suite::ReproduceOptions options;
    options.quick = o->quick;
    options.output = o->output.empty() ? "results/reproduce/" + e.name + (o->quick ? "-quick" : "") : o->output;
    options.suite.jobs = o->jobs;
    options.suite.quiet = o->quiet;
    options.suite.command_line = command_line();
    if (!o->quiet) options.note = [](const std::string& line) { std::printf("%s\n", line.c_str()); };
    if (!o->no_figure) options.draw = [&](const suite::Experiment& x, const std::string& report_dir) {
      draw_figure_and_report(x, report_dir, options.output);
    };
    const auto outcome = suite::reproduce(e, options);
    for (const auto& r : outcome.claims) std::printf("%s\n", r.line.c_str());
    std::printf("%s%d passed, %d failed\n", outcome.diagnosis.c_str(), outcome.passed, outcome.failed);
    if (!o->quiet && !o->no_figure)
      std::printf("figure: %s/figure.png  report: %s/html/index.html\n", options.output.c_str(),
                  options.output.c_str());
    return outcome.failed > 0 ? 1 : 0;
  };
}

}  // namespace fedbench::cli
