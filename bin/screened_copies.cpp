#include "screened_copies.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
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
void remove_abandoned_scratch(const fs::path& parent) {
  const std::string prefix = scratch_prefix();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

ScreenedRunCopies::ScreenedRunCopies(const std::string& results_dir, const std::string& parent, bool all_runs)
    : results_dir_(results_dir),
      dir_((fs::path(parent) / (scratch_prefix() + std::to_string(::getpid()))).string()) {
  remove_abandoned_scratch(parent);
  std::error_code ec;
  if (!fs::create_directory(dir_, ec) || ec)
    throw WriteError("cannot create the scratch directory " + dir_ + (ec ? ": " + ec.message() : ": it exists") +
                     "; remove it or choose another output directory");
  try {
    if (!fs::create_directory(dir_ + "/runs", ec) || ec)
      throw WriteError("cannot create " + dir_ + "/runs: " + ec.message());
    suite::StaleTally stale;
    for (const auto& file : suite::ResultsStore(results_dir).suite_files(all_runs)) {
      const auto run = suite::read_complete_run(file);  // reports a refused file itself
      if (!run) {
        ++refused_;
        continue;
      }
      metric_names_.insert(run->record.header.metric_names.begin(), run->record.header.metric_names.end());
      stale.add(*run);
      io::Hdf5TrajectoryWriter copy(dir_ + "/runs/" + fs::path(file).filename().string());
      replay(run->record, copy);
    }
    stale.report();
    stale_ = stale.count();
    stale_example_ = stale.first();
  } catch (...) {
    fs::remove_all(dir_, ec);
    throw;
  }
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
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace fedbench::cli
