#include "suite/suite.hpp"

#include <cmath>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/directory.hpp"
#include "core/random.hpp"
#include "core/safe_name.hpp"
#include "core/text.hpp"
#include "core/yaml_text.hpp"
#include "plugin/plugin_loader.hpp"
#include "problem/problem_registry.hpp"
#include "suite/grid.hpp"

namespace fedbench::suite {

namespace {

const std::vector<std::string> kTopKeys = {"name",   "results",  "seeds",    "rounds",
                                           "participation", "eval", "budget", "problems",
                                           "solvers", "run_timeout"};

std::string scalar(const YAML::Node& node, const std::string& file, const std::string& what) {
  if (!node.IsScalar()) throw UserError(where(file, node) + what + " must be a single value");
  return node.Scalar();
}

std::int64_t whole_number(const YAML::Node& node, const std::string& file,
                          const std::string& what, std::int64_t min) {
  const std::string text = scalar(node, file, what);
  long long v = 0;
  constexpr long long kMax = 9'000'000'000'000'000'000;
  if (!parse_whole_number(text, v) || v < min || v > kMax)
    throw UserError(where(file, node) + not_a_whole_number(what, text, min, kMax));
  return v;
}

double real_number(const YAML::Node& node, const std::string& file, const std::string& what) {
  const std::string text = scalar(node, file, what);
  double v = 0;
  if (!parse_real(text, v)) throw UserError(where(file, node) + what + " = '" + text + "' is not a number");
  return v;
}

// A finite number > 0 (nan, inf, 0 and negatives would silently mean "no limit" or "stop at once").
double positive_real(const YAML::Node& node, const std::string& file, const std::string& what,
                     const std::string& unit) {
  const double v = real_number(node, file, what);
  if (!std::isfinite(v) || v <= 0)
    throw UserError(where(file, node) + what + " = '" + node.Scalar() + "' is not a number > 0 (" + unit + ")");
  return v;
}

struct Entry {  // one problem or solver of the suite, with its expanded points
  std::string name, where;
  std::vector<ParamMap> points;
  std::vector<Participation> participations;  //!< a solver's own (empty: the suite's)
};

std::vector<Participation> read_participations(const YAML::Node& node, const std::string& file) {
  std::vector<Participation> out;
  for (const auto& p : expand_node(node, file, "participation")) {
    try {
      out.push_back(Participation::parse(p));
    } catch (const UserError& e) {
      throw UserError(where(file, node) + e.what());
    }
  }
  return out;
}

// Keeps the entries named in `names` (all when empty): `run SUITE --solver NAME`.
void keep_only(std::vector<Entry>& entries, const std::vector<std::string>& names,
               const std::string& path, const std::string& kind) {
  if (names.empty()) return;
  std::vector<std::string> present;
  for (const auto& e : entries) present.push_back(e.name);
  for (const auto& n : names)
    if (std::find(present.begin(), present.end(), n) == present.end())
      throw UserError(path + " has no " + kind + " '" + n + "'; it has: " + join(present, ", ") +
                      did_you_mean(n, present));
  std::erase_if(entries, [&](const Entry& e) {
    return std::find(names.begin(), names.end(), e.name) == names.end();
  });
}

// Applies a command-line grid override to every entry whose schema has the key.
void apply_overrides(std::vector<Entry>& entries, const std::vector<std::string>& items,
                     const std::vector<ParamSpec>& (*specs_of)(const std::string&),
                     const std::string& kind) {
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UserError(kind + " grid '" + item + "' is not of the form key=v1,v2,...");
    const std::string key = item.substr(0, eq);
    std::vector<std::string> values;
    // Commas separate values, except inside logspace(...) and friends.
    std::string current;
    int depth = 0;
    for (char c : item.substr(eq + 1) + ",") {
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c == ',' && depth == 0) {
        for (auto& v : expand_text(current, kind + " " + key)) values.push_back(v);
        current.clear();
      } else {
        current += c;
      }
    }
    if (values.empty() || values.front().empty())
      throw UserError(kind + " grid '" + item + "' has no values");
    bool used = false;
    for (auto& e : entries) {
      const auto& specs = specs_of(e.name);
      if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; }))
        continue;
      used = true;
      std::vector<ParamMap> unique;  // the file may have crossed `key` already: dedupe, in order
      std::set<ParamMap> seen;        // (a linear search here took minutes for 10^5 values)
      for (const auto& p : e.points)
        for (const auto& v : values) {
          ParamMap m = p;
          m[key] = v;
          if (seen.insert(m).second) unique.push_back(std::move(m));
        }
      e.points = std::move(unique);
    }
    if (!used) throw UserError("no " + kind + " of the suite has a parameter '" + key + "'");
  }
}

