// The run files of a results directory made safe for the Python scripts (report, figures).
//
// The scripts read run files with h5py, i.e. libhdf5 inside their own process, where a crafted
// file can crash it; whether it does depends on the reader's heap, so a file that fedbench's
// run-file screen read whole may still crash another process. The scripts are therefore never
// handed a file from disk: every run file that the screen reads whole is written again, from
// the record the screen returned, by fedbench's own writer into a scratch directory, and the
// scripts read those copies. Files the screen refuses are reported and counted. A copy holds
// everything fedbench's reader keeps (every attribute, column, per-client total, metric
// description and final iterate); the /partition group, which no script reads, is left out.
#pragma once
#include <string>

namespace fedbench::cli {

class ScreenedRunCopies {
 public:
  //! Copies every finished run file of results_dir into scratch_dir/runs (created; it must
  //! not exist), reporting each refused file on stderr ("fedbench: skipped: FILE: why").
  //! Scratch directories beside it that a killed report left (their process is gone) go first.
  ScreenedRunCopies(const std::string& results_dir, std::string scratch_dir);
  //! Removes scratch_dir.
  ~ScreenedRunCopies();
  ScreenedRunCopies(const ScreenedRunCopies&) = delete;
  ScreenedRunCopies& operator=(const ScreenedRunCopies&) = delete;

  //! A results directory holding the copies (runs/*.h5).
  const std::string& dir() const { return dir_; }
  //! Run files that were not copied (unreadable, crafted or unfinished).
  int refused() const { return refused_; }

 private:
  std::string dir_;
  int refused_ = 0;
};

//! A scratch directory inside `parent` named for this process (fedbench writes only beside
//! the outputs it was given).
std::string scratch_directory(const std::string& parent);

}  // namespace fedbench::cli
