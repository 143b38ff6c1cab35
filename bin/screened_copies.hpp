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

namespace fedbench::cli {

class ScreenedRunCopies {
 public:
  //! Copies every finished run file of results_dir into a scratch directory inside `parent`
  //! (.screened-runs-HOST-PID/runs: fedbench writes only beside the outputs it was given),
  //! reporting each refused file on stderr ("fedbench: skipped: FILE: why"). Scratch
  //! directories that this host's killed reports left there (their process is gone) go first.
  //! Only the runs of the suites last run in results_dir unless `all_runs`.
  ScreenedRunCopies(const std::string& results_dir, const std::string& parent, bool all_runs = false);
  //! Removes scratch_dir.
  ~ScreenedRunCopies();
  ScreenedRunCopies(const ScreenedRunCopies&) = delete;
  ScreenedRunCopies& operator=(const ScreenedRunCopies&) = delete;

  //! A results directory holding the copies (runs/*.h5).
  const std::string& dir() const { return dir_; }
  //! report.py's arguments naming the directory screened, the files refused there and the
  //! fedbench binary that scores the runs.
  std::vector<std::string> report_arguments() const;
  //! Every metric column some copied run records, sorted.
  const std::set<std::string>& metric_names() const { return metric_names_; }

 private:
  std::string results_dir_, dir_;
  std::set<std::string> metric_names_;
  long long stale_ = 0;       // copied runs made by other code or from other data
  std::string stale_example_;  // the first one's id and reason
  int refused_ = 0;  // run files not copied (unreadable, crafted or unfinished)
};

}  // namespace fedbench::cli
