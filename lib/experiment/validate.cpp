// An experiment checked against the suites its claims read, before anything runs. Each check
// here is one a claim would otherwise fail after hours of runs (a solver or parameter the runs
// lack reads as "no runs", a metric they lack stops the claims) or pass silently (a round past
// the budget reads the last row, an inverted band can never hold).
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/solver.hpp"
#include "engine/trajectory.hpp"
#include "experiment/experiment.hpp"
#include "problem/metric_names.hpp"
#include "problem/problem_registry.hpp"
#include "results/select.hpp"

namespace fedbench::suite {
namespace {

// What the runs a claim reads offer: the suite files they come from, their solvers (with the
// most rounds any of its runs has), their problems and each problem configuration once.
struct Scope {
  std::vector<std::string> files;
  std::map<std::string, std::int64_t> rounds;  // solver -> largest round budget of its runs
  std::set<std::string> problems;
  std::map<std::string, std::pair<std::string, ParamMap>> points;  // key -> (problem, params)
  std::set<std::uint64_t> seeds;
  //! (solver, problem point) -> the configurations tried there (settings and participation).
  std::map<std::pair<std::string, std::string>, std::set<std::string>> configurations;

  void add(const std::string& path, const SuiteOverrides& overrides) {
    files.push_back(path);
    for (const auto& run : load_suite(path, overrides).runs) {
      const RunRequest& r = run.request;
      seeds.insert(r.seed);
      std::string point, config = r.participation.to_text();
      for (const auto& [k, v] : r.problem_params) point += k + "=" + v + " ";
      for (const auto& [k, v] : r.solver_params) config += " " + k + "=" + v;
      configurations[{r.solver, point}].insert(config);
      auto& most = rounds[r.solver];
      most = std::max(most, r.budget.rounds);
      problems.insert(r.problem);
      std::string key = r.problem;
      for (const auto& [k, v] : problem_registry().get(r.problem).resolved(r.problem_params)) key += "\n" + k + "=" + v;
      points.emplace(key, std::pair{r.problem, r.problem_params});
    }
  }
  std::vector<std::string> solvers() const {
    std::vector<std::string> out;
    for (const auto& [s, n] : rounds) out.push_back(s);
    return out;
  }
};

// The suites `reproduce` runs, loaded with the overrides it uses: the tuning suite at the
// quick rounds under --quick, the baselines as they are (their report runs sit beside the
// tuning suite's winners), each variant at the quick rounds.
struct Scopes {
  Scope tuning, report;          // report: tuning + baselines, what the claims read
  std::vector<Scope> variants;   // report + the variant's runs, what its claims read
};

Scopes load_scopes(const Experiment& e, bool quick) {
  SuiteOverrides budget;
  if (quick) budget.rounds = e.quick_rounds;
  Scopes s;
  SuiteOverrides tuning = budget;
  if (quick) tuning.seeds = e.quick_seeds;
  s.tuning.add(e.suite_path, tuning);
  s.report = s.tuning;
  if (!e.baselines_path.empty()) s.report.add(e.baselines_path, {});
  for (const auto& v : e.variants) {
    s.variants.push_back(s.report);
    s.variants.back().add(v.suite_path, budget);
  }
  return s;
}

// The columns every run records whatever its problem: the counters (round, oracle calls,
// samples, exchanges, bytes) and the solver's and the evaluation's seconds.
std::vector<std::string> run_columns() {
  std::vector<std::string> out;
  for (const auto& c : counter_columns()) out.push_back(c.name);
  out.insert(out.end(), {"wall_time", "eval_time"});
  return out;
}

bool is_run_column(const std::string& name) {
  const auto columns = run_columns();
  return std::find(columns.begin(), columns.end(), name) != columns.end();
}

// Refuses a name that no run records (a typo), with `prefix` and the valid names.
void check_metric_name(const std::string& metric, const std::string& prefix) {
  if (metric_info(metric) || is_run_column(metric)) return;
  std::vector<std::string> metrics;
  for (const auto& info : kMetricTable) metrics.emplace_back(info.name);
  const auto columns = run_columns();
  std::vector<std::string> valid = metrics;
  valid.insert(valid.end(), columns.begin(), columns.end());
  throw UserError(prefix + "metric '" + metric + "' is not a column of any run; use a problem's metric (" +
                  join(metrics, ", ") + ") or a counter (" + join(columns, ", ") + ")" + did_you_mean(metric, valid));
}

// The parameter names a run could be matched on: `participation`, every problem parameter of
// the scope, every parameter of the solver (aliases set others and are never recorded).
std::vector<std::string> where_keys(const Scope& scope, const std::string& solver) {
  std::set<std::string> keys = {"participation"};
  const auto add = [&](const std::vector<ParamSpec>& specs) {
    for (const auto& spec : specs)
      if (spec.type != ParamType::alias) keys.insert(spec.name);
  };
  for (const auto& p : scope.problems) add(problem_registry().get(p).params);
  add(solver_registry().get(solver).params);
  return {keys.begin(), keys.end()};
}

// One side of a claim (solver, than or to, with its where): its solver must have runs in the
// scope, each where key must be a parameter those runs record, and `at` on rounds must be
// within their budget.
void check_side(const Claim& c, const Scope& scope, const std::string& role, const std::string& solver,
                const ParamMap& where, const std::string& prefix, bool quick) {
  const auto rounds = scope.rounds.find(solver);
  if (rounds == scope.rounds.end()) {
    const auto valid = scope.solvers();
    throw UserError(prefix + role + " '" + solver + "' has no runs in " + join(scope.files, ", ") +
                    "; use one of " + join(valid, ", ") + did_you_mean(solver, valid));
  }
  const auto keys = where_keys(scope, solver);
  for (const auto& [k, v] : where)
    if (!std::binary_search(keys.begin(), keys.end(), k))
      throw UserError(prefix + (role == "solver" ? "where" : role + "_where") + " key '" + k +
                      "' is not a parameter of the problems or of " + solver + "; use one of " + join(keys, ", ") +
                      did_you_mean(k, keys));
  if (c.axis == "round" && c.at > rounds->second)
    throw UserError(prefix + "at " + std::to_string(c.at) + " is past the " + std::to_string(rounds->second) +
                    " rounds of " + solver + "'s runs; use at most " + std::to_string(rounds->second) +
                    (quick ? " (the claim's `quick: {at: N}` under --quick)" : ""));
}

void check_claim(const Claim& c, const Scope& scope, bool quick) {
  const std::string prefix = c.location + "claim '" + c.text + "'" + (quick ? " (--quick)" : "") + ": ";
  if (c.at < 0) throw UserError(prefix + "at " + std::to_string(c.at) + " is negative; use a count >= 0");
  if (c.kind == Claim::Kind::within && c.value > c.high)
    throw UserError(prefix + "the band is inverted (value " + format_real(c.value) + " > high " +
                    format_real(c.high) + "); value is the low end, high the high end");
  check_metric_name(c.metric, prefix);
  check_side(c, scope, "solver", c.solver, c.where, prefix, quick);
  if (c.kind == Claim::Kind::better || c.kind == Claim::Kind::closer)
    check_side(c, scope, "than", c.than, c.than_where, prefix, quick);
  if (c.kind == Claim::Kind::closer) check_side(c, scope, "to", c.to, c.to_where, prefix, quick);
}

// The claims and the variants' claims as written, or with their --quick fields on the
// suites at the quick budget.
void check_all_claims(const Experiment& e, const Scopes& s, bool quick) {
  for (const auto& c : quick ? e.quick_claims : e.claims) check_claim(c, s.report, quick);
  for (std::size_t k = 0; k < e.variants.size(); ++k)
    for (const auto& c : quick ? e.variants[k].quick_claims : e.variants[k].claims)
      check_claim(c, s.variants[k], quick);
}

// The select criterion: a known metric, a budget the tuning runs reach (the full budget:
// under --quick the same criterion reads the shorter runs' last rows, by design).
void check_select(const Experiment& e, const Scope& tuning) {
  if (!e.select_metric) return;
  const std::string prefix = e.select_location + "select: ";
  check_metric_name(*e.select_metric, prefix);
  SelectCriterion criterion;
  try {
    criterion = SelectCriterion::parse(*e.select_metric, e.select_at.value_or(""));
  } catch (const UserError& error) {
    throw UserError(prefix + "at: " + error.what());
  }
  if (criterion.axis != SelectCriterion::Axis::rounds) return;
  for (const auto& [solver, rounds] : tuning.rounds)
    if (criterion.budget > static_cast<double>(rounds))
      throw UserError(prefix + "at rounds=" + format_real(criterion.budget) + " is past the " +
                      std::to_string(rounds) + " rounds of " + solver + "'s tuning runs; use at most rounds=" +
                      std::to_string(rounds));
}

std::vector<std::string> figure_metrics(const Experiment& e) {
  std::vector<std::string> out;
  for (const auto& m : split(e.figure_y, ','))
    if (!m.empty()) out.push_back(m);
  return out;
}

// Metric columns per problem configuration, each instance built once.
class RecordedMetrics {
 public:
  // The metrics the problems of `scope` record; nothing when one of them cannot be built here
  // (its metrics are unknown, and the run says why in its own words, e.g. missing data).
  std::optional<std::set<std::string>> of(const Scope& scope) {
    std::set<std::string> out;
    for (const auto& [key, point] : scope.points) {
      auto it = cache_.find(key);
      if (it == cache_.end()) it = cache_.emplace(key, build(point.first, point.second)).first;
      if (!it->second) return std::nullopt;
      out.insert(it->second->begin(), it->second->end());
    }
    return out;
  }

