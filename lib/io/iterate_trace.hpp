// `fedbench run --trace-iterates FILE`: the server's iterate z = (x, y) at every recorded row,
// as text ("round z_1 ... z_d", 17 significant digits, so the doubles read back exactly), and
// after each such line the solver's lasting states at that row (engine/state_visitor.hpp), one
// line each: "state ROUND NAME v_1 ... v_k" for the server's, "state ROUND c/NAME CLIENT v_1 ...
// v_k" for a client's (clients in id order, those set up so far). Used to compare a run round by
// round, state by state, with an independent transcription of its algorithm
// (tests/reference/README.md).
#pragma once
#include <cstdio>
#include <string>

#include "engine/trajectory.hpp"
#include "io/directory.hpp"

namespace fedbench::io {

class IterateTrace : public TrajectorySink, private StateSink {
 public:
  //! Creates PATH.part in PATH's directory (through one handle on it, never through a link)
  //! and publishes it as PATH at the end; a link, device, FIFO or directory at PATH is refused
  //! before the run starts. UserError / WriteError naming the file.
  explicit IterateTrace(const std::string& path);
  ~IterateTrace() override;
  IterateTrace(const IterateTrace&) = delete;
  IterateTrace& operator=(const IterateTrace&) = delete;

  void begin(const RunHeader& header) override;
  void row(const TrajectoryRow&) override {}
  void iterate(std::int64_t round, const Vec& model) override;
  bool wants_states() const override { return true; }
  void states(std::int64_t round, const SolverStates& states) override;
  //! Flushes and closes; throws WriteError when the data did not reach the file.
  void end(const RunSummary&) override;

 private:
  void state(std::string_view name, int client, std::span<const double> value) override;

  std::int64_t round_ = 0;  // of the states being written
  std::string path_, name_, part_;
  Directory dir_;  // opened once: the .part is written and renamed in the same directory
  std::FILE* file_ = nullptr;
};

}  // namespace fedbench::io
