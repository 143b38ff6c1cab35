#include "results/check_report.hpp"

#include <cmath>
#include <string>

#include "core/text.hpp"

namespace fedbench::suite {

namespace {

std::string band_text(const CurveVerdict& c) {
  if (!c.band_decades) return "must equal " + format_real(c.reference) + " (exact)";
  return "band [" + format_real(c.band_low) + ", " + format_real(c.band_high) + "] (" +
         format_real(*c.band_decades) + " decades)";
}

// JSON has no NaN or infinity: those become null.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

}  // namespace

void print_check_report(const CheckReport& report, std::ostream& out) {
  for (const auto& run : report.runs) {
    const std::string who = run.id + " (" + run.solver + ", seed " + std::to_string(run.seed) + ")";
    if (!run.problem.empty()) out << "FAIL " << who << ": " << run.problem << "\n";
    for (const auto& c : run.curves)
      if (!c.passed)
        out << "FAIL " << who << ": " << c.column << " deviates most at round "
            << format_real(c.round) << " by " << format_real(c.deviation) << ": "
            << format_real(c.fresh) << ", reference " << format_real(c.reference) << "; "
            << band_text(c) << "\n";
  }
  if (report.stale_references > 0)
    out << "note: " << report.stale_references
        << (report.stale_references == 1 ? " reference was" : " references were")
        << " made by other code or from other data than this build's (e.g. " << report.first_stale
        << "); compared all the same; --update rewrites them\n";
  if (const auto n = report.references_without_run.size(); n > 0)
    out << "note: " << n << (n == 1 ? " reference has" : " references have")
        << " no run in the suite (renamed or removed runs, or another suite's): "
        << join(report.references_without_run, ", ") << "; --update --prune deletes them\n";
  out << report.passed << " passed, " << report.failed << " failed\n";
}

nlohmann::json check_report_json(const CheckReport& report) {
  nlohmann::json runs = nlohmann::json::array(), missing = nlohmann::json::array();
  for (const auto& run : report.runs) {
    nlohmann::json curves = nlohmann::json::array();
    for (const auto& c : run.curves)
      curves.push_back({{"metric", c.column},
                        {"verdict", c.passed ? "pass" : "fail"},
                        {"round", number(c.round)},
                        {"fresh", number(c.fresh)},
                        {"reference", number(c.reference)},
                        {"deviation", number(c.deviation)},
                        {"decades", number(c.decades)},
                        {"band", {{"decades", c.band_decades ? number(*c.band_decades) : nlohmann::json()},
                                  {"low", number(c.band_low)},
                                  {"high", number(c.band_high)}}}});
    runs.push_back({{"id", run.id},
                    {"solver", run.solver},
                    {"seed", run.seed},
                    {"verdict", run.passed() ? "pass" : "fail"},
                    {"problem", run.problem.empty() ? nlohmann::json() : nlohmann::json(run.problem)},
                    {"stale_reference", run.stale_reference},
                    {"curves", std::move(curves)}});
    if (run.missing_reference) missing.push_back(run.id);
  }
  return {{"passed", report.passed},
          {"failed", report.failed},
          {"stale_references", report.stale_references},
          {"runs", std::move(runs)},
          {"runs_without_reference", std::move(missing)},
          {"references_without_run", report.references_without_run}};
}

}  // namespace fedbench::suite
