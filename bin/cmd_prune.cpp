// `fedbench prune RESULTS`: deletes the run files that the suites last run in a results
// directory no longer have (older configurations), after listing them; --dry-run only lists.
// Only regular files named by a run id that the manifest lists as finished here are deleted,
// through a handle on runs/ that never follows a link: a file fedbench did not write, and
// anything a link points to, is left alone.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "io/directory.hpp"
#include "results/run_identity.hpp"
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
    // Links in the path given are the user's; runs/ below it is fedbench's and never followed,
    // and every name is listed and deleted through that one handle.
    const io::Directory results(o->results);
    const io::Directory runs = results.child("runs");
    const suite::ResultsStore store(o->results);
    std::vector<std::string> doomed;
    {
      const suite::DirectoryLock lock(o->results);  // not while a manifest is being written
      const auto in_suite = store.suite_ids();
      if (!in_suite)
        throw UserError(o->results + " has no suite.tsv (no suite has run there since fedbench records one); "
                        "run its suite again first, then prune");
      const auto own = store.manifest_ids();  // what fedbench finished here
      for (const auto& name : runs.entries()) {
        const std::string id = fs::path(name).stem().string();
        if (fs::path(name).extension() != ".h5" || !suite::is_run_id(id) || in_suite->count(id)) continue;
        const bool regular = runs.kind(name) == io::Directory::Kind::regular;
        if (!regular || !own.count(id)) {
          std::printf("left alone %s (%s)\n", runs.shown(name).c_str(),
                      regular ? "not a run the manifest lists: not fedbench's to delete"
                              : "not a regular file: a link or another kind of file");
          continue;
        }
        std::printf("%s %s\n", o->dry_run ? "would delete" : "delete", runs.shown(name).c_str());
        if (!o->dry_run) runs.remove_file(name);
        doomed.push_back(name);
      }
    }
    if (!o->dry_run && !doomed.empty()) store.write_manifest();
    std::printf("%s: %zu run file%s not in its suites %s\n", o->results.c_str(), doomed.size(),
                doomed.size() == 1 ? "" : "s", o->dry_run ? "(nothing deleted: --dry-run)" : "deleted");
    return 0;
  };
}

}  // namespace fedbench::cli