const std::vector<ParamSpec>& solver_specs(const std::string& n) {
  return solver_registry().get(n).params;
}
const std::vector<ParamSpec>& problem_specs(const std::string& n) {
  return problem_registry().get(n).params;
}

// Unknown parameter names are refused before any grid is expanded (ten unknown keys of ten
// values each would otherwise cross to 10^10 points first).
void check_param_names(const YAML::Node& params, const std::string& file, const std::string& owner,
                       const std::vector<ParamSpec>& specs) {
  if (!params || !params.IsMap()) return;
  auto check = [&](const YAML::Node& key) {
    const std::string name = key.Scalar();
    if (std::any_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == name; })) return;
    try {
      detail::unknown_parameter(owner, name, specs);
    } catch (const UserError& e) {
      throw UserError(where(file, key) + e.what());
    }
  };
  for (const auto& kv : params) {
    if (kv.first.Scalar() != "zip" || !kv.second.IsMap()) check(kv.first);
    else for (const auto& z : kv.second) check(z.first);
  }
}

// One entry named `name`, with its points checked against the registry.
Entry read_entry(const YAML::Node& item, const std::string& name, const YAML::Node& name_node,
                 const std::string& file, const std::string& kind, bool solvers) {
  Entry e;
  e.name = name;
  e.where = where(file, item);
  try {
    if (solvers) solver_registry().get(e.name);
    else problem_registry().get(e.name);
  } catch (const UserError& err) {
    throw UserError(where(file, name_node) + err.what());
  }
  check_param_names(item["params"], file, kind + " " + e.name,
                    solvers ? solver_registry().get(e.name).params : problem_registry().get(e.name).params);
  e.points = expand_params(item["params"], file, kind + " " + e.name);
  // Reject unknown keys and bad values now, pointing at the entry.
  for (const auto& p : e.points) {
    try {
      if (solvers) solver_registry().get(e.name).resolved(p);
      else problem_registry().get(e.name).resolved(p);
    } catch (const UserError& err) {
      throw UserError(where(file, item) + err.what());
    }
  }
  if (solvers && item["participation"]) e.participations = read_participations(item["participation"], file);
  return e;
}

// `- python: FILE` (relative to the suite file): loads the Python solver file as a plug-in and
// stands for the solvers it declares, or for the one `name` picks.
std::vector<std::string> python_solvers(const YAML::Node& item, const std::string& file) {
  const YAML::Node path_node = item["python"];
  std::string path = scalar(path_node, file, "python");
  if (!std::filesystem::path(path).is_absolute())
    path = (std::filesystem::path(file).parent_path() / path).lexically_normal().string();
  std::string canonical;
  try {
    canonical = origin_of_file(path).path;
    load_plugin(path);
  } catch (const UserError& err) {
    throw UserError(where(file, path_node) + err.what());
  }
  std::vector<std::string> names;
  for (const auto& n : solver_registry().names()) {
    const auto& origin = solver_registry().get(n).plugin;
    if (origin && origin->path == canonical && solver_registry().get(n).alias_of.empty()) names.push_back(n);
  }
  if (!item["name"]) return names;
  const std::string picked = scalar(item["name"], file, "solver name");
  if (std::find(names.begin(), names.end(), picked) == names.end())
    throw UserError(where(file, item["name"]) + path + " declares no solver '" + picked + "'; it declares: " +
                    join(names, ", ") + did_you_mean(picked, names));
  return {picked};
}