 private:
  static std::optional<std::vector<std::string>> build(const std::string& problem, const ParamMap& params) {
    try {
      return make_problem(problem, params)->metric_names();
    } catch (const UserError&) {
      return std::nullopt;
    }
  }
  std::map<std::string, std::optional<std::vector<std::string>>> cache_;
};

void check_recorded(const std::string& metric, const std::optional<std::set<std::string>>& recorded,
                    const Scope& scope, const std::string& prefix) {
  if (!recorded || recorded->count(metric) || is_run_column(metric)) return;
  const std::vector<std::string> valid(recorded->begin(), recorded->end());
  throw UserError(prefix + "metric '" + metric + "' is not recorded by the problems of " + join(scope.files, ", ") +
                  "; use one of " + join(valid, ", ") + did_you_mean(metric, valid));
}

void check_claims_recorded(const std::vector<Claim>& claims, const Scope& scope, RecordedMetrics& metrics) {
  if (claims.empty()) return;
  const auto recorded = metrics.of(scope);
  for (const auto& c : claims) check_recorded(c.metric, recorded, scope, c.location + "claim '" + c.text + "': ");
}

std::string seed_list(const std::set<std::uint64_t>& seeds) {
  std::vector<std::string> out;
  for (auto s : seeds) out.push_back(std::to_string(s));
  return "[" + join(out, ", ") + "]";
}

// Seeds that tune never report: a winner's score on its tuning seeds is biased by its
// selection, so the report seeds (and every variant's) must be fresh, and a winner picked on
// fewer than three seeds is picked by one seed's luck. The same rules under --quick.
void check_seed_rules(const Experiment& e, const Scope& tuning, bool quick) {
  if (!e.select_metric) return;  // no tuning: the suite's own seeds are the report seeds
  const std::string budget = quick ? " (--quick: quick.seeds)" : "";
  const std::string at = e.select_location;
  if (tuning.seeds.size() < 3)
    throw UserError(at + "select tunes on " + std::to_string(tuning.seeds.size()) + " seed" +
                    (tuning.seeds.size() == 1 ? "" : "s") + " of " + e.suite_path + budget +
                    "; give the tuning at least 3 seeds");
  const auto& report = quick && !e.quick_report_seeds.empty() ? e.quick_report_seeds : e.report_seeds;
  if (report.empty())
    throw UserError(at + "select picks winners but the file has no report_seeds" + (quick ? " for --quick" : "") +
                    "; give fresh seeds to rerun the winners on");
  const auto overlap = [&](const std::vector<std::uint64_t>& seeds, const std::string& what) {
    std::set<std::uint64_t> common;
    for (auto s : seeds)
      if (tuning.seeds.count(s)) common.insert(s);
    if (!common.empty())
      throw UserError(at + what + " share seeds " + seed_list(common) + " with the tuning seeds " +
                      seed_list(tuning.seeds) + budget + "; report on seeds the tuning does not use");
  };
  overlap(report, quick ? "the quick report seeds" : "report_seeds");
  for (const auto& v : e.variants) overlap(v.seeds.empty() ? report : v.seeds, "variant " + v.name + "'s seeds");
}

}  // namespace

namespace {

// The most configurations each method is tuned over at one problem point of `tuning`.
std::map<std::string, std::size_t> effort_of(const Scope& tuning) {
  std::map<std::string, std::size_t> out;
  for (const auto& [key, configs] : tuning.configurations)
    out[key.first] = std::max(out[key.first], configs.size());
  return out;
}

// Every method tuned over as many configurations as every other, or the file says why not.
void check_effort(const Experiment& e, const Scope& tuning) {
  if (!e.select_metric) return;
  const auto effort = effort_of(tuning);
  std::set<std::size_t> sizes;
  for (const auto& [solver, n] : effort) sizes.insert(n);
  if (sizes.size() <= 1 || !e.effort.empty()) return;
  std::vector<std::string> listed;
  for (const auto& [solver, n] : effort) listed.push_back(solver + " " + std::to_string(n));
  throw UserError(e.select_location + "select tunes the methods over grids of different sizes (" + join(listed, ", ") +
                  " configurations); give every method the same number or say why under effort:");
}

}  // namespace

std::map<std::string, std::size_t> tuning_effort(const Experiment& e) {
  if (!e.out_of_scope.empty() || !e.select_metric) return {};
  Scope tuning;
  tuning.add(e.suite_path, {});
  return effort_of(tuning);
}

void validate_experiment(const Experiment& e) {
  if (!e.out_of_scope.empty()) return;  // nothing runs
  const Scopes full = load_scopes(e, false);
  const Scopes quick = load_scopes(e, true);
  check_all_claims(e, full, false);
  check_all_claims(e, quick, true);
  check_select(e, full.tuning);
  check_seed_rules(e, full.tuning, false);
  check_seed_rules(e, quick.tuning, true);
  check_effort(e, full.tuning);
  for (const auto& m : figure_metrics(e)) check_metric_name(m, e.figure_location + "figure y: ");
}

void check_recorded_metrics(const Experiment& e) {
  if (!e.out_of_scope.empty()) return;
  // A budget changes no column: the full-budget suites answer for --quick too.
  const Scopes s = load_scopes(e, false);
  RecordedMetrics metrics;
  check_claims_recorded(e.claims, s.report, metrics);
  for (std::size_t k = 0; k < e.variants.size(); ++k) check_claims_recorded(e.variants[k].claims, s.variants[k], metrics);
  if (e.select_metric)
    check_recorded(*e.select_metric, metrics.of(s.tuning), s.tuning, e.select_location + "select: ");
  const auto figure = figure_metrics(e);
  if (figure.empty()) return;
  const auto recorded = metrics.of(s.report);
  for (const auto& m : figure) check_recorded(m, recorded, s.report, e.figure_location + "figure y: ");
}

}  // namespace fedbench::suite
