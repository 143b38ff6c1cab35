// A results directory: one HDF5 file per run, runs/<id>.h5 (written as .part, renamed when
// complete), and manifest.tsv listing every finished run on disk with its status. A file under
// a final name is trusted only after it has been read back whole: one that does not read (cut
// short, overwritten, planted) is `corrupt`, set aside by the runner and run again.
// Every write and delete goes through the directory and its runs/ opened once (pinned): a
// component of their path swapped for a link afterwards redirects nothing.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/trajectory_file.hpp"
#include "suite/suite.hpp"

namespace fedbench::suite {

//! stale: a finished run of this configuration, computed by other code or from other data
//! than this build and the data files now hold.
enum class RunState { fresh, partial, done, stale, corrupt };
std::string to_string(RunState s);

class ResultsStore {
 public:
  explicit ResultsStore(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }
  std::string run_file(const std::string& id) const { return dir_ + "/runs/" + id + ".h5"; }
  //! done: the final file reads back as a finished run of this configuration, computed by
  //! this build's code from the data its files hold now; stale: the same, but by other code or
  //! from other data; corrupt: it exists but does not read (or holds another run); partial:
  //! only a .part exists (a run that was stopped). `why` receives the reason of stale and
  //! corrupt. `identity` receives the identity text the file stores (when it reads).
  RunState state(const SuiteRun& run, std::string* why = nullptr, std::string* identity = nullptr) const;
  //! Moves a corrupt run file to runs/<id>.h5.corrupt (kept for inspection); returns why it
  //! was corrupt.
  std::string set_aside(const SuiteRun& run) const;
  //! Copies `donor`'s run file of `run` here when it is done there (the same identity, this
  //! build's code, the data as it is now): the run a rerun would write, bit for bit, without
  //! running it. False when the donor has no such run (or is this directory).
  bool adopt(const ResultsStore& donor, const SuiteRun& run) const;
  //! Copies run `id`'s file from the runs/ directory `from` into this one (a temporary name,
  //! then renamed: a crash leaves no half run); WriteError, with nothing left behind, when
  //! it cannot be written.
  void copy_in(const io::Directory& from, const std::string& id) const;
  //! Creates dir/runs; throws UserError naming the directory.
  void ensure_exists() const;
  //! The results directory and its runs/, opened on first use and kept open for the store's
  //! life (runs/ never through a link): where its files are made, renamed and deleted.
  const io::Directory& root() const;
  const io::Directory& runs() const;
  //! The sink of run `id`'s file: runs/<id>.h5.part in the pinned runs/, renamed when complete.
  std::unique_ptr<TrajectorySink> run_sink(const std::string& id) const;
  //! Every finished run file under dir/runs (runs/<id>.h5 for a run id), sorted by id.
  std::vector<std::string> finished_files() const;
  //! The other *.h5 files under dir/runs (backups, copies, foreign files): not runs, never
  //! read as runs.
  std::vector<std::string> foreign_files() const;

  //! Records the ids of `suite`'s runs in dir/suite.tsv (atomically), replacing those recorded
  //! for the same suite file before (other suites sharing the directory keep theirs): what
  //! select, report and export show of this directory from now on. A partial run (--problem /
  //! --solver) records nothing.
  void record_suite(const Suite& suite) const;
  //! The finished run files of the suites recorded here (all of them with `all`, or when none
  //! was recorded). Unless `quiet`, says on stderr how many were left out and how to
  //! include or delete them.
  std::vector<std::string> suite_files(bool all, bool quiet = false) const;
  //! Finished run files that are not in the recorded suite (none when no suite is recorded).
  std::vector<std::string> files_outside_suite() const;
  //! The run ids of the suites recorded in dir/suite.tsv (nullopt when none is recorded).
  std::optional<std::set<std::string>> suite_ids() const;
  //! The run ids dir/manifest.tsv lists (the runs fedbench finished here); empty without one.
  std::set<std::string> manifest_ids() const;
  //! Rewrites dir/manifest.tsv from the files on disk (atomically: temp file + rename, under a
  //! lock on the directory so that concurrent processes never interleave). Corrupt files are
  //! left out and reported on stderr.
  void write_manifest() const;

 private:
  std::string dir_;
  // Opened once and shared by copies of the store (a store is used from one thread at a time
  // while it pins; the suite runner pins in ensure_exists before its workers start).
  mutable std::shared_ptr<const io::Directory> root_, runs_;
};

//! Why `path`, a file under a results directory's runs/, is not a complete run file ("" when
//! it is one): it must read back whole, carry a final status and be the run its name stands
//! for (run_identity.hpp).
std::string run_file_problem(const std::string& path);
//! Where a run file came from: a results directory's runs/ (it must then be the run its name
//! stands for, run_identity.hpp), or named by the user (a `run -o` file, any name).
enum class RunOrigin { results_directory, named };

//! The run in `file` if it is complete; otherwise reports it on stderr ("fedbench: skipped
//! FILE: why") and gives nothing.
std::optional<io::StoredRun> read_complete_run(const std::string& file,
                                               RunOrigin origin = RunOrigin::results_directory);
//! Reads every file that is a complete run; each other one is reported on stderr
//! ("fedbench: skipped FILE: why") and left out.
std::vector<io::StoredRun> read_complete_runs(const std::vector<std::string>& files,
                                              RunOrigin origin = RunOrigin::results_directory);

//! Counts the runs read for a view (select, export, report, claims) that were made by other code
//! or from other data than this build's, and says so in one line on stderr.
class StaleTally {
 public:
  void add(const io::StoredRun& run);
  //! "fedbench: N of the runs shown are stale (e.g. ID: why); rerun their suite ..." when any.
  void report() const;
  long long count() const { return count_; }
  //! "ID: why" of the first stale run ("" when none).
  const std::string& first() const { return first_; }

 private:
  long long count_ = 0;
  std::string first_;
};

//! The participation a run's configuration text records ("uniform:5"; "" when absent), read
//! from RunConfig::to_text's fixed layout without a YAML parser, so that a crafted file whose
//! text does not parse is still read.
std::string participation_of(const std::string& config_text);

//! A run's recorded rows on a counter axis, as selection and claims read budgets: a counter
//! column ("round", "samples", "exchanges", ...) or "bytes" (bytes_up + bytes_down).
std::vector<double> counter_axis(const io::StoredRun& run, const std::string& axis);

//! ResultsStore::state for many runs: lists dir/runs once, then asks the disk only about the
//! runs that have a file there (a plan of 10^6 runs would otherwise look up 2 x 10^6 paths).
//! Holds 8 bytes per file listed. A file written after the listing is not seen.
class RunStateLookup {
 public:
  explicit RunStateLookup(const ResultsStore& store);
  RunState state(const SuiteRun& run, std::string* why = nullptr) const;

 private:
  const ResultsStore& store_;
  std::vector<std::uint64_t> listed_;  //!< ids with a file under runs/, sorted
  bool complete_ = true;               //!< false: the listing failed, every run is looked up
};

}  // namespace fedbench::suite
