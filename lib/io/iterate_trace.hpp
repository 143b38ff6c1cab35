// `fedbench run --trace-iterates FILE`: the server's iterate z = (x, y) at every recorded row,
// as text ("round z_1 ... z_d", 17 significant digits, so the doubles read back exactly). Used
// to compare a run round by round with an independent transcription of its algorithm.
#pragma once
#include <cstdio>
#include <string>

#include "engine/trajectory.hpp"
#include "io/directory.hpp"

namespace fedbench::io {

class IterateTrace : public TrajectorySink {
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
  //! Flushes and closes; throws WriteError when the data did not reach the file.
  void end(const RunSummary&) override;

 private:
  std::string path_, name_, part_;
  Directory dir_;  // opened once: the .part is written and renamed in the same directory
  std::FILE* file_ = nullptr;
};

}  // namespace fedbench::io
