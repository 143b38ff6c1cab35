#include "screened_copies.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "io/directory.hpp"
#include "io/trajectory_file.hpp"
#include "results/results_store.hpp"

namespace fedbench::cli {

namespace fs = std::filesystem;

namespace {

// .screened-runs-HOST-: the host matters on a shared file system, where a process id means
// something only on the machine that gave it.
std::string scratch_prefix() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(".screened-runs-") + host + "-";
}

// Scratch directories of this host's reports that were killed before they could remove theirs:
// those whose process is gone.
void remove_abandoned_scratch(const io::Directory& parent) {
  const std::string prefix = scratch_prefix();
  for (const auto& name : parent.entries()) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      try {
        parent.remove_tree(name);
      } catch (const std::exception&) {  // left for the user: not ours to fight over
      }
    }
  }
}

// A new scratch directory NAME in `parent` (refused when something is already there).
io::Directory new_scratch(const io::Directory& parent, const std::string& name) {
  if (parent.kind(name) != io::Directory::Kind::absent)
    throw WriteError("cannot create the scratch directory " + parent.shown(name) +
                     ": it exists; remove it or choose another output directory");
  return parent.child(name, io::Directory::Create::yes);
}

}  // namespace

ScreenedRunCopies::ScreenedRunCopies(const std::string& results_dir, const io::Directory& parent, bool all_runs)
    : results_dir_(results_dir),
      name_(scratch_prefix() + std::to_string(::getpid())),
      parent_((remove_abandoned_scratch(parent), parent.duplicate())),
      scratch_(new_scratch(parent_, name_)),
      path_(fs::read_symlink(scratch_.handle_path()).string()) {
  try {
    const io::Directory runs = scratch_.child("runs", io::Directory::Create::yes);
    scratch_.child("out", io::Directory::Create::yes);
    suite::StaleTally stale;
    for (const auto& file : suite::ResultsStore(results_dir).suite_files(all_runs)) {
      const auto run = suite::read_complete_run(file);  // reports a refused file itself
      if (!run) {
        ++refused_;
        continue;
      }
      metric_names_.insert(run->record.header.metric_names.begin(), run->record.header.metric_names.end());
      stale.add(*run);
      io::Hdf5TrajectoryWriter copy(runs.via_handle(fs::path(file).filename().string()));
      replay(run->record, copy);
    }
    stale.report();
    stale_ = stale.count();
    stale_example_ = stale.first();
  } catch (...) {
    parent_.remove_tree(name_);
    throw;
  }
}

void ScreenedRunCopies::publish(const std::string& name, const io::Directory& out, const std::string& final_name) const {
  out.check_output(final_name);
  out.move_here(scratch_.child("out"), name, final_name);
}

std::vector<std::string> ScreenedRunCopies::report_arguments() const {
  // The report ranks configurations by `fedbench select`'s scores: this very binary.
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> args{"--source", results_dir_, "--refused", std::to_string(refused_)};
  if (stale_ > 0) args.insert(args.end(), {"--stale", std::to_string(stale_), "--stale-example", stale_example_});
  if (!ec) args.insert(args.end(), {"--fedbench", self.string()});
  return args;
}

ScreenedRunCopies::~ScreenedRunCopies() {
  try {
    parent_.remove_tree(name_);
  } catch (const std::exception&) {  // a link swapped in: left alone, never followed
  }
}

}  // namespace fedbench::cli
