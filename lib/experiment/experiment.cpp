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
                                        "statements", "variants", "follows_code", "follows_paper"};
const std::vector<std::string> kAxes = {"round", "exchanges", "bytes", "samples"};

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
    if (!parse_int(s, v) || v < 0)
      throw UserError(where(file, node) + what + ": '" + s + "' is not a whole number >= 0");
    out.push_back(static_cast<std::uint64_t>(v));
  }
  return out;
}

// One claim; `quick` fields (if any) replace the plain ones when `use_quick`.
Claim read_claim(const YAML::Node& node, const std::string& file, bool use_quick) {
  check_keys(node, {"text", "better", "below", "above", "within", "closer", "quick", "statement"}, file, "claim");
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
                    "to_where", "axis"},
             file, "claim");
  c.statement = text_of(node["statement"], file, "statement");
  if (body["axis"]) {
    c.axis = text_of(body["axis"], file, "axis");
    if (std::find(kAxes.begin(), kAxes.end(), c.axis) == kAxes.end())
      throw UserError(where(file, body["axis"]) + "claim axis '" + c.axis + "': use " + join(kAxes, ", "));
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

// Median over a solver's runs of the metric at `at` on the claim's axis (results/score.hpp).
struct Measured {
  double median = NAN;
  int runs = 0;
  Direction direction = Direction::min;
};

// Whether a run has every `where` parameter: a problem parameter, else a solver parameter of
// that name (e.g. local_steps), or `participation`; numbers compare by value.
bool has_params(const io::StoredRun& r, const ParamMap& where) {
  for (const auto& [k, v] : where) {
    const std::string* value = nullptr;
    const std::string participation = k == "participation" ? participation_of(r.text.at("config")) : "";
    if (k == "participation") value = &participation;
    else if (const auto p = r.problem_params.find(k); p != r.problem_params.end()) value = &p->second;
    else if (const auto q = r.solver_params.find(k); q != r.solver_params.end()) value = &q->second;
    double a = 0, b = 0;
    if (!value || (*value != v && !(parse_real(*value, a) && parse_real(v, b) && a == b))) return false;
  }
  return true;
}

Measured measure(const std::vector<io::StoredRun>& runs, const std::string& solver,
                 const std::string& metric, std::int64_t at, const ParamMap& where_params,
                 const std::string& axis) {
  Measured m;
  std::vector<double> values;
  for (const auto& r : runs) {
    if (r.text.at("solver") != solver || !has_params(r, where_params)) continue;
    m.direction = recorded_direction(r, metric);
    values.push_back(value_at(r, metric, axis, static_cast<double>(at), m.direction));
  }
  m.runs = static_cast<int>(values.size());
  m.median = median(std::move(values));
  return m;
}

//! "solver" or, when the two sides of a claim are restricted differently (where, than_where),
//! "solver [key=value ...]".
std::string side(const std::string& solver, const ParamMap& where, bool differs) {
  if (!differs || where.empty()) return solver;
  std::string out = solver + " [";
  for (const auto& [k, v] : where) out += (out.back() == '[' ? "" : " ") + k + "=" + v;
  return out + "]";
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
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
  for (const auto& c : claims)
    if (!c.statement.empty() &&
        std::none_of(out.begin(), out.end(), [&](const Statement& st) { return st.id == c.statement; }))
      throw UserError(file + ": claim '" + c.text + "' names statement '" + c.statement +
                      "', which is not under statements");
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

void check_tuning_seeds(const Experiment& e, const Suite& tuning) {
  if (!e.select_metric || e.report_seeds.size() < 2) return;
  std::set<std::uint64_t> seeds;
  std::map<std::string, std::set<std::string>> candidates;  // (solver, problem point) -> settings
  for (const auto& run : tuning.runs) {
    seeds.insert(run.request.seed);
    std::string slot = run.request.solver, config = run.request.participation.to_text();
    for (const auto& [k, v] : run.request.problem_params) slot += " " + k + "=" + v;
    for (const auto& [k, v] : run.request.solver_params) config += " " + k + "=" + v;
    candidates[slot].insert(config);
  }
  const bool chooses = std::any_of(candidates.begin(), candidates.end(),
                                   [](const auto& c) { return c.second.size() > 1; });
  if (chooses && seeds.size() < 3)
    throw UserError(e.path + ": the claims are medians over " + std::to_string(e.report_seeds.size()) +
                    " report seeds but " + e.suite_path + " tunes on " + std::to_string(seeds.size()) +
                    "; give the suite at least 3 seeds");
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

std::vector<ClaimResult> check_claims(const std::vector<Claim>& claims,
                                      const std::vector<std::string>& results_dirs) {
  std::vector<std::string> files;
  for (const auto& dir : results_dirs) {
    const auto more = ResultsStore(dir).suite_files(/*all=*/false);
    files.insert(files.end(), more.begin(), more.end());
  }
  const std::vector<io::StoredRun> runs = read_complete_runs(files);
  StaleTally stale;  // reproduce reruns stale runs; those kept with --reuse-stale are said to be
  for (const auto& r : runs) stale.add(r);
  stale.report();
  std::vector<ClaimResult> out;
  for (const auto& c : claims) {
    ClaimResult r;
    const Measured a = measure(runs, c.solver, c.metric, c.at, c.where, c.axis);
    std::string numbers;
    if (a.runs == 0) {
      r.line = "claim: " + c.text + ": failed (no runs of " + c.solver + ")";
      out.push_back(r);
      continue;
    }
    switch (c.kind) {
      case Claim::Kind::closer: {
        const Measured to = measure(runs, c.to, c.metric, c.at, c.to_where, c.axis);
        const Measured than = measure(runs, c.than, c.metric, c.at, c.than_where, c.axis);
        if (to.runs == 0 || than.runs == 0) {
          r.line = "claim: " + c.text + ": failed (no runs of " + (to.runs == 0 ? c.to : c.than) + ")";
          out.push_back(r);
          continue;
        }
        r.passed = std::abs(a.median - to.median) < std::abs(a.median - than.median);
        const bool differs = c.to_where != c.where || c.than_where != c.where;
        numbers = side(c.solver, c.where, differs) + " " + fmt(a.median) + ", closer to " +
                  side(c.to, c.to_where, differs) + " " + fmt(to.median) + " than to " +
                  side(c.than, c.than_where, differs) + " " + fmt(than.median);
        break;
      }
      case Claim::Kind::better: {
        const Measured b = measure(runs, c.than, c.metric, c.at, c.than_where, c.axis);
        if (b.runs == 0) {
          r.line = "claim: " + c.text + ": failed (no runs of " + c.than + ")";
          out.push_back(r);
          continue;
        }
        r.passed = a.direction == Direction::max ? a.median > b.median * c.factor : a.median * c.factor < b.median;
        const bool differs = c.than_where != c.where;
        numbers = side(c.solver, c.where, differs) + " " + fmt(a.median) + " vs " + side(c.than, c.than_where, differs) +
                  " " + fmt(b.median);
        break;
      }
      case Claim::Kind::below:
        r.passed = a.median < c.value;
        numbers = c.solver + " " + fmt(a.median) + " < " + fmt(c.value);
        break;
      case Claim::Kind::above:
        r.passed = a.median > c.value;
        numbers = c.solver + " " + fmt(a.median) + " > " + fmt(c.value);
        break;
      case Claim::Kind::within:
        r.passed = a.median >= c.value && a.median <= c.high;
        numbers = c.solver + " " + fmt(a.median) + " in [" + fmt(c.value) + ", " + fmt(c.high) + "]";
        break;
    }
    r.line = "claim: " + c.text + ": " + (r.passed ? "passed" : "FAILED") + " (" + c.metric +
             " at " + c.axis + " " + std::to_string(c.at) + ": " + numbers + ")";
    out.push_back(r);
  }
  return out;
}

}  // namespace fedbench::suite
