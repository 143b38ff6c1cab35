// Output formats of a run, as sinks of the record the engine emits: HDF5 (the run file), CSV
// (one row per recorded round) and JSON (header, rows and summary of each run). The same
// sinks consume runs live (`fedbench run -o`, suites) and from files (`fedbench export`,
// which replays each run file), so every format shows the same numbers.
#pragma once
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "io/directory.hpp"
#include "engine/trajectory.hpp"

namespace fedbench::io {

enum class OutputFormat { hdf5, csv, json };
//! "h5" | "hdf5" | "csv" | "json"; throws UserError naming the choices.
OutputFormat parse_output_format(const std::string& text);
//! From a file name's extension (.h5, .csv, .json); throws UserError naming the choices.
OutputFormat output_format_of(const std::string& path);

//! The columns of a CSV table over a set of runs: every parameter key and trajectory column
//! any of them has (a run lacking one leaves its cell empty).
struct CsvLayout {
  std::set<std::string> problem_keys, solver_keys;
  std::vector<std::string> metrics;  //!< first-seen order
  void add(const RunHeader& header);
};

//! Writes CSV rows to a stream: the header line once (at the first run), then one line per
//! trajectory row. `id` names each run (the file stem in exports).
class CsvSink : public TrajectorySink {
 public:
  CsvSink(std::ostream& out, CsvLayout layout) : out_(out), layout_(std::move(layout)) {}
  void set_id(std::string id) { id_ = std::move(id); }
  void begin(const RunHeader& header) override;
  void row(const TrajectoryRow& row) override;
  void end(const RunSummary& summary) override;
  long long rows_written() const { return rows_; }

 private:
  std::ostream& out_;
  CsvLayout layout_;
  std::string id_, prefix_;
  std::vector<std::string> pending_;  // rows wait for the status, known at the end
  std::vector<int> metric_slot_;      // run's metric k -> layout column
  bool header_written_ = false;
  long long rows_ = 0;
};

//! Writes each run as one JSON object; several runs form a JSON array (close() ends it).
class JsonSink : public TrajectorySink {
 public:
  explicit JsonSink(std::ostream& out, bool array) : out_(out), array_(array) {}
  void set_id(std::string id) { id_ = std::move(id); }
  void begin(const RunHeader& header) override;
  void row(const TrajectoryRow& row) override;
  void end(const RunSummary& summary) override;
  void close();

 private:
  std::ostream& out_;
  bool array_, first_run_ = true, first_row_ = true, closed_ = false;
  std::string id_;
  std::vector<std::string> metric_names_;
};

//! The sink writing one run to `path` in `format`: the file appears under its name only when
//! the run has ended (written as PATH.part and renamed, in its directory opened once), like
//! the HDF5 run file. refuse_link: the directory is one fedbench made (runs/), never a link.
std::unique_ptr<TrajectorySink> make_file_sink(OutputFormat format, const std::string& path,
                                               Directory::Last last = Directory::Last::follow);

}  // namespace fedbench::io
