// `fedbench check SUITE.yaml --reference DIR`: CI regression of convergence curves. Each run
// of the suite, freshly computed, is compared with the stored reference run of the same id:
// exactly (every column but wall_time, bit for bit, and the status) or, for the metrics named
// in `tolerances`, within a band in log10 space (counters stay exact).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/trajectory_file.hpp"
#include "suite/suite.hpp"

namespace fedbench::suite {

//! metric -> allowed |log10(a) - log10(b)|; the key "*" applies to every metric.
using Tolerances = std::map<std::string, double>;

//! Parses "rel_error=0.1" / "*=0.05" items; throws UserError.
Tolerances parse_tolerances(const std::vector<std::string>& items);

//! One column of a run against its reference, at the row where they differ most: by
//! |log10(fresh / reference)| for a banded column, by |fresh - reference| for an exact one (a
//! NaN against a number, or a sign a log cannot compare, counts as infinitely far).
struct CurveVerdict {
  std::string column;
  bool passed = true;
  std::optional<double> band_decades;  //!< nullopt: compared exactly
  double round = 0, fresh = 0, reference = 0;
  double deviation = 0;  //!< |fresh - reference|, in the column's units
  double decades = 0;    //!< |log10(fresh / reference)|; NaN where no log compares them
  double band_low = 0, band_high = 0;  //!< where `fresh` had to lie, in the column's units
  //! Where the curves part: the first row outside the band (or not equal), when one is.
  std::optional<double> first_round;
  double first_fresh = 0, first_reference = 0;
  std::size_t rows_outside = 0;
  double final_fresh = 0, final_reference = 0;  //!< the last row of each
  //! decades / band_decades: how many band widths apart at the worst row (banded columns).
  double band_multiple() const;
};

//! A run against its reference: a problem that stops the comparison (another status, other
//! columns or rows, no or a corrupt reference) or one verdict per compared column.
struct RunVerdict {
  std::string id, solver;
  std::uint64_t seed = 0;
  std::string problem;  //!< empty when the columns were compared
  bool missing_reference = false;
  bool stale_reference = false;
  std::vector<CurveVerdict> curves;
  bool passed() const;
};

//! Compares two runs column by column; `verdict.problem` set when they cannot be compared.
RunVerdict compare_runs(const io::StoredRun& fresh, const io::StoredRun& reference,
                        const Tolerances& tolerances);

struct CheckReport {
  std::vector<RunVerdict> runs;
  std::vector<std::string> references_without_run;  //!< file names in the reference directory
  int passed = 0, failed = 0, stale_references = 0;
  std::string first_stale;  //!< "ID: why" of the first stale reference
};

//! Compares every run of `suite` found in `fresh_dir` with `reference_dir`.
CheckReport check_against_reference(const Suite& suite, const std::string& fresh_dir,
                                    const std::string& reference_dir, const Tolerances& tolerances);

//! Run files in `reference_dir` that are not runs of `suite` (renamed parameters, removed
//! solvers, or another suite's references).
std::vector<std::string> foreign_references(const Suite& suite, const std::string& reference_dir);

//! Replaces the references of the suite's runs by the fresh files (each copy atomic); with
//! `prune`, also removes the foreign references (only then: they may be another suite's).
int update_references(const Suite& suite, const std::string& fresh_dir,
                      const std::string& reference_dir, bool prune);

}  // namespace fedbench::suite
