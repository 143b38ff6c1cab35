#include "screened_copies.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"
#include "io/trajectory_file.hpp"
#include "suite/results_store.hpp"

namespace fedbench::cli {

namespace fs = std::filesystem;

ScreenedRunCopies::ScreenedRunCopies(const std::string& results_dir, std::string scratch_dir)
    : dir_(std::move(scratch_dir)) {
  std::error_code ec;
  if (!fs::create_directory(dir_, ec) || ec)
    throw WriteError("cannot create the scratch directory " + dir_ + (ec ? ": " + ec.message() : ": it exists") +
                     "; remove it or choose another output directory");
  try {
    if (!fs::create_directory(dir_ + "/runs", ec) || ec)
      throw WriteError("cannot create " + dir_ + "/runs: " + ec.message());
    for (const auto& file : suite::ResultsStore(results_dir).finished_files()) {
      const auto run = suite::read_complete_run(file);  // reports a refused file itself
      if (!run) {
        ++refused_;
        continue;
      }
      io::Hdf5TrajectoryWriter copy(dir_ + "/runs/" + fs::path(file).filename().string());
      replay(run->record, copy);
    }
  } catch (...) {
    fs::remove_all(dir_, ec);
    throw;
  }
}

std::string scratch_directory(const std::string& parent) {
  return (fs::path(parent) / (".screened-runs-" + std::to_string(::getpid()))).string();
}

ScreenedRunCopies::~ScreenedRunCopies() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace fedbench::cli
