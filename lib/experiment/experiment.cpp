#include "core/safe_name.hpp"
#include "experiment/experiment.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/trajectory_file.hpp"
#include "suite/grid.hpp"
#include "results/results_store.hpp"
#include "results/score.hpp"

namespace fedbench::suite {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kKeys = {"name", "title", "reference", "reproduces", "substitutes",
                                        "time", "suite", "select", "report_seeds", "quick",
                                        "figure", "claims", "out_of_scope", "baselines",
                                        "statements", "variants", "follows_code", "follows_paper", "effort"};
const std::vector<std::string> kAxes = {"round", "exchanges", "bytes", "bytes_up", "samples"};

std::string text_of(const YAML::Node& node, const std::string& file, const std::string& what) {
  if (!node) return {};
  if (!node.IsScalar()) throw UserError(where(file, node) + what + " must be a single value");
  return node.Scalar();
}

double number_of(const YAML::Node& node, const std::string& file, const std::string& what) {
  double v = 0;
  if (!parse_real(text_of(node, file, what), v))
    throw UserError(where(file, node) + what + " = '" + node.Scalar() + "' is not a number");
  return v;
}

std::vector<std::uint64_t> seeds_of(const YAML::Node& node, const std::string& file,
                                    const std::string& what) {
  std::vector<std::uint64_t> out;
  if (!node) return out;
  for (const auto& s : expand_node(node, file, what)) {
    long long v = 0;
    if (!parse_whole_number(s, v) || v < 0)
      throw UserError(where(file, node) + not_a_whole_number(what, s, 0, kMaxSeed));
    out.push_back(static_cast<std::uint64_t>(v));
  }
  return out;
}

// One claim; `quick` fields (if any) replace the plain ones when `use_quick`.
Claim read_claim(const YAML::Node& node, const std::string& file, bool use_quick) {
  check_keys(node, {"text", "better", "below", "above", "within", "closer", "quick", "statement", "origin"}, file,
             "claim");
  Claim c;
  c.location = where(file, node);
  c.text = text_of(node["text"], file, "claim text");
  if (c.text.empty()) throw UserError(where(file, node) + "a claim needs text: what the paper says");
  const char* kinds[] = {"better", "below", "above", "within", "closer"};
  YAML::Node body;
  bool found = false;
  for (int k = 0; k < 5; ++k)
    if (node[kinds[k]]) {
      if (found) throw UserError(where(file, node) + "a claim is one of better, below, above, within, closer");
      body = node[kinds[k]];
      c.kind = static_cast<Claim::Kind>(k);
      found = true;
    }
  if (!found) throw UserError(where(file, node) + "a claim needs one of better, below, above, within, closer");
  check_keys(body, {"solver", "than", "to", "metric", "at", "value", "high", "factor", "where", "than_where",
                    "to_where", "axis", "equal"},
             file, "claim");
  c.statement = text_of(node["statement"], file, "statement");
  if (node["origin"]) {
    const std::string origin = text_of(node["origin"], file, "origin");
    if (origin != "paper" && origin != "fedbench")
      throw UserError(where(file, node["origin"]) + "claim origin '" + origin +
                      "': use paper (a sentence of the paper, the default) or fedbench (a claim of our own)");
    c.extra = origin == "fedbench";
    if (c.extra && !c.statement.empty())
      throw UserError(where(file, node["origin"]) + "a claim of fedbench's own checks no statement of the paper; "
                      "remove origin: fedbench or statement");
  }
  if (body["axis"]) {
    c.axis = text_of(body["axis"], file, "axis");
    if (std::find(kAxes.begin(), kAxes.end(), c.axis) == kAxes.end())
      throw UserError(where(file, body["axis"]) + "claim axis '" + c.axis + "': use " + join(kAxes, ", "));
  }
  if (body["equal"]) {
    c.equal = text_of(body["equal"], file, "equal");
    if (c.equal == "round" || std::find(kAxes.begin(), kAxes.end(), c.equal) == kAxes.end())
      throw UserError(where(file, body["equal"]) + "claim equal '" + c.equal + "': use exchanges, bytes, bytes_up, samples");
    if (c.kind != Claim::Kind::better || c.axis != "round")
      throw UserError(where(file, body["equal"]) +
                      "equal: COUNTER compares two methods at round `at`'s budget: a better claim on rounds only");
  }
  YAML::Node fields = YAML::Clone(body);
  if (use_quick && node["quick"]) {
    check_keys(node["quick"], {"at", "value", "high", "factor"}, file, "claim quick");
    for (const auto& kv : node["quick"]) fields[kv.first.Scalar()] = kv.second;
  }
  c.solver = text_of(fields["solver"], file, "solver");
  c.metric = text_of(fields["metric"], file, "metric");
  if (c.solver.empty() || c.metric.empty() || !fields["at"])
    throw UserError(where(file, body) + "a claim needs solver, metric and at");
  c.at = static_cast<std::int64_t>(number_of(fields["at"], file, "at"));
  const auto params_of = [&](const char* key, ParamMap& out) {
    if (fields[key])
      for (const auto& kv : fields[key]) out[kv.first.Scalar()] = kv.second.Scalar();
  };
  params_of("where", c.where);
  if (c.kind == Claim::Kind::better || c.kind == Claim::Kind::closer) {
    c.than = text_of(fields["than"], file, "than");
    if (c.than.empty()) throw UserError(where(file, body) + "a 'better' or 'closer' claim needs than: SOLVER");
    if (fields["factor"]) c.factor = number_of(fields["factor"], file, "factor");
    // A shorter budget may move `at`, never let a reversed ordering pass.
    if (use_quick && node["quick"] && node["quick"]["factor"]) {
      const double full = body["factor"] ? number_of(body["factor"], file, "factor") : 1.0;
      if (c.factor < std::min(1.0, full))
        throw UserError(where(file, node["quick"]) + "quick factor " + format_real(c.factor) +
                        " loosens the claim (a reversed ordering would pass); use a quick factor >= " +
                        format_real(std::min(1.0, full)) + ", or let the quick run leave the claim undecided");
    }
    // The other side's restriction replaces `where` when given ({} : every run of `than`).
    if (fields["than_where"]) params_of("than_where", c.than_where);
    else c.than_where = c.where;
    if (c.kind == Claim::Kind::closer) {
      c.to = text_of(fields["to"], file, "to");
      if (c.to.empty()) throw UserError(where(file, body) + "a 'closer' claim needs to: SOLVER and than: SOLVER");
      if (fields["to_where"]) params_of("to_where", c.to_where);
      else c.to_where = c.where;
    }
  } else {
    if (!fields["value"]) throw UserError(where(file, body) + "a below/above/within claim needs value");
    c.value = number_of(fields["value"], file, "value");
    if (c.kind == Claim::Kind::within) {
      if (!fields["high"]) throw UserError(where(file, body) + "a within claim needs value (low) and high");
      c.high = number_of(fields["high"], file, "high");
    }
  }
  return c;
}

// Each claim of a list as written and with its --quick fields.
void read_claims(const YAML::Node& list, const std::string& file, std::vector<Claim>& claims,
                 std::vector<Claim>& quick_claims) {
  for (const auto& c : list) {
    claims.push_back(read_claim(c, file, false));
    quick_claims.push_back(read_claim(c, file, true));
  }
}

// The paper's comparative sentences; each method they name must have a claim (or a reason).
std::vector<Statement> read_statements(const YAML::Node& node, const std::string& file,
                                       const std::vector<Claim>& claims) {
  std::vector<Statement> out;
  if (node && !node.IsSequence()) throw UserError(where(file, node) + "statements must be a list");
  for (const auto& n : node ? node : YAML::Node(YAML::NodeType::Sequence)) {
    check_keys(n, {"id", "text", "solver", "than", "not_claimed"}, file, "statement");
    Statement st;
    st.id = text_of(n["id"], file, "statement id");
    st.text = text_of(n["text"], file, "statement text");
    st.solver = text_of(n["solver"], file, "statement solver");
    if (st.id.empty() || st.text.empty() || st.solver.empty() || !n["than"] || !n["than"].IsSequence())
      throw UserError(where(file, n) + "a statement needs id, text, solver and than: [methods]");
    for (const auto& m : n["than"]) st.than.push_back(m.Scalar());
    if (const auto nc = n["not_claimed"])
      for (const auto& kv : nc) st.not_claimed[kv.first.Scalar()] = kv.second.Scalar();
    for (const auto& method : st.than) {
      const bool claimed = std::any_of(claims.begin(), claims.end(), [&](const Claim& c) {
        return c.statement == st.id && c.solver == st.solver && c.than == method;
      });
      const auto reason = st.not_claimed.find(method);
      if (!claimed && (reason == st.not_claimed.end() || reason->second.empty()))
        throw UserError(where(file, n) + "statement '" + st.id + "' compares " + st.solver + " with " +
                        method + " but no claim does; add a claim with statement: " + st.id +
                        " or give the reason under not_claimed");
    }
    out.push_back(std::move(st));
  }
  for (const auto& c : claims) {
    if (!c.statement.empty() &&
        std::none_of(out.begin(), out.end(), [&](const Statement& st) { return st.id == c.statement; }))
      throw UserError(file + ": claim '" + c.text + "' names statement '" + c.statement +
                      "', which is not under statements");
    // Coverage: every comparison the paper makes is tied to the sentence that makes it.
    const bool compares = c.kind == Claim::Kind::better || c.kind == Claim::Kind::closer;
    if (compares && !c.extra && c.statement.empty())
      throw UserError(c.location + "claim '" + c.text + "' compares methods but names no statement; quote the " +
                      "paper's sentence under statements and give its id (statement: ID), or mark a claim of " +
                      "fedbench's own with origin: fedbench");
  }
  return out;
}

// yaml-cpp reads the first of two equal keys of a map and drops the second without a word (a
// claim's second `quick:` line would never apply): refused anywhere in the file.
void check_unique_keys(const YAML::Node& node, const std::string& file) {
  if (node.IsSequence())
    for (const auto& item : node) check_unique_keys(item, file);
  if (!node.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (kv.first.IsScalar() && !seen.insert(kv.first.Scalar()).second)
      throw UserError(where(file, kv.first) + "key '" + kv.first.Scalar() + "' is given twice in one map; merge the two");
    check_unique_keys(kv.second, file);
  }
}

// The experiment files of a directory, sorted.
std::vector<std::string> experiment_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  if (ec) throw UserError("cannot read the experiments directory " + dir);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Experiment load_experiment(const std::string& path) {
  const YAML::Node root = load_yaml_file(path, "experiment");
  check_unique_keys(root, path);
  check_keys(root, kKeys, path, "experiment");
  Experiment e;
  e.path = path;
  e.name = text_of(root["name"], path, "name");
  if (const std::string why = unusable_name(e.name); !why.empty())  // its runs go to results/reproduce/NAME
    throw UserError(where(path, root["name"]) + "name " + json_literal(e.name) + " " + why +
                    "; use letters, digits, '-', '_', '.'");
  e.title = text_of(root["title"], path, "title");
  e.reference = text_of(root["reference"], path, "reference");
  e.reproduces = text_of(root["reproduces"], path, "reproduces");
  e.substitutes = text_of(root["substitutes"], path, "substitutes");
  e.time = text_of(root["time"], path, "time");
  e.effort = text_of(root["effort"], path, "effort");
  e.out_of_scope = text_of(root["out_of_scope"], path, "out_of_scope");
  for (const char* key : {"name", "title", "reference", "reproduces"})
    if (!root[key]) throw UserError(path + ": an experiment needs '" + key + "'");
  if (!e.out_of_scope.empty()) {
    // Listed with its reason only: nothing to run.
    for (const char* key : {"suite", "claims", "select", "quick", "figure", "report_seeds", "baselines",
                            "statements", "variants"})
      if (root[key])
        throw UserError(path + ": an out_of_scope experiment has no '" + key + "'; remove it or the out_of_scope line");
    return e;
  }
  for (const char* key : {"suite", "claims"})
    if (!root[key]) throw UserError(path + ": an experiment needs '" + key + "' (or out_of_scope: REASON)");
  e.suite_path = (fs::path(path).parent_path() / text_of(root["suite"], path, "suite")).lexically_normal().string();
  if (root["baselines"])
    e.baselines_path =
        (fs::path(path).parent_path() / text_of(root["baselines"], path, "baselines")).lexically_normal().string();
  if (const auto s = root["select"]) {
    check_keys(s, {"metric", "at"}, path, "select");
    e.select_location = where(path, s);
    e.select_metric = text_of(s["metric"], path, "select metric");
    e.select_at = text_of(s["at"], path, "select at");
  }
  e.report_seeds = seeds_of(root["report_seeds"], path, "report_seeds");
  for (const auto& [key, list] : {std::pair{"follows_code", &e.follows_code}, std::pair{"follows_paper", &e.follows_paper}}) {
    const YAML::Node node = root[key];
    if (!node) continue;
    if (!node.IsSequence()) throw UserError(where(path, node) + std::string(key) + " must be a list of sentences");
    for (const auto& item : node) list->push_back(text_of(item, path, key));
  }
  if (const auto q = root["quick"]) {
    check_keys(q, {"rounds", "seeds", "report_seeds", "time"}, path, "quick");
    e.quick_time = text_of(q["time"], path, "quick time");
    if (q["rounds"]) e.quick_rounds = static_cast<std::int64_t>(number_of(q["rounds"], path, "quick rounds"));
    e.quick_seeds = seeds_of(q["seeds"], path, "quick seeds");
    e.quick_report_seeds = seeds_of(q["report_seeds"], path, "quick report_seeds");
  }
  if (const auto f = root["figure"]) {
    check_keys(f, {"x", "y", "group", "panel", "scale"}, path, "figure");
    e.figure_location = where(path, f);
    if (f["x"]) e.figure_x = text_of(f["x"], path, "figure x");
    if (f["group"]) e.figure_group = text_of(f["group"], path, "figure group");
    e.figure_panel = text_of(f["panel"], path, "figure panel");
    if (f["scale"]) {
      const std::string scale = text_of(f["scale"], path, "figure scale");
      if (scale != "log" && scale != "linear")
        throw UserError(where(path, f["scale"]) + "figure scale '" + scale + "': use log or linear");
      e.figure_linear = scale == "linear";
    }
    e.figure_y = text_of(f["y"], path, "figure y");
  }
  if (!root["claims"].IsSequence() || root["claims"].size() == 0)
    throw UserError(where(path, root["claims"]) + "claims must be a non-empty list");
  read_claims(root["claims"], path, e.claims, e.quick_claims);
  e.statements = read_statements(root["statements"], path, e.claims);
  if (const auto vs = root["variants"]) {
    if (!vs.IsSequence()) throw UserError(where(path, vs) + "variants must be a list");
    for (const auto& v : vs) {
      check_keys(v, {"name", "explains", "suite", "claims", "seeds"}, path, "variant");
      Variant variant;
      variant.name = text_of(v["name"], path, "variant name");
      variant.explains = text_of(v["explains"], path, "variant explains");
      variant.seeds = seeds_of(v["seeds"], path, "variant seeds");
      if (variant.name.empty() || variant.explains.empty() || !v["suite"])
        throw UserError(where(path, v) + "a variant needs name, explains (the failed claim it diagnoses) and suite");
      if (const std::string why = unusable_name(variant.name); !why.empty())  // its runs go to variants/NAME
        throw UserError(where(path, v["name"]) + "variant name " + json_literal(variant.name) + " " + why +
                        "; use letters, digits, '-', '_', '.'");
      variant.suite_path =
          (fs::path(path).parent_path() / text_of(v["suite"], path, "variant suite")).lexically_normal().string();
      if (!v["claims"].IsSequence() || v["claims"].size() == 0)
        throw UserError(where(path, v) + "a variant needs claims: what its runs must show");
      read_claims(v["claims"], path, variant.claims, variant.quick_claims);
      e.variants.push_back(std::move(variant));
    }
  }
  return e;
}

std::vector<Experiment> load_experiments(const std::string& dir) {
  std::vector<Experiment> out;
  for (const auto& f : experiment_files(dir)) out.push_back(load_experiment(f));
  return out;
}

std::vector<ListedExperiment> list_experiments(const std::string& dir) {
  std::vector<ListedExperiment> out;
  for (const auto& path : experiment_files(dir)) {
    ListedExperiment item;
    item.path = path;
    try {
      Experiment e = load_experiment(path);
      validate_experiment(e);
      item.experiment = std::move(e);
    } catch (const UserError& error) {
      item.error = naming(path, error.what());
    }
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace fedbench::suite