std::vector<Entry> read_entries(const YAML::Node& list, const std::string& file,
                                const std::string& kind, bool solvers) {
  if (!list || !list.IsSequence() || list.size() == 0)
    throw UserError(where(file, list) + "'" + kind + "s' must be a non-empty list of {name, params}");
  std::vector<Entry> out;
  for (const auto& item : list) {
    if (solvers && item.IsMap() && item["python"]) {
      check_keys(item, {"python", "name", "params", "participation"}, file, kind + " entry");
      for (const auto& name : python_solvers(item, file))
        out.push_back(read_entry(item, name, item["python"], file, kind, solvers));
      continue;
    }
    if (solvers) check_keys(item, {"name", "params", "participation"}, file, kind + " entry");
    else check_keys(item, {"name", "params"}, file, kind + " entry");
    if (!item["name"]) throw UserError(where(file, item) + kind + " entry without a name");
    out.push_back(read_entry(item, scalar(item["name"], file, kind + " name"), item["name"], file, kind, solvers));
  }
  return out;
}

double cost_of(const RunRequest& r) {
  auto number = [](const ParamMap& m, const char* key, double fallback) {
    double v = 0;
    auto it = m.find(key);
    return it != m.end() && parse_real(it->second, v) ? v : fallback;
  };
  return static_cast<double>(r.budget.rounds) * number(r.problem_params, "clients", 20) *
         number(r.solver_params, "local_steps", 1);
}

}  // namespace

namespace {

// The configuration a run's identity describes, from its request and resolved parameters.
RunConfig identity_config(const RunRequest& request, const ParamMap& problem_params,
                          const ParamMap& solver_params) {
  RunConfig c;
  c.problem = request.problem;
  c.problem_params = problem_params;
  c.solver = request.solver;
  c.solver_params = solver_params;
  c.participation = request.participation;
  c.seed = request.seed;
  c.budget = request.budget;
  c.eval = request.eval;
  return c;
}

// The identity text of such a configuration: it and the implementation versions.
std::string identity_of(const RunConfig& c) {
  YAML::Emitter versions;
  versions << YAML::BeginMap << YAML::Key << "versions" << YAML::Value << YAML::BeginMap;
  versions << YAML::Key << "problem" << YAML::Value << problem_registry().get(c.problem).version;
  versions << YAML::Key << "solver" << YAML::Value << solver_registry().get(c.solver).version;
  versions << YAML::EndMap << YAML::EndMap;
  return c.to_text() + identity_yaml(versions);
}

}  // namespace

std::string identity_text(const RunRequest& request) {
  const ParamMap problem_params = problem_registry().get(request.problem).resolved(request.problem_params);
  const ParamMap solver_params = solver_registry().get(request.solver).resolved(request.solver_params);
  return identity_of(identity_config(request, problem_params, solver_params));
}

