// What a run produces: a header (configuration, constants, column names), rows recorded on
// the evaluation schedule, and a closing summary. Sinks (in-memory, HDF5, progress) receive
// them; the engine never knows which.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/provenance.hpp"
#include "engine/solver_diagnostics.hpp"
#include "engine/state_visitor.hpp"
#include "problem/metric_names.hpp"
#include "problem/minimax_problem.hpp"
#include "problem/oracle_counts.hpp"

namespace fedbench {

class CoreShare;

//! How a run ended. status is "ok" (a budget or target reached), "diverged", "error",
//! "timeout" (past its per-run time limit: stuck or too slow, not a result) or "crashed" (its
//! process ended without a result: a plug-in that segfaulted, aborted or exited).
enum class StopReason { max_rounds, oracle_budget, comm_budget, target_reached, time_limit,
                        diverged, error, timeout, crashed };
std::string to_string(StopReason r);
StopReason stop_reason_from_string(const std::string& s);
std::string status_of(StopReason r);
//! A status that is no result of the method (error, timeout, crashed): counted as failed.
inline bool failed_status(const std::string& status) {
  return status == "error" || status == "timeout" || status == "crashed";
}

//! Cumulative communication through the message layer.
struct CommCounts {
  std::int64_t exchanges = 0;    //!< server->clients->server round trips
  std::int64_t messages_up = 0;
  std::int64_t messages_down = 0;
  std::int64_t floats_up = 0;
  std::int64_t floats_down = 0;
  std::int64_t bytes_up = 0;
  std::int64_t bytes_down = 0;
};

struct TrajectoryRow {
  std::int64_t round = 0;  //!< rounds completed when the row was taken (0 = the start point)
  OracleCounts oracle;     //!< cumulative, summed over clients
  CommCounts comm;         //!< cumulative
  double wall_time = 0;    //!< seconds of solver work so far, evaluation excluded
  double eval_time = 0;    //!< seconds of metric evaluation so far, this row's included
  std::vector<double> metrics;  //!< in RunHeader::metric_names order
};

//! What a metric column means (from problem/metric_names.hpp), carried into every output.
struct MetricMeta {
  Direction direction = Direction::min;  //!< which way is better
  std::string description, unit;
};

//! Where a run ran: recorded with every run so that timings can be compared.
struct RunEnvironment {
  std::string cpu_model, eigen_version, hdf5_version, compiler;
  std::int64_t cores = 0, threads = 1, mpi_ranks = 1;
  std::string isa = "portable";  //!< the build's instruction set (files before it: portable)
};

//! Whether a run's evaluations may run beside its rounds (engine/background_evaluation.hpp).
//! automatic: when the rounds leave threads of the run idle and evaluations are costly; always:
//! every row but the last (on one thread of its own when none is idle; tests); never: the loop
//! waits for every evaluation. Results are the same bits in every mode.
enum class EvaluationOverlap { automatic, always, never };

//! What the caller knows of a run beyond its configuration.
struct RunMeta {
  std::string command_line;
  //! The identity text a suite's run id hashes ("" for a run outside a suite): stored so that a
  //! file is recognised as the run its name stands for, and a changed byte is noticed.
  std::string identity;
  std::vector<Constant> constants_read;  //!< by the theory presets: recorded beside the eager ones
  double setup_time = 0;  //!< seconds to build the instance and prepare the run
  int mpi_ranks = 1;
  //! A suite's spare cores, which the run takes between rounds (not recorded; null: the run
  //! keeps the threads it started with).
  CoreShare* core_share = nullptr;
  //! Rounds completed so far, stored after every round for a progress line to read (null: none).
  std::atomic<std::int64_t>* rounds_done = nullptr;
  EvaluationOverlap overlap = EvaluationOverlap::automatic;
  //! The solver's own metric columns, after the problem's (none for most solvers).
  SolverDiagnostics diagnostics;
  //! Wall-clock seconds after which the run ends with status "timeout" (checked between
  //! rounds; not part of the run: a run that ends in time has the same bits either way).
  std::optional<double> run_timeout;
};

struct RunHeader {
  std::string problem, solver;
  std::map<std::string, std::string> problem_params, solver_params;
  std::string config_text;    //!< canonical resolved configuration (RunConfig::to_text)
  std::string identity;       //!< what the run's id hashes (suite runs; "" otherwise)
  std::string command_line;
  std::uint64_t seed = 0;
  std::map<std::string, double> constants;
  std::map<std::string, std::string> constant_docs;
  std::vector<std::string> metric_names;
  std::vector<MetricMeta> metric_meta;  //!< aligned with metric_names
  std::string primary_metric;  //!< the metric that judges the run (divergence, selection)
  std::string problem_kind;    //!< "minimax" or "bilevel"
  int num_clients = 0;
  std::int64_t dim = 0, dim_x = 0;
  double setup_time = 0;
  RunEnvironment env;
  std::vector<std::int64_t> client_samples;  //!< m_i per client
  std::optional<ClientLabels> client_labels;  //!< label histogram per client, if labelled
  RunProvenance provenance;  //!< the code and data that compute it
};

struct RunSummary {
  StopReason reason = StopReason::max_rounds;
  std::string message;            //!< human-readable detail ("rel_error = nan at round 12")
  std::int64_t rounds = 0;
  double wall_time = 0;
  double eval_time = 0;                  //!< seconds of metric evaluation in all
  int threads_at_end = 1;                //!< the run's threads when it ended (it may have grown)
  std::vector<OracleCounts> per_client;  //!< final per-client oracle totals
  //! The last iterate's blocks, and y*(x) at its x for bilevel problems (exact, when known).
  Vec final_x, final_y;
  std::optional<Vec> final_y_star;
  std::string status() const { return status_of(reason); }
};

//! An integer column of the trajectory (round and the cumulative counters), in file order: the
//! one list that the run-file writer and reader and the CSV/JSON sinks all follow.
struct CounterColumn {
  const char* name;
  std::int64_t& (*field)(TrajectoryRow&);  //!< the row's value (a plain function: no captures)
  const char* description;
  const char* unit;
  std::int64_t value(const TrajectoryRow& r) const { return field(const_cast<TrajectoryRow&>(r)); }
};
const std::vector<CounterColumn>& counter_columns();

//! A whole run as the engine emits it, and as a run file reads back.
struct RunRecord {
  RunHeader header;
  std::vector<TrajectoryRow> rows;
  RunSummary summary;
};

class TrajectorySink {
 public:
  virtual ~TrajectorySink() = default;
  virtual void begin(const RunHeader& header) = 0;
  virtual void row(const TrajectoryRow& row) = 0;
  virtual void end(const RunSummary& summary) = 0;
  //! The server's iterate z = (x, y) at a recorded row, just after row(): only sinks that
  //! trace iterates (reference transcriptions compare them round by round) look at it.
  virtual void iterate(std::int64_t /*round*/, const Vec& /*model*/) {}
  //! Whether this sink reads the solver's lasting states (control variates, trackers, ...):
  //! the engine visits them only when some sink does.
  virtual bool wants_states() const { return false; }
  //! The solver's states at a recorded row, just after iterate(): `states.visit_states(...)`
  //! reads them then (a sink that wants them).
  virtual void states(std::int64_t /*round*/, const SolverStates& /*states*/) {}
};

//! Keeps everything in memory (tests, benchmarks, the CLI's final summary).
class MemoryTrajectory : public TrajectorySink {
 public:
  void begin(const RunHeader& h) override { header = h; rows.clear(); }
  void row(const TrajectoryRow& r) override { rows.push_back(r); }
  void end(const RunSummary& s) override { summary = s; }
  //! Column of a metric by name (throws if unknown).
  std::vector<double> metric(const std::string& name) const;

  RunHeader header;
  std::vector<TrajectoryRow> rows;
  RunSummary summary;
};

//! Feeds a recorded run to a sink, as the engine did live.
void replay(const RunRecord& record, TrajectorySink& sink);

//! Forwards to several sinks in order.
class TeeSink : public TrajectorySink {
 public:
  explicit TeeSink(std::vector<TrajectorySink*> sinks) : sinks_(std::move(sinks)) {}
  void begin(const RunHeader& h) override { for (auto* s : sinks_) s->begin(h); }
  void row(const TrajectoryRow& r) override { for (auto* s : sinks_) s->row(r); }
  void end(const RunSummary& s) override { for (auto* k : sinks_) k->end(s); }
  void iterate(std::int64_t round, const Vec& z) override { for (auto* k : sinks_) k->iterate(round, z); }
  bool wants_states() const override {
    for (auto* k : sinks_)
      if (k->wants_states()) return true;
    return false;
  }
  void states(std::int64_t round, const SolverStates& states) override {
    for (auto* k : sinks_)
      if (k->wants_states()) k->states(round, states);
  }

 private:
  std::vector<TrajectorySink*> sinks_;
};

}  // namespace fedbench
