#include "experiment/reproduce.hpp"

#include <filesystem>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/directory.hpp"
#include "io/durable_rename.hpp"
#include "suite/mpi_world.hpp"
#include "results/select.hpp"

namespace fedbench::suite {
namespace {

// Runs one stage's suite and counts its runs into `out`. A run that could not be written
// leaves the experiment without a verdict (another winner, fewer seeds): WriteError naming the
// stage and its missing runs, before any claim is read.
void run_stage(const Suite& suite, const SuiteOptions& options, const std::string& stage, ReproduceOutcome& out) {
  const SuiteTotals t = run_suite(suite, options);
  out.runs += t.total;
  out.runs_reused += t.cached;
  if (t.write_error.empty() && t.write_failures == 0) return;
  std::vector<std::string> missing;
  std::error_code ec;
  for (const auto& run : suite.runs)
    if (!std::filesystem::exists(suite.results_dir + "/runs/" + run.id + ".h5", ec)) missing.push_back(run.id);
  std::string shown;
  for (std::size_t k = 0; k < missing.size() && k < 3; ++k) shown += (k ? ", " : "") + missing[k];
  if (missing.size() > 3) shown += ", ...";
  throw WriteError(stage + ": " + (t.write_error.empty() ? "another rank could not write its runs" : t.write_error) +
                   "; " + std::to_string(missing.size()) + " of " + std::to_string(suite.runs.size()) +
                   " runs are missing (" + shown + "), so no verdict; free space and rerun (finished runs are kept)");
}

// A stage's results directory inside the output (tuning, report, variants/NAME): made or opened
// through the output's handle, one level at a time, so that a link planted under any of these
// names is refused (WriteError) rather than written through.
std::string stage_dir(const std::string& output, const std::string& relative) {
  auto dir = std::make_unique<io::Directory>(output);
  for (const auto& part : split(relative, '/'))
    dir = std::make_unique<io::Directory>(dir->child(part, io::Directory::Create::yes));
  return output + "/" + relative;
}

void run_file(const std::string& suite_path, const SuiteOverrides& overrides, const SuiteOptions& options,
              const std::string& stage, ReproduceOutcome& out) {
  run_stage(load_suite(suite_path, overrides), options, stage, out);
}

// The seeds the claims are checked on: the experiment's report seeds (its quick ones under
// --quick when it names them); empty: the tuning seeds.
const std::vector<std::uint64_t>& report_seeds(const Experiment& e, bool quick) {
  return quick && !e.quick_report_seeds.empty() ? e.quick_report_seeds : e.report_seeds;
}

// Tuning, selection and the report runs; returns the directory of the runs the claims read.
std::string run_report(const Experiment& e, const ReproduceOptions& o, ReproduceOutcome& out) {
  const auto note = [&](const std::string& line) {
    if (o.note) o.note(e.name + ": " + line);
  };
  SuiteOverrides tuning;
  tuning.results_dir = stage_dir(o.output, "tuning");
  if (o.quick) {
    tuning.rounds = e.quick_rounds;
    tuning.seeds = e.quick_seeds;
  }
  const auto& seeds = report_seeds(e, o.quick);
  note("tuning grid (" + e.suite_path + ")");
  {
    const Suite grid = load_suite(e.suite_path, tuning);
    std::set<std::uint64_t> used;
    for (const auto& run : grid.runs) used.insert(run.request.seed);
    // Without `select` nothing is tuned: the suite's own runs (or its rerun on the report seeds)
    // are the report.
    if (e.select_metric) out.tuning_seeds.assign(used.begin(), used.end());
    out.report_seeds = seeds.empty() ? std::vector<std::uint64_t>(used.begin(), used.end()) : seeds;
    run_stage(grid, o.suite, "tuning", out);
  }
  if (e.select_metric) {
    // The best configuration per method, rerun on the report seeds.
    const auto criterion = SelectCriterion::parse(*e.select_metric, *e.select_at);
    const auto suites = winners_suites(select_best(tuning.results_dir, criterion), seeds, e.name + "-report",
                                       "written by fedbench reproduce: winners by " + criterion.describe());
    SuiteOverrides report;
    report.results_dir = stage_dir(o.output, "report");
    for (std::size_t k = 0; k < suites.size(); ++k) {
      const std::string path = o.output + "/winners-" + std::to_string(k + 1) + ".yaml";
      io::write_text_file(path, suites[k]);
      run_file(path, report, o.suite, "report", out);
    }
    note("best per method by the median over tuning seeds of " + criterion.describe() +
         "; winners rerun on the report seeds");
    return report.results_dir;
  }
  if (seeds.empty()) return tuning.results_dir;
  SuiteOverrides report = tuning;
  report.results_dir = stage_dir(o.output, "report");
  report.seeds = seeds;
  run_file(e.suite_path, report, o.suite, "report", out);
  return report.results_dir;
}

// Each variant's runs (on the report seeds unless it names its own), its claims checked
// together with the report runs.
void run_variants(const Experiment& e, const ReproduceOptions& o, ReproduceOutcome& out) {
  std::string& diagnosis = out.diagnosis;
  for (const auto& v : e.variants) {
    SuiteOverrides variant;
    variant.results_dir = stage_dir(o.output, "variants/" + v.name);
    variant.seeds = v.seeds.empty() ? report_seeds(e, o.quick) : v.seeds;
    if (o.quick) variant.rounds = e.quick_rounds;
    if (o.note) o.note(e.name + ": variant " + v.name + " (" + v.suite_path + ")");
    run_file(v.suite_path, variant, o.suite, "variant " + v.name, out);
    diagnosis += "variant " + v.name + ", explaining \"" + v.explains + "\":\n";
    auto results = check_claims(o.quick ? v.quick_claims : v.claims, {out.report_dir, variant.results_dir}, o.quick);
    for (const auto& r : results) diagnosis += "  " + r.line + "\n";
    out.variants.emplace_back(v.name, std::move(results));
    out.variant_dirs.push_back(variant.results_dir);
  }
}

}  // namespace

std::string ReproduceOutcome::tally() const {
  return std::to_string(holds) + (holds == 1 ? " holds, " : " hold, ") + std::to_string(contradicted) +
         " contradicted, " + std::to_string(inconclusive) + (quick ? " not decided at the quick budget" : " inconclusive");
}

ReproduceOutcome reproduce(const Experiment& e, const ReproduceOptions& o) {
  if (!e.out_of_scope.empty())
    throw UserError("experiment '" + e.name + "' is out of scope here: " + e.out_of_scope);
  FEDBENCH_CHECK(!o.output.empty(), "reproduce needs an output directory");
  // A claim the runs could never answer is refused before they start.
  validate_experiment(e);
  check_recorded_metrics(e);
  std::filesystem::create_directories(o.output);
  ReproduceOutcome out;
  out.report_dir = run_report(e, o, out);

  // Fixed reference runs (no selection) next to the report runs.
  if (!e.baselines_path.empty()) {
    SuiteOverrides baselines;
    baselines.results_dir = out.report_dir;
    baselines.seeds = report_seeds(e, o.quick);
    if (o.note) o.note(e.name + ": baselines (" + e.baselines_path + ")");
    run_file(e.baselines_path, baselines, o.suite, "baselines", out);
  }
  out.quick = o.quick;
  out.claims = check_claims(o.quick ? e.quick_claims : e.claims, {out.report_dir}, o.quick);
  std::string log;
  for (const auto& r : out.claims) {
    out.holds += r.verdict == Verdict::holds;
    out.contradicted += r.verdict == Verdict::contradicted;
    out.inconclusive += r.verdict == Verdict::inconclusive;
    log += r.line + "\n";
  }
  run_variants(e, o, out);
  io::write_text_file(o.output + "/claims.txt", log + out.diagnosis + out.tally() + "\n");
  // Drawn last: the page states every claim's verdict.
  if (o.draw && world().rank() == 0 && !e.figure_y.empty()) o.draw(e, out);
  return out;
}

}  // namespace fedbench::suite