std::string run_id(const std::string& text) {
  std::uint64_t h = hash_name(text);
  h = mix64(h ^ text.size());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

RunRequest request_from_identity(const std::string& text) {
  try {
    const YAML::Node root = YAML::Load(text);
    const auto part = [&](const char* name, std::string& who, ParamMap& params) {
      who = root[name]["name"].as<std::string>();
      for (const auto& kv : root[name]["params"]) params[kv.first.as<std::string>()] = kv.second.as<std::string>();
    };
    RunRequest r;
    part("problem", r.problem, r.problem_params);
    part("solver", r.solver, r.solver_params);
    r.participation = Participation::parse(root["federation"]["participation"].as<std::string>());
    r.seed = root["seed"].as<std::uint64_t>();
    const YAML::Node b = root["budget"];
    r.budget.rounds = b["rounds"].as<std::int64_t>();
    if (b["max_samples"]) r.budget.max_samples = b["max_samples"].as<std::int64_t>();
    if (b["max_bytes"]) r.budget.max_bytes = b["max_bytes"].as<std::int64_t>();
    if (b["time_limit"]) r.budget.time_limit = b["time_limit"].as<double>();
    if (b["target"]) r.budget.target = Target::parse(b["target"].as<std::string>());
    r.budget.divergence_factor = b["divergence_factor"].as<double>();
    const std::string eval = root["eval"].as<std::string>();
    const std::int64_t n = std::stoll(eval.substr(eval.find(':') + 1));
    if (eval.rfind("log:", 0) == 0)
      r.eval.log_points_per_decade = static_cast<int>(n);
    else
      r.eval.every = n;
    return r;
  } catch (const std::exception& e) {
    throw InternalError(std::string("not a run's identity text: ") + e.what());
  }
}

namespace {

// The phases of load_suite_plan, in order; each reads one part of the file and throws UserError
// "FILE:LINE: ..." for a bad one.

// name and results directory (a file may write only below the working directory).
void read_name_and_results(const YAML::Node& root, const std::string& path, const SuiteOverrides& overrides,
                           SuitePlan& suite) {
  if (root["name"]) {
    suite.name = scalar(root["name"], path, "name");
    if (const std::string why = unusable_name(suite.name); !why.empty())
      throw UserError(where(path, root["name"]) + "name " + json_literal(suite.name) + " " + why +
                      "; a suite's name is a directory name (results/NAME): use letters, digits, '-', '_', '.'");
  } else {
    std::string stem = path.substr(path.find_last_of('/') + 1);
    suite.name = stem.substr(0, stem.find('.'));
    if (const std::string why = unusable_name(suite.name); !why.empty())
      throw UserError(path + ": a suite without 'name' is named after its file, and " +
                      json_literal(suite.name) + " " + why +
                      "; add name: NAME with letters, digits, '-', '_', '.'");
  }
  suite.results_dir = overrides.results_dir.empty()
                          ? (root["results"] ? scalar(root["results"], path, "results")
                                             : "results/" + suite.name)
                          : overrides.results_dir;
  // A suite file (perhaps someone else's) writes only below the working directory; a
  // directory elsewhere must come from the user's own command line.
  if (overrides.results_dir.empty()) {
    const std::filesystem::path dir(suite.results_dir);
    const bool escapes = dir.is_absolute() || suite.results_dir.empty() ||
                         std::any_of(dir.begin(), dir.end(), [](const auto& part) { return part == ".."; });
    if (escapes)
      throw UserError(where(path, root["results"] ? root["results"] : root) + "results: '" +
                      suite.results_dir +
                      "' is outside the working directory; a suite file may only name a "
                      "directory below it (pass --results DIR to write elsewhere)");
    // Nor may a link planted along the way lead out of it.
    io::refuse_links_along(suite.results_dir, "a suite file's results directory stays below the working "
                                              "directory (pass --results DIR to write elsewhere)");
  }
}

std::vector<std::uint64_t> read_seeds(const YAML::Node& root, const std::string& path,
                                      const SuiteOverrides& overrides) {
  std::vector<std::uint64_t> seeds{0};
  if (root["seeds"]) {
    seeds.clear();
    for (const auto& s : expand_node(root["seeds"], path, "seeds")) {
      long long v = 0;
      if (!parse_whole_number(s, v) || v < 0)
        throw UserError(where(path, root["seeds"]) + not_a_whole_number("seed", s, 0, kMaxSeed));
      seeds.push_back(static_cast<std::uint64_t>(v));
    }
  }
  if (!overrides.seeds.empty()) seeds = overrides.seeds;
  return seeds;
}

Budget read_budget(const YAML::Node& root, const std::string& path, const SuiteOverrides& overrides) {
  Budget budget;
  if (root["rounds"]) budget.rounds = whole_number(root["rounds"], path, "rounds", 0);
  if (overrides.rounds) budget.rounds = *overrides.rounds;
  if (const auto b = root["budget"]) {
    check_keys(b, {"max_samples", "max_bytes", "time_limit", "target", "divergence_factor"}, path,
               "budget");
    if (b["max_samples"]) budget.max_samples = whole_number(b["max_samples"], path, "max_samples", 0);
    if (b["max_bytes"]) budget.max_bytes = whole_number(b["max_bytes"], path, "max_bytes", 0);
    if (b["time_limit"]) budget.time_limit = positive_real(b["time_limit"], path, "time_limit", "seconds");
    if (b["divergence_factor"])
      budget.divergence_factor = positive_real(b["divergence_factor"], path, "divergence_factor", "a factor");
    if (b["target"]) {
      try {
        budget.target = Target::parse(scalar(b["target"], path, "target"));
      } catch (const UserError& e) {
        throw UserError(where(path, b["target"]) + e.what());
      }
    }
  }
  return budget;
}

EvalSchedule read_eval(const YAML::Node& root, const std::string& path) {
  EvalSchedule eval;
  if (const auto e = root["eval"]) {
    check_keys(e, {"every", "log", "min_points"}, path, "eval");
    if (e["every"]) eval.every = whole_number(e["every"], path, "eval every", 1);
    if (e["log"]) {  // an int: 2^32 would wrap to 0, silently every round
      const std::int64_t log = whole_number(e["log"], path, "eval log", 1);
      if (log > std::numeric_limits<int>::max())
        throw UserError(where(path, e["log"]) + "eval log = " + std::to_string(log) +
                        " is more than " + std::to_string(std::numeric_limits<int>::max()) +
                        " points per decade");
      eval.log_points_per_decade = static_cast<int>(log);
    }
  }
  return eval;
}

// A budget cut short from outside (an experiment's --quick rounds) keeps the file's schedule
// for the full budget, which may leave a curve of two or three points. A suite that gives
// `eval: {min_points: N}` evaluates such runs at the largest divisor of `every` that gives at
// least N rows after round 0, so every round the file's schedule evaluates (a claim's round)
// is still evaluated. Only on request: where an evaluation costs many rounds, more points
// multiply the quick run's time.
EvalSchedule shortened_eval(EvalSchedule eval, const YAML::Node& root, const std::string& path,
                            const SuiteOverrides& overrides, std::int64_t rounds) {
  const auto e = root["eval"];
  if (!e || !e["min_points"]) return eval;
  const std::int64_t points = whole_number(e["min_points"], path, "eval min_points", 1);
  if (!overrides.rounds || eval.log_points_per_decade > 0 || rounds / eval.every >= points) return eval;
  std::int64_t every = 1;
  for (std::int64_t d = 1; d <= std::min(eval.every, rounds / points); ++d)
    if (eval.every % d == 0) every = d;
  eval.every = every;
  return eval;
}

// Refuses a suite past kMaxSuiteRuns before any run is resolved.
void check_size(const std::vector<Entry>& problems, const std::vector<Entry>& solvers,
                const std::vector<Participation>& participations, std::size_t seeds, const std::string& path) {
  double total = 0, solver_points = 0;
  for (const auto& se : solvers)
    solver_points += static_cast<double>(se.points.size()) *
                     static_cast<double>(se.participations.empty() ? participations.size() : se.participations.size());
  for (const auto& pe : problems) total += static_cast<double>(pe.points.size()) * solver_points;
  total *= static_cast<double>(seeds);
  if (total > kMaxSuiteRuns)
    throw UserError(path + ": the suite expands to " + format_real(total) + " runs; a suite may have at most " +
                    std::to_string(static_cast<long long>(kMaxSuiteRuns)) + " (split it into several suites)");
}

// Keeps the first of equal items, in order: points equal after resolution (a default written
// out, a number spelled differently) would repeat the same runs, with the same ids. Indexed by
// position, so that a grid of many points is not held twice.
template <class T, class Less>
class FirstOfEqual {
 public:
  FirstOfEqual() : index_(ByIndex{&items_}) {}
  FirstOfEqual(const FirstOfEqual&) = delete;  // the index points at items_
  FirstOfEqual& operator=(const FirstOfEqual&) = delete;
  void add(T item) {
    items_.push_back(std::move(item));
    if (!index_.insert(items_.size() - 1).second) items_.pop_back();
  }
  std::vector<T> take() { return std::move(items_); }

 private:
  struct ByIndex {
    const std::vector<T>* items;
    bool operator()(std::size_t a, std::size_t b) const { return Less{}((*items)[a], (*items)[b]); }
  };
  std::vector<T> items_;
  std::set<std::size_t, ByIndex> index_;
};

// The evaluation schedule is not compared: it follows from the problem's name.
struct ProblemLess {
  bool operator()(const SuitePlan::ProblemPoint& a, const SuitePlan::ProblemPoint& b) const {
    return std::tie(a.name, a.resolved) < std::tie(b.name, b.resolved);
  }
};

struct SolverLess {
  bool operator()(const SuitePlan::SolverPoint& a, const SuitePlan::SolverPoint& b) const {
    if (a.name != b.name || a.resolved != b.resolved)
      return std::tie(a.name, a.resolved) < std::tie(b.name, b.resolved);
    return a.participation.to_text() < b.participation.to_text();  // what the identity holds
  }
};

// A point of an entry, resolved (once: a grid crossed with 1000 seeds would otherwise resolve
// the same parameters 1000 times). A bad value of a command-line override is refused here.
template <class Point>
Point resolved_point(const Entry& e, ParamMap params, bool solver) {
  Point p;
  p.name = e.name;
  p.resolved = solver ? solver_registry().get(e.name).resolved(params)
                      : problem_registry().get(e.name).resolved(params);
  p.params = std::move(params);
  p.where = e.where;
  return p;
}

// The entries' points are moved, not copied: a grid of 10^6 points is not held twice.
// `eval`: the suite's schedule, if it gives one.
std::vector<SuitePlan::ProblemPoint> problem_points(std::vector<Entry>&& entries,
                                                   const std::optional<EvalSchedule>& eval) {
  FirstOfEqual<SuitePlan::ProblemPoint, ProblemLess> out;
  for (auto& e : entries) {
    for (auto& params : e.points) {
      auto p = resolved_point<SuitePlan::ProblemPoint>(e, std::move(params), false);
      p.eval = eval ? *eval : default_eval_schedule(e.name);
      out.add(std::move(p));
    }
    e.points = {};
  }
  return out.take();
}

// Each solver point once per participation: the entry's own, else the suite's.
std::vector<SuitePlan::SolverPoint> solver_points(std::vector<Entry>&& entries,
                                                 const std::vector<Participation>& participations) {
  FirstOfEqual<SuitePlan::SolverPoint, SolverLess> out;
  for (auto& e : entries) {
    const auto& parts = e.participations.empty() ? participations : e.participations;
    if (parts.empty()) continue;  // `participation: []`: no runs
    for (auto& params : e.points) {
      auto p = resolved_point<SuitePlan::SolverPoint>(e, std::move(params), true);
      for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
        auto with = p;
        with.participation = parts[k];
        out.add(std::move(with));
      }
      p.participation = parts.back();
      out.add(std::move(p));
    }
    e.points = {};
  }
  return out.take();
}

std::vector<std::uint64_t> distinct_seeds(const std::vector<std::uint64_t>& seeds) {
  std::vector<std::uint64_t> out;
  std::set<std::uint64_t> seen;
  for (std::uint64_t s : seeds)
    if (seen.insert(s).second) out.push_back(s);
  return out;
}

// The runs of `plan` with its first `seeds` seeds (problem points x solver points x seeds),
// built into one reused SuiteRun: only what changes from one run to the next is set again, so
// that 10^6 runs do not copy their parameter maps 10^6 times.
void for_each(const SuitePlan& plan, std::size_t seeds, const std::function<void(const SuiteRun&)>& visit) {
  SuiteRun run;
  run.request.budget = plan.budget;
  for (const auto& p : plan.problems) {
    run.request.problem = p.name;
    run.request.problem_params = p.params;
    run.request.eval = p.eval;
    run.problem_where = p.where;
    for (const auto& s : plan.solvers) {
      run.request.solver = s.name;
      run.request.solver_params = s.params;
      run.request.participation = s.participation;
      run.solver_where = s.where;
      run.cost = cost_of(run.request);
      RunConfig config = identity_config(run.request, p.resolved, s.resolved);
      throw_if_interrupted();  // a grid of 10^6 runs takes a while: Ctrl-C ends it here
      for (std::size_t k = 0; k < seeds; ++k) {
        run.request.seed = config.seed = plan.seeds[k];
        run.identity_text = identity_of(config);
        run.id = run_id(run.identity_text);
        visit(run);
      }
    }
  }
}

}  // namespace

