// Paper experiments as data: results/experiments/NAME.yaml names a tuning suite, the paper's
// selection criterion, report seeds, the figure's axes and the paper's claims. `fedbench
// reproduce NAME` runs the protocol end to end: the tuning grid, the best configuration per
// method (select), the winners on fresh report seeds, the report and the figure, then each
// claim checked on the report runs with the measured numbers.
//
//   name: zhang2024-fig1a
//   title: ...                    # one line
//   reference: ...                # full reference of the paper
//   reproduces: ...               # what figure / table and what it shows
//   substitutes: none             # data or models replaced, and why
//   follows_code: ["participation: S = 16/8 with drop-outs (paper text: 10/5), because ..."]
//   follows_paper: ["Table 2's steps, not the released scripts' 'best' values, because ..."]
//   effort: "..."                 # why the methods' tuning grids differ in size, if they do
//                                 # every place where the authors' released code and the
//                                 # paper's text differ, which one is followed and why
//   time: 4 s                     # measured on 2 cores, full budget
//   suite: ../suites/zhang2024-fig1a.yaml   # relative to this file
//   select: {metric: rel_error, at: "rounds=400"}   # optional: tune on the suite's seeds
//   report_seeds: [1024]          # optional: rerun (the winners) on these seeds
//   baselines: ../suites/x-baselines.yaml   # optional: fixed reference runs (e.g. a problem's
//                                 # no-cleaning setting) run as they are on the report seeds
//   quick: {rounds: 150, seeds: [0, 1, 2], time: 2 s}   # --quick: a reduced budget, the same claims
//   figure: {x: round, y: rel_error, group: "solver,lambda"}   # group: one curve per value
//           # y may list metrics ("test_accuracy,worst_class_accuracy": one row of panels
//           # each); panel: KEY draws one column per value; scale: log (default) | linear
//   claims:
//     - text: ProxSkip-GDA-FL is faster than Local GDA
//       better: {solver: proxskip-gda-fl, than: local-gda, metric: rel_error, at: 150}
//     - text: ProxSkip-GDA-FL reaches the rounding floor
//       below: {solver: proxskip-gda-fl, metric: rel_error, at: 150, value: 1e-25}
//       quick: {at: 100}          # fields replaced under --quick (banded claims)
//     - text: Local GDA is where the paper's curve is
//       within: {solver: local-gda, metric: rel_error, at: 400, value: 0.2, high: 0.6}
//     - text: learned weights land closer to the clean-only baseline than to no cleaning
//       closer: {solver: adafbio, metric: test_accuracy, at: 500, where: {weights: learned},
//                to: adafbio, to_where: {weights: clean}, than: adafbio, than_where: {weights: ones}}
//     - text: at equal communication FedNest is behind (its round is 9 exchanges)
//       better: {solver: fedsvrbgd-fo, than: fednest, metric: upper_value, at: 900, axis: exchanges}
//       statement: fig1         # the paper's sentence this claim checks (see statements)
//   statements:                 # the paper's claim sentences that compare several methods:
//     - id: fig1                # every method named needs a claim with this statement id,
//       text: "FedSVRBGD-FO converges faster than all baselines"    # or a reason why not
//       solver: fedsvrbgd-fo
//       than: [fednest, fedmbo, local-bsgvrm, fedbioacc]
//       not_claimed: {fedbioacc: "..."}     # optional: method -> why it has no claim
//   variants:                   # diagnosis of a failed claim: a changed setting, run on the
//     - name: matched-steps     # report seeds, whose claims test the explanation
//       explains: "FedSVRBGD-FO converges faster than FedBiOAcc"
//       suite: ../suites/x-variant.yaml
//       seeds: [6, 7]           # optional: its own seeds (default: the report seeds)
//       claims: [...]           # checked on the variant's runs together with the report runs
//
// A claim is checked seed by seed (claims.hpp, verdict.hpp): each side's metric at the last
// recorded row with round <= at (or exchanges, bytes up + down, bytes up, or samples <= at with
// `axis`; at the fewer of a counter either side spent by round `at` with `equal`) on every
// report seed, a run that did not end "ok" counting as the worst value, and a sign-test interval
// of the per-seed margin decides holds / contradicted / inconclusive.
// `where: {param: value}` restricts a claim to runs whose problem (else solver) has those
// parameters (`participation: "dropout:16:0.5"` to runs at that participation);
// `than_where` / `to_where` restrict the other side (default: the same `where`; given, they
// replace it: `{}` is every run of that method). `closer`
// passes when the solver's value is nearer the `to` side's than the `than` side's.
//
// Checked before anything runs (validate_experiment, then check_recorded_metrics), each failure
// one UserError "FILE:LINE: claim 'TEXT': ..." at the claim's line: every claim, as written and
// with its quick fields, names methods (solver, than, to) with runs in the suites it reads (the
// tuning and baselines suites; a variant's claims also the variant's suite), where keys that are
// parameters of those problems or of that side's method (or participation), a metric runs record
// (a problem metric or a counter column; then one the suites' problems record, checked on one
// instance per problem configuration), `at` >= 0 and, on the round axis, within the rounds of
// that method's runs (under --quick, quick.rounds: such a claim needs its quick `at`), and for
// `within` value <= high. `select` (metric, at within the tuning rounds) and the figure's y
// metrics are checked likewise, and a key given twice in one map is refused. `reproduce --list`
// makes these checks (all but the instance one) on every file and lists a failing file as
// invalid with its error, beside the others (exit 2).
//
// An experiment this machine cannot run meaningfully is listed with `out_of_scope: REASON`
// and no suite or claims.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "suite/suite.hpp"

