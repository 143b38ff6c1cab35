#include "experiment/verdict_file.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/build_info.hpp"
#include "core/code_fingerprint.hpp"
#include "core/data_provenance.hpp"
#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/text.hpp"
#include "engine/environment.hpp"
#include "engine/provenance.hpp"
#include "results/results_store.hpp"

namespace fedbench::suite {

namespace {

namespace fs = std::filesystem;

const char* kind_name(Claim::Kind k) {
  switch (k) {
    case Claim::Kind::better: return "better";
    case Claim::Kind::below: return "below";
    case Claim::Kind::above: return "above";
    case Claim::Kind::within: return "within";
    case Claim::Kind::closer: return "closer";
  }
  return "";
}

const char* sense_name(Sense s) {
  switch (s) {
    case Sense::above: return "above";
    case Sense::below: return "below";
    case Sense::within: return "within";
  }
  return "";
}

Json params_json(const ParamMap& p) {
  Json out = Json::object();
  for (const auto& [k, v] : p) out[k] = v;
  return out;
}

Json evidence_json(const Evidence& e) {
  Json out = {{"n", e.n}, {"holds_on", e.holds_on}, {"median", e.median}, {"seed_free", e.seed_free}};
  if (e.n > 0)
    out["interval"] = {{"low", e.interval.low}, {"high", e.interval.high}, {"coverage", e.interval.coverage}};
  if (!e.why.empty()) out["why"] = e.why;
  return out;
}

// The experiment's own files (the experiment, its suites) by their path under the results
// directory ("experiments/NAME.yaml", "suites/NAME.yaml"), each with its SHA-256.
std::map<std::string, std::string> experiment_files(const Experiment& e) {
  const fs::path base = fs::path(e.path).parent_path().parent_path();
  std::vector<std::string> paths = {e.path, e.suite_path};
  if (!e.baselines_path.empty()) paths.push_back(e.baselines_path);
  for (const auto& v : e.variants) paths.push_back(v.suite_path);
  std::map<std::string, std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    const std::string key = fs::relative(p, base, ec).generic_string();
    out[ec || key.empty() ? p : key] = sha256_file(p);
  }
  return out;
}

// What computed the runs the claims read: code fingerprints per solver and problem, the
// shared numerics, and the data files.
Json code_of_runs(const std::vector<std::string>& dirs) {
  std::vector<std::string> files;
  for (const auto& dir : dirs) {
    const auto more = ResultsStore(dir).suite_files(/*all=*/false, /*quiet=*/true);
    files.insert(files.end(), more.begin(), more.end());
  }
  std::map<std::string, std::set<std::string>> solvers, problems;
  std::set<std::string> numerics;
  std::map<std::string, std::string> data;
  for (const auto& run : read_complete_runs(files)) {
    const RunProvenance p = provenance_from_attributes(run.text);
    solvers[run.text.at("solver")].insert(p.solver_code);
    problems[run.text.at("problem")].insert(p.problem_code);
    numerics.insert(p.numerics);
    for (const auto& d : p.data) data[d.path] = d.sha256;
  }
  // A name with two fingerprints (runs kept with --reuse-stale) can match no code: "a,b".
  const auto joined = [](const std::set<std::string>& s) { return join({s.begin(), s.end()}, ","); };
  Json out = {{"numerics", joined(numerics)}, {"verdict_logic", source_fingerprint("lib/experiment")}};
  Json s = Json::object(), q = Json::object(), d = Json::object();
  for (const auto& [name, fp] : solvers) s[name] = joined(fp);
  for (const auto& [name, fp] : problems) q[name] = joined(fp);
  for (const auto& [path, sha] : data) d[path] = sha;
  out["solvers"] = s;
  out["problems"] = q;
  out["data"] = d;
  return out;
}

Json seeds_json(const std::vector<std::uint64_t>& seeds) {
  Json out = Json::array();
  for (auto s : seeds) out.push_back(s);
  return out;
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Json claim_json(const Claim& c, const ClaimResult& r) {
  Json out = {{"text", c.text}, {"verdict", to_string(r.verdict)}, {"line", r.line}};
  if (!c.statement.empty()) out["statement"] = c.statement;
  out["origin"] = c.extra ? "fedbench" : "paper";
  Json spec = {{"kind", kind_name(c.kind)}, {"solver", c.solver}, {"metric", c.metric}, {"axis", c.axis}, {"at", c.at}};
  if (!c.equal.empty()) spec["equal"] = c.equal;
  if (!c.where.empty()) spec["where"] = params_json(c.where);
  if (c.kind == Claim::Kind::better || c.kind == Claim::Kind::closer) {
    spec["than"] = c.than;
    if (c.than_where != c.where) spec["than_where"] = params_json(c.than_where);
    if (c.kind == Claim::Kind::better) spec["factor"] = c.factor;
  }
  if (c.kind == Claim::Kind::closer) {
    spec["to"] = c.to;
    if (c.to_where != c.where) spec["to_where"] = params_json(c.to_where);
  }
  if (c.kind == Claim::Kind::below || c.kind == Claim::Kind::above || c.kind == Claim::Kind::within)
    spec["value"] = c.value;
  if (c.kind == Claim::Kind::within) spec["high"] = c.high;
  out["claim"] = spec;
  out["margin"] = r.margin_name;
  out["needs"] = {{"sense", sense_name(r.sense)}, {"low", r.low}};
  if (r.sense == Sense::within) out["needs"]["high"] = r.high;
  out["evidence"] = evidence_json(r.evidence);
  Json sides = Json::array();
  for (const auto& s : r.sides)
    sides.push_back({{"label", s.label}, {"median", s.median}, {"runs", s.runs}, {"diverged", s.diverged},
                     {"collapsed", s.collapsed}});
  out["sides"] = sides;
  Json units = Json::array();
  for (const auto& u : r.units)
    units.push_back({{"unit", u.label}, {"seed", u.seed}, {"values", u.values}, {"margin", u.margin}, {"holds", u.holds}});
  out["units"] = units;
  if (r.has_second)
    out["second_reading"] = {{"axis", r.second.axis},
                             {"budget", r.second.budget},
                             {"verdict", to_string(r.second.verdict)},
                             {"medians", r.second.medians},
                             {"evidence", evidence_json(r.second.evidence)}};
  return out;
}

Json verdict_document(const Experiment& e, const ReproduceOutcome& outcome) {
  Json claims = Json::array();
  const auto& list = outcome.quick ? e.quick_claims : e.claims;
  std::map<std::string, int> paper, extra;
  for (std::size_t k = 0; k < outcome.claims.size(); ++k) {
    claims.push_back(claim_json(list[k], outcome.claims[k]));
    ++(list[k].extra ? extra : paper)[to_string(outcome.claims[k].verdict)];
  }
  const auto tally = [](std::map<std::string, int> t) {
    return Json{{"holds", t["holds"]}, {"contradicted", t["contradicted"]}, {"inconclusive", t["inconclusive"]}};
  };
  Json variants = Json::array();
  for (std::size_t v = 0; v < outcome.variants.size(); ++v) {
    const Variant& variant = e.variants[v];
    const auto& vlist = outcome.quick ? variant.quick_claims : variant.claims;
    Json vc = Json::array();
    for (std::size_t k = 0; k < outcome.variants[v].second.size(); ++k)
      vc.push_back(claim_json(vlist[k], outcome.variants[v].second[k]));
    variants.push_back({{"name", variant.name}, {"explains", variant.explains}, {"claims", vc}});
  }
  std::vector<std::string> dirs = {outcome.report_dir};
  dirs.insert(dirs.end(), outcome.variant_dirs.begin(), outcome.variant_dirs.end());
  Json files = Json::object();
  for (const auto& [path, sha] : experiment_files(e)) files[path] = sha;
  const RunEnvironment env = current_environment(1, 1);
  // Configurations each method was tuned over, and why they differ where they do.
  Json effort = {{"configurations", Json::object()}};
  for (const auto& [solver, n] : tuning_effort(e)) effort["configurations"][solver] = n;
  if (!e.effort.empty()) effort["why_unequal"] = e.effort;
  return {{"format", kVerdictFormat},
          {"version", kVerdictFormatVersion},
          {"experiment", e.name},
          {"title", e.title},
          {"reference", e.reference},
          {"quick", outcome.quick},
          {"paper_claims", tally(paper)},
          {"extra_claims", tally(extra)},
          {"seeds", {{"tuning", seeds_json(outcome.tuning_seeds)}, {"report", seeds_json(outcome.report_seeds)}}},
          {"effort", effort},
          {"claims", claims},
          {"variants", variants},
          {"made_by",
           {{"fedbench", fedbench_version()},
            {"date", utc_now()},
            {"machine", {{"cpu", env.cpu_model}, {"cores", env.cores}, {"compiler", env.compiler}}},
            {"files", files},
            {"code", code_of_runs(dirs)}}}};
}

std::string verdict_staleness(const Json& d, const Experiment& e) {
  const Json& made = d.at("made_by");
  const Json& code = made.at("code");
  const auto recorded_files = made.at("files");
  const auto now_files = experiment_files(e);
  for (const auto& [path, sha] : now_files)
    if (!recorded_files.contains(path) || recorded_files.at(path).get<std::string>() != sha)
      return "file " + path + " changed";
  if (code.at("verdict_logic").get<std::string>() != source_fingerprint("lib/experiment"))
    return "code: the verdict logic (lib/experiment, scores, selection) changed";
  if (code.at("numerics").get<std::string>() != numerics_fingerprint())
    return "code: the shared numerical code or the compiler changed";
  for (const auto& [name, fp] : code.at("solvers").items())
    if (fp.get<std::string>() != current_code("", name).solver_code) return "code: solver " + name + " changed";
  for (const auto& [name, fp] : code.at("problems").items())
    if (fp.get<std::string>() != current_code(name, "").problem_code) return "code: problem " + name + " changed";
  for (const auto& [path, sha] : code.at("data").items()) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;  // not on this machine: cannot say
    if (describe_data_file(path).sha256 != sha.get<std::string>()) return "data: " + path + " changed";
  }
  return "";
}

Json read_verdict_document(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw UserError("cannot read verdict file " + path + ": not a regular file");
  if (fs::file_size(path, ec) > (16u << 20))
    throw UserError("verdict file " + path + " is larger than 16 MiB; it is not one fedbench wrote");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  Json d;
  try {
    d = Json::parse(text.str());
  } catch (const std::exception&) {
    throw UserError("verdict file " + path + " is not JSON; rerun fedbench reproduce NAME --record DIR");
  }
  if (!d.is_object() || d.value("format", std::string()) != kVerdictFormat || !d.contains("made_by") || !d.contains("claims"))
    throw UserError("verdict file " + path + " is not a fedbench verdict document; rerun fedbench reproduce NAME --record DIR");
  return d;
}

}  // namespace fedbench::suite