void SuitePlan::for_each_run(const std::function<void(const SuiteRun&)>& visit) const {
  for_each(*this, seeds.size(), visit);
}

void SuitePlan::for_each_configuration(const std::function<void(const SuiteRun&)>& visit) const {
  for_each(*this, std::min<std::size_t>(seeds.size(), 1), visit);
}

SuitePlan load_suite_plan(const std::string& path, const SuiteOverrides& overrides) {
  const YAML::Node root = load_yaml_file(path, "suite");
  if (!root.IsMap()) throw UserError(path + ": a suite file is a map (name, problems, solvers, ...)");
  check_keys(root, kTopKeys, path, "suite");

  SuitePlan plan;
  plan.path = path;
  read_name_and_results(root, path, overrides, plan);
  const std::vector<std::uint64_t> seeds = read_seeds(root, path, overrides);
  plan.budget = read_budget(root, path, overrides);
  if (root["run_timeout"]) plan.run_timeout = positive_real(root["run_timeout"], path, "run_timeout", "seconds");
  const EvalSchedule eval = shortened_eval(read_eval(root, path), root, path, overrides, plan.budget.rounds);
  std::vector<Participation> participations{Participation{}};
  if (root["participation"]) participations = read_participations(root["participation"], path);

  auto problems = read_entries(root["problems"], path, "problem", false);
  auto solvers = read_entries(root["solvers"], path, "solver", true);
  keep_only(problems, overrides.only_problems, path, "problem");
  keep_only(solvers, overrides.only_solvers, path, "solver");
  plan.partial = !overrides.only_problems.empty() || !overrides.only_solvers.empty();
  apply_overrides(problems, overrides.problem_params, problem_specs, "problem");
  apply_overrides(solvers, overrides.solver_params, solver_specs, "solver");
  check_size(problems, solvers, participations, seeds.size(), path);

  plan.problems =
      problem_points(std::move(problems), root["eval"] ? std::optional<EvalSchedule>(eval) : std::nullopt);
  plan.solvers = solver_points(std::move(solvers), participations);
  plan.seeds = distinct_seeds(seeds);
  if (plan.size() == 0) throw UserError(path + ": the suite expands to no runs");
  return plan;
}

Suite load_suite(const std::string& path, const SuiteOverrides& overrides) {
  const SuitePlan plan = load_suite_plan(path, overrides);
  Suite suite;
  suite.path = plan.path;
  suite.name = plan.name;
  suite.results_dir = plan.results_dir;
  suite.partial = plan.partial;
  suite.run_timeout = plan.run_timeout;
  suite.runs.reserve(plan.size());
  plan.for_each_run([&](const SuiteRun& run) { suite.runs.push_back(run); });
  return suite;
}

}  // namespace fedbench::suite
