// The protocol of `fedbench reproduce`, as one function: an experiment's tuning grid, the best
// configuration per method (select), the winners rerun on the report seeds, the fixed
// baselines beside them, the claims checked on the report runs, each diagnosis variant run and
// its claims checked, then the figure and the page (drawn by the caller). The command line
// only parses options and prints what this returns.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "experiment/claims.hpp"
#include "experiment/experiment.hpp"
#include "suite/suite_runner.hpp"

namespace fedbench::suite {

struct ReproduceOutcome;

struct ReproduceOptions {
  bool quick = false;   //!< the experiment's reduced budget (its `quick:` fields)
  std::string output;   //!< directory of tuning/, report/, variants/, winners-K.yaml, claims.txt
  SuiteOptions suite;   //!< jobs, quiet, the command line recorded in each run
  //! Draws the figure and the report page (the claims' verdicts with the report runs of
  //! outcome.report_dir) into `output`, after the claims are checked; empty: none. Kept out of
  //! the library: it runs python.
  std::function<void(const Experiment&, const ReproduceOutcome& outcome)> draw;
  //! Stage messages ("tuning grid (...)"); empty: none.
  std::function<void(const std::string&)> note;
};

struct ReproduceOutcome {
  std::string report_dir;                //!< the runs the claims are checked on
  std::vector<ClaimResult> claims;       //!< the paper's claims, in file order
  std::string diagnosis;                 //!< the variants' claim lines (never decide the verdict)
  std::vector<std::pair<std::string, std::vector<ClaimResult>>> variants;  //!< name -> its claims
  std::vector<std::string> variant_dirs;  //!< each variant's runs (read with report_dir)
  std::vector<std::uint64_t> tuning_seeds, report_seeds;
  bool quick = false;
  int holds = 0, contradicted = 0, inconclusive = 0;
  long long runs = 0;         //!< of every stage
  long long runs_reused = 0;  //!< of them: found finished (here, or copied from a sibling directory)
  //! "N hold, N contradicted, N inconclusive" (at the quick budget: "... not decided ...").
  std::string tally() const;
};

//! Runs `e` end to end (resuming runs already in `options.output`), writes claims.txt there and
//! returns the verdicts; UserError before any run for an experiment that is out of scope or
//! fails validate_experiment (its seed rules included) or check_recorded_metrics; WriteError,
//! and no verdict, when a stage's runs could not all be written.
ReproduceOutcome reproduce(const Experiment& e, const ReproduceOptions& options);

}  // namespace fedbench::suite
