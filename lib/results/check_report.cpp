#include "results/check_report.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/text.hpp"

namespace fedbench::suite {

namespace {

// Banded columns are read by eye: 6 significant digits. Exactly compared ones may differ in the
// last bit only: their shortest exact text, so that the difference shows.
std::string value_text(double v, bool exact) {
  if (exact) return format_real(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// "FAIL ID (solver, seed S): COLUMN ..." for a failed curve: where the curves part first, how
// far apart they are at the worst row (in band widths for a banded column), the final values.
std::string failed_curve_text(const CurveVerdict& c) {
  const bool exact = !c.band_decades;
  const auto v = [&](double x) { return value_text(x, exact); };
  std::string text = c.column + (exact ? " differs first at round " : " leaves its band first at round ") +
                     format_real(c.first_round.value_or(c.round)) + " (" + v(c.first_fresh) + ", reference " +
                     v(c.first_reference) + "; " + std::to_string(c.rows_outside) +
                     (c.rows_outside == 1 ? " row" : " rows") + (exact ? " differ" : " outside") + "); ";
  if (exact) {
    const double relative = c.reference != 0 ? c.deviation / std::fabs(c.reference) : NAN;
    text += "largest difference " + value_text(c.deviation, false) +
            (std::isfinite(relative) ? " (relative " + value_text(relative, false) + ")" : "") + " at round " +
            format_real(c.round) + ": " + v(c.fresh) + ", reference " + v(c.reference) + " (exact)";
  } else {
    const double multiple = c.band_multiple();
    text += "worst at round " + format_real(c.round) + ": " + v(c.fresh) + ", reference " + v(c.reference) + ", " +
            (std::isfinite(c.decades) ? value_text(c.decades, false) + " decades apart, " +
                                            value_text(multiple, false) + " times the band of " +
                                            format_real(*c.band_decades) + " decades"
                                      : "not comparable on a log scale") +
            " (band [" + v(c.band_low) + ", " + v(c.band_high) + "])";
  }
  return text + "; final " + v(c.final_fresh) + ", reference " + v(c.final_reference);
}

// JSON has no NaN or infinity: those become null.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

std::string run_name(const RunVerdict& run) {
  return run.id + " (" + run.solver + ", seed " + std::to_string(run.seed) + ")";
}

// XML text and attribute values: the five special characters escaped, other control
// characters (invalid in XML 1.0) dropped.
std::string xml_escaped(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t') out += ch;
    }
  }
  return out;
}

}  // namespace

void print_check_report(const CheckReport& report, std::ostream& out) {
  for (const auto& run : report.runs) {
    if (!run.problem.empty()) out << "FAIL " << run_name(run) << ": " << run.problem << "\n";
    for (const auto& c : run.curves)
      if (!c.passed) out << "FAIL " << run_name(run) << ": " << failed_curve_text(c) << "\n";
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
                                  {"high", number(c.band_high)}}},
                        {"band_multiple", number(c.band_multiple())},
                        {"first_round", c.first_round ? number(*c.first_round) : nlohmann::json()},
                        {"first_fresh", c.first_round ? number(c.first_fresh) : nlohmann::json()},
                        {"first_reference", c.first_round ? number(c.first_reference) : nlohmann::json()},
                        {"rows_outside", c.rows_outside},
                        {"final_fresh", number(c.final_fresh)},
                        {"final_reference", number(c.final_reference)}});
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

std::string check_report_junit(const CheckReport& report, const std::string& suite_name) {
  const std::size_t n = report.runs.size();
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites name=\"fedbench check\" tests=\"" + std::to_string(n) + "\" failures=\"" +
         std::to_string(report.failed) + "\">\n";
  xml += "  <testsuite name=\"" + xml_escaped(suite_name) + "\" tests=\"" + std::to_string(n) + "\" failures=\"" +
         std::to_string(report.failed) + "\" errors=\"0\" skipped=\"0\">\n";
  for (const auto& run : report.runs) {
    xml += "    <testcase classname=\"" + xml_escaped(suite_name + "." + run.solver) + "\" name=\"" +
           xml_escaped(run.id + " seed " + std::to_string(run.seed)) + "\"";
    if (run.passed()) {
      xml += "/>\n";
      continue;
    }
    std::vector<std::string> lines;
    if (!run.problem.empty()) lines.push_back(run.problem);
    for (const auto& c : run.curves)
      if (!c.passed) lines.push_back(failed_curve_text(c));
    xml += ">\n      <failure message=\"" + xml_escaped(lines.front()) + "\" type=\"" +
           (run.problem.empty() ? "curve regression" : "not comparable") + "\">" +
           xml_escaped(run_name(run) + ":\n" + join(lines, "\n")) + "</failure>\n    </testcase>\n";
  }
  std::vector<std::string> notes;
  if (report.stale_references > 0)
    notes.push_back(std::to_string(report.stale_references) + " references made by other code (e.g. " +
                    report.first_stale + ")");
  if (!report.references_without_run.empty())
    notes.push_back("references with no run: " + join(report.references_without_run, ", "));
  if (!notes.empty()) xml += "    <system-out>" + xml_escaped(join(notes, "\n")) + "</system-out>\n";
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace fedbench::suite
