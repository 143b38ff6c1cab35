#include "results/check.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/screen/run_file_screen.hpp"
#include "results/results_store.hpp"

namespace fedbench::suite {

namespace fs = std::filesystem;

Tolerances parse_tolerances(const std::vector<std::string>& items) {
  Tolerances t;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    double v = 0;
    if (eq == std::string::npos || eq == 0 || !parse_real(item.substr(eq + 1), v) || v < 0)
      throw UserError("tolerance '" + item + "' is not of the form METRIC=BAND (BAND >= 0, in "
                      "decades; METRIC may be *), e.g. rel_error=0.1");
    t[item.substr(0, eq)] = v;
  }
  return t;
}

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::optional<double> band_for(const Tolerances& t, const std::string& column) {
  if (auto it = t.find(column); it != t.end()) return it->second;
  if (auto it = t.find("*"); it != t.end()) return it->second;
  return std::nullopt;
}

bool within_band(double a, double b, double band) {
  if (same_bits(a, b) || (std::isnan(a) && std::isnan(b))) return true;
  if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b)) return false;
  return std::fabs(std::log10(a) - std::log10(b)) <= band;
}

// Timings differ by nature between runs; everything else must match.
bool is_time_column(const std::string& name) { return name == "wall_time" || name == "eval_time"; }

std::vector<std::string> compared_columns(const io::StoredRun& run) {
  std::vector<std::string> out;
  for (const auto& name : run.column_names)
    if (!is_time_column(name)) out.push_back(name);
  return out;
}

// How far apart two values are in the measure the comparison uses, consistent with its
// verdict (0 only where it accepts): log distance for a banded column, absolute for an exact
// one; a pair no log compares, or a NaN against a number, is infinitely far.
double distance(double a, double b, bool banded) {
  if (same_bits(a, b)) return 0;
  if (banded) {
    if (std::isnan(a) && std::isnan(b)) return 0;
    if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b)) return INFINITY;
    return std::fabs(std::log10(a) - std::log10(b));
  }
  const double d = std::fabs(a - b);
  if (std::isnan(d)) return INFINITY;
  return d > 0 ? d : std::numeric_limits<double>::denorm_min();  // +0 against -0: other bits
}

CurveVerdict compare_column(const std::string& name, const std::vector<double>& fresh,
                            const std::vector<double>& ref, const std::vector<double>& rounds,
                            std::optional<double> band) {
  CurveVerdict v;
  v.column = name;
  v.band_decades = band;
  std::size_t worst = 0;
  double worst_distance = -1;
  for (std::size_t r = 0; r < fresh.size(); ++r) {
    const bool ok = band ? within_band(fresh[r], ref[r], *band) : same_bits(fresh[r], ref[r]);
    if (!ok) {
      if (v.passed) {
        v.first_round = rounds[r];
        v.first_fresh = fresh[r];
        v.first_reference = ref[r];
      }
      v.passed = false;
      ++v.rows_outside;
    }
    if (const double d = distance(fresh[r], ref[r], band.has_value()); d > worst_distance) {
      worst_distance = d;
      worst = r;
    }
  }
  if (fresh.empty()) return v;
  v.final_fresh = fresh.back();
  v.final_reference = ref.back();
  v.round = rounds[worst];
  v.fresh = fresh[worst];
  v.reference = ref[worst];
  v.deviation = std::fabs(v.fresh - v.reference);
  v.decades = same_bits(v.fresh, v.reference)          ? 0.0
              : v.fresh > 0 && v.reference > 0 ? std::fabs(std::log10(v.fresh / v.reference))
                                               : NAN;
  const bool log_band = band && v.reference > 0 && std::isfinite(v.reference);
  v.band_low = log_band ? v.reference * std::pow(10.0, -*band) : v.reference;
  v.band_high = log_band ? v.reference * std::pow(10.0, *band) : v.reference;
  return v;
}

}  // namespace

double CurveVerdict::band_multiple() const {
  if (!band_decades || std::isnan(decades)) return NAN;
  return *band_decades > 0 ? decades / *band_decades : (decades > 0 ? INFINITY : 0.0);
}

bool RunVerdict::passed() const {
  if (!problem.empty()) return false;
  for (const auto& c : curves)
    if (!c.passed) return false;
  return true;
}

