// `fedbench prune RESULTS`: deletes the run files that the suites last run in a results
// directory no longer have (older configurations), after listing them; --dry-run only lists.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "results/results_store.hpp"
#include "results/run_claim.hpp"

namespace fedbench::cli {

std::function<int()> add_prune(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "prune", "delete the run files of a results directory that its suites no longer have (older "
               "configurations), after listing them");
  struct Options {
    std::string results;
    bool dry_run = false;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("results", o->results, "results directory of a suite")->required();
  sub->add_flag("--dry-run", o->dry_run, "list them only");
  return [o] {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(fs::path(o->results) / "runs", ec))
      throw UserError(o->results + " is not a results directory (no runs/); give the directory a suite ran into");
    if (!fs::exists(fs::path(o->results) / "suite.tsv", ec))
      throw UserError(o->results + " has no suite.tsv (no suite has run there since fedbench records one); "
                      "run its suite again first, then prune");
    const suite::ResultsStore store(o->results);
    std::vector<std::string> outside;
    {
      const suite::DirectoryLock lock(o->results);  // not while a manifest is being written
      outside = store.files_outside_suite();
      for (const auto& f : outside) {
        std::printf("%s %s\n", o->dry_run ? "would delete" : "delete", f.c_str());
        if (!o->dry_run && !fs::remove(f, ec))
          throw WriteError("cannot delete " + f + (ec ? ": " + ec.message() : ""));
      }
    }
    if (!o->dry_run && !outside.empty()) store.write_manifest();
    std::printf("%s: %zu run file%s not in its suites %s\n", o->results.c_str(), outside.size(),
                outside.size() == 1 ? "" : "s", o->dry_run ? "(nothing deleted: --dry-run)" : "deleted");
    return 0;
  };
}

}  // namespace fedbench::cli
