// `fedbench export`: runs read back from their files and replayed into an output sink, so an
// export holds exactly what the live outputs of `fedbench run -o` would.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "io/run_sinks.hpp"
#include "results/results_store.hpp"

namespace fedbench::suite {

//! A run file to export and where it was found.
struct RunFileRef {
  std::string path;
  RunOrigin origin = RunOrigin::results_directory;
};

//! Run files named by `inputs`: .h5 files as given, directories as results directories (their
//! runs/<id>.h5). Throws UserError when an input is neither or nothing is found.
std::vector<RunFileRef> collect_run_files(const std::vector<std::string>& inputs, bool all_runs = false);

//! CSV: one long table, a row per recorded round; columns id, status, problem,
//! problem.<param>..., solver, solver.<param>..., seed, the counters, wall_time, eval_time and
//! every metric (the union over runs; a run without one leaves the cell empty). JSON: an array
//! with one object per run (header, rows, summary with the final iterate). Returns the rows
//! written.
long long export_runs(const std::vector<RunFileRef>& files, io::OutputFormat format,
                      std::ostream& out);

}  // namespace fedbench::suite
