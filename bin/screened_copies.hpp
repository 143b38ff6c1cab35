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
#include <set>
#include <string>
#include <vector>

#include "io/directory.hpp"

namespace fedbench::cli {

class ScreenedRunCopies {
 public:
  //! Copies every finished run file of results_dir into a scratch directory inside `parent`
  //! (.screened-runs-HOST-PID/runs: fedbench writes only beside the outputs it was given),
  //! reporting each refused file on stderr ("fedbench: skipped: FILE: why"). Scratch
  //! directories that this host's killed reports left there (their process is gone) go first.
  //! Only the runs of the suites last run in results_dir unless `all_runs`. Everything in
  //! the scratch directory is made, written and removed through handles opened below
  //! `parent`, never through a link.
  ScreenedRunCopies(const std::string& results_dir, const io::Directory& parent, bool all_runs = false);
  //! Removes scratch_dir.
  ~ScreenedRunCopies();
  ScreenedRunCopies(const ScreenedRunCopies&) = delete;
  ScreenedRunCopies& operator=(const ScreenedRunCopies&) = delete;

  //! A results directory holding the copies (runs/*.h5): the scratch directory's own path,
  //! read from its handle when it was made (the scripts and the processes they start need a
  //! path). A link swapped in above it afterwards makes their reads and writes fail, as the
  //! new place has no such directory; it cannot send them elsewhere.
  const std::string& dir() const { return path_; }
  //! An empty directory in the scratch directory for a script's output.
  std::string output_dir() const { return path_ + "/out"; }
  //! Moves NAME from output_dir() to `out`'s FINAL (refused when FINAL is a link or not a
  //! regular file).
  void publish(const std::string& name, const io::Directory& out, const std::string& final_name) const;
  //! report.py's arguments naming the directory screened, the files refused there and the
  //! fedbench binary that scores the runs.
  std::vector<std::string> report_arguments() const;
  //! Every metric column some copied run records, sorted.
  const std::set<std::string>& metric_names() const { return metric_names_; }

 private:
  std::string results_dir_, name_;
  io::Directory parent_, scratch_;
  std::string path_;  // scratch_'s path as the file system resolves it
  std::set<std::string> metric_names_;
  long long stale_ = 0;       // copied runs made by other code or from other data
  std::string stale_example_;  // the first one's id and reason
  int refused_ = 0;  // run files not copied (unreadable, crafted or unfinished)
};

}  // namespace fedbench::cli
