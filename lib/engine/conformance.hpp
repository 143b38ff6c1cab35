// The checks every solver passes, as a library: `fedbench conform NAME` runs them on any
// registered solver (built in or from a plug-in), and a plug-in's own test calls the command.
// On a small instance of the solver's family (the strongly monotone quadratic game, or the
// quadratic bilevel problem) it checks that the solver is documented, runs, makes progress with
// its defaults, counts what the problem layer served, gives the same bits at 1 and 3 threads,
// when its threads grow mid-run, when its evaluations run beside its rounds and with its client
// state per client instead of per position, and under partial participation at any thread count.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/core_share.hpp"
#include "core/params.hpp"
#include "engine/runner.hpp"

namespace fedbench {

struct ConformanceCheck {
  std::string name;    //!< what was checked
  bool passed = false;
  bool skipped = false;  //!< the solver refuses the setting up front: the check does not apply
  std::string detail;  //!< numbers behind the verdict, or why it failed
};

struct ConformanceRequest {
  std::string solver;
  ParamMap solver_params;   //!< applied in every run (e.g. a step size the solver needs)
  std::string problem;      //!< "" = the small instance of the solver's family
  ParamMap problem_params;  //!< with `problem` only
  std::int64_t rounds = 40;
};

//! How a run in memory is executed: threads, client state per client (not per position), a
//! suite's share of cores it may grow into, a second sink that sees every row first, whether
//! evaluations run beside the rounds.
struct InMemoryRun {
  int threads = 1;
  bool scratch_per_client = false;
  CoreShare* share = nullptr;
  TrajectorySink* also = nullptr;
  EvaluationOverlap overlap = EvaluationOverlap::automatic;
};
//! Prepares and runs `request` on `problem` (built from the request's problem and parameters).
MemoryTrajectory run_in_memory(const RunRequest& request, std::shared_ptr<const Problem> problem,
                               const InMemoryRun& how = {});

//! "" when two runs agree to the bit in every row (counters, metrics) and in their summaries
//! (stop reason and message, rounds, per-client counts, final iterate), else the first
//! difference. Timings and the threads a run ended with are not compared.
std::string bit_difference(const MemoryTrajectory& a, const MemoryTrajectory& b);

//! A sink that frees `cores` of a suite's share when round `at` is recorded, as when the other
//! jobs of a suite run out of runs: from the next round on, the run may grow.
class FreeCoresAt : public TrajectorySink {
 public:
  FreeCoresAt(CoreShare& share, std::int64_t at, int cores) : share_(share), at_(at), cores_(cores) {}
  void begin(const RunHeader&) override {}
  void row(const TrajectoryRow& r) override {
    if (r.round == at_) share_.job_finished(cores_);
  }
  void end(const RunSummary&) override {}

 private:
  CoreShare& share_;
  std::int64_t at_;
  int cores_;
};

//! Runs every check (a run that throws fails its check; nothing else throws but UserError for
//! an unknown solver or problem).
std::vector<ConformanceCheck> check_conformance(const ConformanceRequest& request);

}  // namespace fedbench
