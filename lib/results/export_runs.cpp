#include "results/export_runs.hpp"

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "io/trajectory_file.hpp"
#include "results/results_store.hpp"

namespace fedbench::suite {

std::vector<RunFileRef> collect_run_files(const std::vector<std::string>& inputs, bool all_runs) {
  namespace fs = std::filesystem;
  std::vector<RunFileRef> files;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      const auto found = ResultsStore(input).suite_files(all_runs);
      if (found.empty())
        throw UserError("no finished runs under " + input + "/runs; run a suite into it first");
      for (const auto& f : found) files.push_back({f, RunOrigin::results_directory});
    } else if (fs::is_regular_file(input, ec)) {
      files.push_back({input, RunOrigin::named});
    } else {
      throw UserError(input + " is neither a run file nor a results directory");
    }
  }
  return files;
}

long long export_runs(const std::vector<RunFileRef>& files, io::OutputFormat format,
                      std::ostream& out) {
  std::vector<io::StoredRun> runs;
  for (const auto& f : files)
    if (auto run = read_complete_run(f.path, f.origin)) runs.push_back(std::move(*run));  // others reported
  StaleTally stale;
  for (const auto& r : runs) stale.add(r);
  stale.report();
  if (runs.empty()) throw UserError("none of the " + std::to_string(files.size()) + " run files could be read");
  auto id_of = [](const io::StoredRun& r) { return std::filesystem::path(r.path).stem().string(); };
  long long rows = 0;
  if (format == io::OutputFormat::csv) {
    io::CsvLayout layout;
    for (const auto& r : runs) layout.add(r.record.header);
    io::CsvSink sink(out, std::move(layout));
    for (const auto& r : runs) {
      sink.set_id(id_of(r));
      replay(r.record, sink);
    }
    return sink.rows_written();
  }
  if (format == io::OutputFormat::json) {
    io::JsonSink sink(out, true);
    for (const auto& r : runs) {
      sink.set_id(id_of(r));
      replay(r.record, sink);
      rows += static_cast<long long>(r.record.rows.size());
    }
    sink.close();
    return rows;
  }
  throw UserError("export writes csv or json; run files are already HDF5");
}

}  // namespace fedbench::suite