namespace fedbench::suite {

struct Claim {
  std::string text;
  enum class Kind { better, below, above, within, closer } kind = Kind::below;
  std::string solver, than, to, metric;
  std::int64_t at = 0;
  double value = 0;   //!< below / above: the threshold; within: the low end
  double high = 0;    //!< within: the high end (a band read off the paper's figure)
  double factor = 1;  //!< better: solver must beat `than` by this factor (min metrics)
  ParamMap where;     //!< problem parameters the runs must have
  ParamMap than_where, to_where;  //!< the same for the `than` / `to` side (default: where)
  //! The counter `at` is read on: "round" (default), "exchanges", "bytes" (up + down),
  //! "bytes_up" or "samples".
  std::string axis = "round";
  //! The counter the paper's sentence is about when it is not rounds ("exchanges", "bytes_up",
  //! "bytes", "samples"; empty: rounds): the claim is then decided at the fewer of it either side
  //! had spent by round `at`, and the per-round reading is shown beside it.
  std::string equal;
  std::string statement;  //!< id of the paper sentence it checks (empty: none)
  //! fedbench's own claim (`origin: fedbench`), not a sentence of the paper: counted apart.
  bool extra = false;
  std::string location;   //!< "FILE:LINE: " of the claim in its file, for messages
};

//! A sentence of the paper that compares one method with several: each compared method must
//! have a claim, or a stated reason why not (checked when the file is read).
struct Statement {
  std::string id, text, solver;
  std::vector<std::string> than;
  std::map<std::string, std::string> not_claimed;  //!< method -> why it has no claim
};

//! A diagnosis: a setting changed from the report runs' (a suite run as it is on the report
//! seeds), with claims that test the explanation of a failed claim.
struct Variant {
  std::string name, explains, suite_path;
  std::vector<std::uint64_t> seeds;  //!< its own seeds (e.g. more of them); empty: the report's
  std::vector<Claim> claims, quick_claims;
};

struct Experiment {
  std::string path, name, title, reference, reproduces, substitutes, time, quick_time;
  //! Where the authors' code and the paper's text differ: the settings that follow each, and why.
  std::vector<std::string> follows_code, follows_paper;
  //! Why the methods' tuning grids differ in size (empty: they must not).
  std::string effort;
  std::string out_of_scope;              //!< non-empty: listed with this reason, never run
  std::string suite_path;                //!< resolved
  std::string baselines_path;            //!< resolved; empty: none
  std::optional<std::string> select_metric, select_at;
  std::string select_location, figure_location;  //!< "FILE:LINE: " of those blocks, for messages
  std::vector<std::uint64_t> report_seeds;
  std::optional<std::int64_t> quick_rounds;
  std::vector<std::uint64_t> quick_seeds, quick_report_seeds;
  std::string figure_x = "round", figure_y, figure_group = "solver", figure_panel;
  bool figure_linear = false;
  std::vector<Claim> claims, quick_claims;  //!< quick_claims: the claims with --quick fields
  std::vector<Statement> statements;
  std::vector<Variant> variants;
};

//! Reads and checks an experiment file; UserError "FILE:LINE: ..." on a bad one.
Experiment load_experiment(const std::string& path);
//! Every experiment file under `dir` (sorted by name).
std::vector<Experiment> load_experiments(const std::string& dir);

//! Checks an experiment against the suites its claims read, loaded as `reproduce` loads them
//! (full and --quick budgets): each claim's solvers, `where` keys, metric and `at`, the select
//! criterion and the figure's metrics; UserError "FILE:LINE: claim 'TEXT': ..." at the first
//! bad one. Builds no problem instance: cheap enough for every file of `reproduce --list`.
void validate_experiment(const Experiment& e);
//! The metrics of the claims, the select criterion and the figure against the columns the
//! suites' problems record, one instance built per problem configuration (one that cannot be
//! built here is left to its runs to report); UserError as validate_experiment.
void check_recorded_metrics(const Experiment& e);

//! The tuning effort per method: the most configurations (settings x participation) it is
//! tuned over at one problem point of the tuning suite; empty without `select`.
std::map<std::string, std::size_t> tuning_effort(const Experiment& e);

//! One file of an experiments directory: read and validated, or the one-line reason why not.
struct ListedExperiment {
  std::string path;
  std::optional<Experiment> experiment;  //!< empty: `error` says what is wrong
  std::string error;
};
//! Every experiment file under `dir` (sorted by file name), each read and validated on its own:
//! a malformed file is listed with its error and does not hide the others.
std::vector<ListedExperiment> list_experiments(const std::string& dir);


}  // namespace fedbench::suite
