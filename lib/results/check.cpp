#include "results/check.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/durable_rename.hpp"
#include "io/new_file.hpp"
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

}  // namespace

std::optional<std::string> compare_runs(const io::StoredRun& fresh, const io::StoredRun& ref,
                                        const Tolerances& tolerances) {
  if (fresh.text.at("status") != ref.text.at("status"))
    return "status " + fresh.text.at("status") + ", reference " + ref.text.at("status");
  const auto columns = compared_columns(fresh);
  if (columns != compared_columns(ref))
    return "columns differ: " + join(columns, ",") + " vs reference " +
           join(compared_columns(ref), ",");
  if (fresh.num_rows() != ref.num_rows())
    return std::to_string(fresh.num_rows()) + " rows, reference " + std::to_string(ref.num_rows());
  const auto& rounds = fresh.column("round");
  for (const auto& name : columns) {
    const auto& a = fresh.column(name);
    const auto& b = ref.column(name);
    const auto band = band_for(tolerances, name);
    for (std::size_t r = 0; r < a.size(); ++r) {
      const bool ok = band ? within_band(a[r], b[r], *band) : same_bits(a[r], b[r]);
      if (!ok)
        return "column " + name + " differs at round " + format_real(rounds[r]) + ": " +
               format_real(a[r]) + ", reference " + format_real(b[r]) +
               (band ? " (band " + format_real(*band) + " decades)" : " (exact)");
    }
  }
  return std::nullopt;
}

CheckTotals check_against_reference(const Suite& suite, const std::string& fresh_dir,
                                    const std::string& reference_dir, const Tolerances& tolerances,
                                    std::ostream& out) {
  const ResultsStore fresh(fresh_dir), reference(reference_dir);
  CheckTotals totals;
  int stale_references = 0;
  std::string first_stale;
  for (const auto& run : suite.runs) {
    const std::string who = run.id + " (" + run.request.solver + ", seed " +
                            std::to_string(run.request.seed) + ")";
    std::string why;
    const RunState reference_state = reference.state(run, &why);
    // Made by other code: still compared (that is what a regression check is for), and said.
    if (reference_state == RunState::stale && stale_references++ == 0) first_stale = run.id + ": " + why;
    if (reference_state == RunState::corrupt) {
      out << "FAIL " << who << ": reference " << reference.run_file(run.id)
          << " is not a complete run (" << run_file_problem(reference.run_file(run.id))
          << "); rewrite it with --update\n";
      ++totals.failed;
      continue;
    }
    if (reference_state != RunState::done && reference_state != RunState::stale) {
      out << "FAIL " << who << ": no reference in " << reference_dir
          << "; create it with --update\n";
      ++totals.failed;
      continue;
    }
    const io::StoredRun fresh_run = io::read_trajectory_screened(fresh.run_file(run.id));
    const io::StoredRun reference_run = io::read_trajectory_screened(reference.run_file(run.id));
    if (fresh_run.record.header.env.isa != reference_run.record.header.env.isa)
      throw UserError("reference " + reference.run_file(run.id) + " was written by a " +
                      reference_run.record.header.env.isa + " build and this fedbench is a " +
                      fresh_run.record.header.env.isa + " build; results compare bit for bit only within one "
                      "instruction set: build with -DFEDBENCH_ISA=" + reference_run.record.header.env.isa +
                      " or write references for this build with --update");
    const auto diff = compare_runs(fresh_run, reference_run, tolerances);
    if (diff) {
      out << "FAIL " << who << ": " << *diff << "\n";
      ++totals.failed;
    } else {
      ++totals.passed;
    }
  }
  if (stale_references > 0)
    out << "note: " << stale_references << " reference" << (stale_references == 1 ? " was" : "s were")
        << " made by other code or from other data than this build's (e.g. " << first_stale
        << "); compared all the same; --update rewrites them\n";
  out << totals.passed << " passed, " << totals.failed << " failed\n";
  return totals;
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
  int n = 0;
  for (const auto& run : suite.runs) {
    const std::string target = reference.run_file(run.id), tmp = target + ".part";
    {
      std::ifstream in(fresh.run_file(run.id), std::ios::binary);
      io::NewFileStream out(tmp);  // never through a link planted under the name
      out << in.rdbuf();
      out.close();
      if (!in || !out) throw WriteError("cannot write " + tmp + ": the disk is full or not writable");
    }
    io::durable_rename(tmp, target);
    ++n;
  }
  if (prune)
    for (const auto& file : foreign_references(suite, reference_dir)) fs::remove(file);
  reference.write_manifest();
  return n;
}

}  // namespace fedbench::suite
