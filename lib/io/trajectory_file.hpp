// The HDF5 trajectory file (format documented in docs/hdf5-format.md).
//
// Hdf5TrajectoryWriter is a TrajectorySink: it writes PATH.part while the run goes on (rows
// buffered and appended to extendible, chunked 1-D datasets) and renames it to PATH when the
// run ends (after fsync), so a file under its final name is always complete; a run that dies
// leaves no PATH and an existing PATH is replaced only by a complete one. A failed write (disk
// full, read-only) is a WriteError; the writer then deletes only a .part it created itself.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/directory.hpp"
#include "engine/trajectory.hpp"

namespace fedbench::io {

inline constexpr const char* kTrajectoryFormat = "fedbench-trajectory";
//! 2: metric directions, descriptions and units; eval_time column; /final iterate; set-up
//! and evaluation times; environment; `round` as a dimension scale. 1 is still read.
inline constexpr std::int64_t kTrajectoryFormatVersion = 2;

class Hdf5TrajectoryWriter : public TrajectorySink {
 public:
  //! Checks that PATH can be written (its directory exists) without touching PATH, and opens
  //! its directory once: PATH.part is created, and renamed to PATH, in that directory
  //! (refuse_link: a results directory's runs/, which must not be a link).
  explicit Hdf5TrajectoryWriter(std::string path, Directory::Last last = Directory::Last::follow);
  //! NAME in a directory opened before (a results directory's pinned runs/): PATH.part is
  //! made and renamed there, whatever has become of the directory's path since.
  Hdf5TrajectoryWriter(Directory dir, const std::string& name);
  ~Hdf5TrajectoryWriter() override;

  void begin(const RunHeader& header) override;
  void row(const TrajectoryRow& row) override;
  void end(const RunSummary& summary) override;

  const std::string& path() const { return path_; }
  std::string part_path() const { return path_ + ".part"; }

 private:
  struct State;
  void write_header(const RunHeader& header);
  void buffer_row(const TrajectoryRow& row);
  void write_summary(const RunSummary& summary);
  void flush();
  std::string name() const;
  std::string path_;
  std::unique_ptr<Directory> dir_;
  std::unique_ptr<State> state_;
};

//! A trajectory file read back: the typed record the engine emitted, and the same data by
//! column for the tools that compare columns.
struct StoredRun {
  std::string path;
  RunRecord record;
  std::map<std::string, std::string> text;  //!< string root attributes
  std::map<std::string, double> numbers;    //!< numeric root attributes
  std::map<std::string, double> constants;
  std::map<std::string, std::string> problem_params, solver_params;
  std::vector<std::string> column_names;  //!< in file order (the /trajectory "columns" attr)
  std::map<std::string, std::vector<double>> columns;
  std::map<std::string, std::vector<double>> per_client;  //!< /clients/<counter>

  const std::vector<double>& column(const std::string& name) const;
  std::size_t num_rows() const;
};

//! Reads a file written by Hdf5TrajectoryWriter; UserError naming the file on any problem.
StoredRun read_trajectory(const std::string& path);
//! What `fedbench show` prints.
std::string summarize_trajectory(const StoredRun& run);

}  // namespace fedbench::io
