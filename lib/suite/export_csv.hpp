// `fedbench export RESULTS --csv`: every finished run of a results directory as one long
// table, a row per recorded round, that pandas reads directly (pd.read_csv).
#pragma once
#include <ostream>
#include <string>

namespace fedbench::suite {

//! Columns: id, status, problem, problem.<param>..., solver, solver.<param>..., seed, then
//! every trajectory column (round, counters, wall_time, metrics). Parameters and metrics are
//! the union over runs; a run without one leaves the cell empty. Returns rows written.
long long export_csv(const std::string& results_dir, std::ostream& out);

}  // namespace fedbench::suite
