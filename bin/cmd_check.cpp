// `fedbench check SUITE.yaml --reference DIR [--tolerance METRIC=BAND] [--update] [--json]`: rerun a
// suite and compare every trajectory with its stored reference.
#include <filesystem>
#include <iostream>
#include <memory>

#include "checked_options.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "core/scratch_cleanup.hpp"
#include "engine/runner.hpp"
#include "io/durable_rename.hpp"
#include "results/check.hpp"
#include "results/check_report.hpp"
#include "suite/mpi_world.hpp"
#include "suite/suite_search.hpp"
#include "suite/suite_runner.hpp"

namespace fedbench::cli {

std::function<int()> add_check(CLI::App& app) {
  auto* sub = app.add_subcommand("check", "rerun a suite and compare it with stored references");
  struct Options {
    std::string suite, reference, results, junit;
    std::vector<std::string> tolerances;
    bool update = false, prune = false, quiet = false, json = false;
    int jobs = 0;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("suite", o->suite, "suite file (YAML) or a shipped suite's name")->required();
  sub->add_option("--reference", o->reference, "directory of reference runs")->required();
  sub->add_option("--tolerance", o->tolerances,
                  "METRIC=BAND: compare METRIC within BAND decades (log10) instead of exactly; "
                  "METRIC * for every metric");
  sub->add_flag("--update", o->update, "rewrite the references from this run");
  sub->add_flag("--prune", o->prune,
                "with --update: also delete reference runs the suite does not have (renamed or removed runs)");
  sub->add_option("--results", o->results, "keep the fresh runs here (default: a temporary dir)");
  add_whole_number(sub, "--jobs", o->jobs, "runs in parallel (default: all cores)", 1, kMaxThreads);
  sub->add_flag("-q,--quiet", o->quiet, "no progress line");
  sub->add_option("--junit", o->junit,
                  "also write the comparison as JUnit XML to FILE (one test case per run), for CI systems");
  sub->add_flag("--json", o->json,
                "print every curve's verdict, largest deviation, its round and band, and the "
                "references with no run, as JSON");
  return [o] {
    namespace fs = std::filesystem;
    const suite::Tolerances tolerances = suite::parse_tolerances(o->tolerances);
    std::string fresh = o->results;
    if (suite::world().size() > 1 && fresh.empty())
      throw UserError("under mpirun, give check a --results directory all ranks share");
    // The default results go to a scratch directory that is removed however check ends: a
    // return, an exception, SIGINT or SIGTERM (the one a SIGKILL leaves, the next check removes).
    std::unique_ptr<ScratchDirectory> scratch;
    if (fresh.empty()) {
      scratch = std::make_unique<ScratchDirectory>(fs::temp_directory_path().string(), "fedbench-check");
      fresh = scratch->path();
    }
    suite::SuiteOverrides overrides;
    overrides.results_dir = fresh;
    const suite::Suite s = suite::load_suite(suite::resolve_suite_path(o->suite), overrides);
    if (!o->update && !fs::is_directory(o->reference))
      throw UserError("reference directory " + o->reference +
                      " does not exist; create it with --update");
    if (o->prune && !o->update) throw UserError("--prune goes with --update");
    if (o->json && o->update) throw UserError("--json reports a comparison; drop it with --update");
    if (!o->junit.empty() && o->update) throw UserError("--junit reports a comparison; drop it with --update");
    // Refused before the suite runs, not after.
    if (const fs::path dir = fs::path(o->junit).parent_path(); !o->junit.empty() && !dir.empty() && !fs::is_directory(dir))
      throw UserError("--junit " + o->junit + ": directory " + dir.string() + " does not exist; create it or name another file");
    // Files the suite never wrote are left alone unless the user says to delete them: the
    // directory may hold another suite's references.
    if (o->update && !o->prune)
      if (const auto foreign = suite::foreign_references(s, o->reference); !foreign.empty())
        throw UserError(o->reference + " holds " + std::to_string(foreign.size()) +
                        (foreign.size() == 1 ? " run file" : " run files") + " that " + o->suite +
                        " does not have (e.g. " +
                        fs::path(foreign.front()).filename().string() +
                        "); add --prune to delete them, or update another directory");
    suite::SuiteOptions options;
    options.jobs = o->jobs;
    options.force = true;  // a check always recomputes
    options.quiet = o->quiet;
    const suite::SuiteTotals totals = suite::run_suite(s, options);
    // A run that could not be written would read as missing: nothing is compared or updated.
    if (!totals.write_error.empty())
      throw WriteError(totals.write_error + "; nothing was compared or updated; free space and rerun check");
    if (totals.write_failures > 0) return 1;  // another rank could not write (it said why)
    int code = 0;
    if (suite::world().rank() == 0) {
      if (o->update) {
        const int n = suite::update_references(s, fresh, o->reference, o->prune);
        std::cout << "updated " << n << " references in " << o->reference << "\n";
      } else {
        const auto report = suite::check_against_reference(s, fresh, o->reference, tolerances);
        if (!o->junit.empty()) io::write_text_file(o->junit, suite::check_report_junit(report, s.name));
        if (o->json)
          std::cout << suite::check_report_json(report).dump(2) << "\n";
        else
          suite::print_check_report(report, std::cout);
        code = report.failed > 0 ? 1 : 0;
      }
    }
    return code;
  };
}

}  // namespace fedbench::cli