RunVerdict compare_runs(const io::StoredRun& fresh, const io::StoredRun& ref,
                        const Tolerances& tolerances) {
  RunVerdict v;
  if (fresh.text.at("status") != ref.text.at("status")) {
    v.problem = "status " + fresh.text.at("status") + ", reference " + ref.text.at("status");
    return v;
  }
  const auto columns = compared_columns(fresh);
  if (columns != compared_columns(ref)) {
    v.problem = "columns differ: " + join(columns, ",") + " vs reference " +
                join(compared_columns(ref), ",");
    return v;
  }
  if (fresh.num_rows() != ref.num_rows()) {
    v.problem = std::to_string(fresh.num_rows()) + " rows, reference " + std::to_string(ref.num_rows());
    return v;
  }
  const auto& rounds = fresh.column("round");
  for (const auto& name : columns)
    v.curves.push_back(compare_column(name, fresh.column(name), ref.column(name), rounds,
                                      band_for(tolerances, name)));
  return v;
}

CheckReport check_against_reference(const Suite& suite, const std::string& fresh_dir,
                                    const std::string& reference_dir, const Tolerances& tolerances) {
  const ResultsStore fresh(fresh_dir), reference(reference_dir);
  CheckReport report;
  for (const auto& run : suite.runs) {
    RunVerdict verdict;
    std::string why;
    const RunState reference_state = reference.state(run, &why);
    if (reference_state == RunState::corrupt) {
      verdict.problem = "reference " + reference.run_file(run.id) + " is not a complete run (" +
                        run_file_problem(reference.run_file(run.id)) + "); rewrite it with --update";
    } else if (reference_state != RunState::done && reference_state != RunState::stale) {
      verdict.problem = "no reference in " + reference_dir + "; create it with --update";
      verdict.missing_reference = true;
    } else {
      const io::StoredRun fresh_run = io::read_trajectory_screened(fresh.run_file(run.id));
      const io::StoredRun reference_run = io::read_trajectory_screened(reference.run_file(run.id));
      if (fresh_run.record.header.env.isa != reference_run.record.header.env.isa)
        throw UserError("reference " + reference.run_file(run.id) + " was written by a " +
                        reference_run.record.header.env.isa + " build and this fedbench is a " +
                        fresh_run.record.header.env.isa + " build; results compare bit for bit only within one "
                        "instruction set: build with -DFEDBENCH_ISA=" + reference_run.record.header.env.isa +
                        " or write references for this build with --update");
      verdict = compare_runs(fresh_run, reference_run, tolerances);
      // Made by other code: still compared (that is what a regression check is for), and said.
      verdict.stale_reference = reference_state == RunState::stale;
      if (verdict.stale_reference && report.stale_references++ == 0)
        report.first_stale = run.id + ": " + why;
    }
    verdict.id = run.id;
    verdict.solver = run.request.solver;
    verdict.seed = run.request.seed;
    ++(verdict.passed() ? report.passed : report.failed);
    report.runs.push_back(std::move(verdict));
  }
  for (const auto& file : foreign_references(suite, reference_dir))
    report.references_without_run.push_back(fs::path(file).filename().string());
  return report;
}

std::vector<std::string> foreign_references(const Suite& suite, const std::string& reference_dir) {
  if (!fs::is_directory(reference_dir)) return {};
  const ResultsStore reference(reference_dir);
  std::set<std::string> wanted;
  for (const auto& run : suite.runs) wanted.insert(reference.run_file(run.id));
  std::vector<std::string> foreign;
  for (const auto& file : reference.finished_files())
    if (!wanted.count(file)) foreign.push_back(file);
  return foreign;
}

int update_references(const Suite& suite, const std::string& fresh_dir,
                      const std::string& reference_dir, bool prune) {
  const ResultsStore fresh(fresh_dir), reference(reference_dir);
  reference.ensure_exists();
  // Through the pinned runs/ handles: a link at REF/runs (or one swapped in) is refused, never
  // written or deleted through.
  int n = 0;
  for (const auto& run : suite.runs) {
    reference.copy_in(fresh.runs(), run.id);
    ++n;
  }
  if (prune)
    for (const auto& file : foreign_references(suite, reference_dir))
      reference.runs().remove_file(fs::path(file).filename().string());
  reference.write_manifest();
  return n;
}

}  // namespace fedbench::suite
