// The protocol of `fedbench reproduce`, as one function: an experiment's tuning grid, the best
// configuration per method (select), the winners rerun on the report seeds, the fixed
// baselines beside them, the claims checked on the report runs, each diagnosis variant run and
// its claims checked, then the figure and the page (drawn by the caller). The command line
// only parses options and prints what this returns.
#pragma once
#include <functional>
#include <string>
#include <vector>

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
  int passed = 0, failed = 0;
};

//! Runs `e` end to end (resuming runs already in `options.output`), writes claims.txt there and
//! returns the verdict; UserError before any run for an experiment that is out of scope, fails
//! validate_experiment or check_recorded_metrics, or whose tuning would choose on too few seeds.
ReproduceOutcome reproduce(const Experiment& e, const ReproduceOptions& options);

}  // namespace fedbench::suite
