// A results directory: one HDF5 file per run, runs/<id>.h5 (written as .part, renamed when
// complete), and manifest.tsv listing every finished run on disk with its status.
#pragma once
#include <string>
#include <vector>

namespace fedbench::suite {

enum class RunState { fresh, partial, done };
std::string to_string(RunState s);

class ResultsStore {
 public:
  explicit ResultsStore(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }
  std::string run_file(const std::string& id) const { return dir_ + "/runs/" + id + ".h5"; }
  //! done: the final file exists (complete by construction); partial: only a .part exists.
  RunState state(const std::string& id) const;
  //! Creates dir/runs; throws UserError naming the directory.
  void ensure_exists() const;
  //! Every finished run file under dir/runs, sorted by id.
  std::vector<std::string> finished_files() const;
  //! Rewrites dir/manifest.tsv from the files on disk (atomically: temp file + rename).
  void write_manifest() const;

 private:
  std::string dir_;
};

}  // namespace fedbench::suite
