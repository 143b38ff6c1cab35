#include "results/select.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/trajectory_file.hpp"
#include "results/results_store.hpp"
#include "results/score.hpp"

namespace fedbench::suite {

SelectCriterion SelectCriterion::parse(const std::string& metric, const std::string& at) {
  SelectCriterion c;
  c.metric = metric;
  if (at == "auc") {
    c.axis = Axis::auc;
    return c;
  }
  const auto eq = at.find('=');
  const std::string axis = eq == std::string::npos ? at : at.substr(0, eq);
  const std::map<std::string, Axis> axes{
      {"rounds", Axis::rounds}, {"samples", Axis::samples}, {"bytes", Axis::bytes}};
  if (eq == std::string::npos || !axes.count(axis) || !parse_real(at.substr(eq + 1), c.budget) ||
      c.budget < 0)
    throw UserError("--at '" + at + "' is not one of rounds=R, samples=S, bytes=B or auc");
  c.axis = axes.at(axis);
  return c;
}

std::string SelectCriterion::describe() const {
  switch (axis) {
    case Axis::rounds: return metric + " at rounds=" + format_real(budget);
    case Axis::samples: return metric + " at samples=" + format_real(budget);
    case Axis::bytes: return metric + " at bytes=" + format_real(budget);
    case Axis::auc: return "area under log10 " + metric + " over rounds";
  }
  return metric;
}

namespace {

// The score of one run: its metric at the budget, or the area under log10 of it.
double score(const io::StoredRun& run, const SelectCriterion& c, Direction d) {
  if (c.axis == SelectCriterion::Axis::auc) return log_area(run, c.metric, d);
  const char* axis = c.axis == SelectCriterion::Axis::samples ? "samples"
                     : c.axis == SelectCriterion::Axis::bytes ? "bytes"
                                                              : "round";
  return value_at(run, c.metric, axis, c.budget, d);
}

// The configuration text without its seed line: runs that share it differ only in the seed.
std::string without_seed(const std::string& config) {
  std::string out;
  for (const auto& line : split(config, '\n'))
    if (line.rfind("seed:", 0) != 0) out += line + "\n";
  return out;
}

std::string problem_block(const std::string& config) {
  const auto end = config.find("\nsolver:");
  return config.substr(0, end);
}

}  // namespace

std::string recorded_primary_metric(const std::string& results_dir, bool all_runs) {
  const auto files = ResultsStore(results_dir).suite_files(all_runs, /*quiet=*/true);
  for (const auto& f : files) {
    const auto run = read_complete_run(f);
    if (!run) continue;
    const auto it = run->text.find("primary_metric");
    return it == run->text.end() || it->second.empty() ? "rel_error" : it->second;
  }
  throw UserError("no finished runs under " + results_dir + "/runs");
}

Selection select_best(const std::string& results_dir, const SelectCriterion& criterion, bool all_runs) {
  const auto files = ResultsStore(results_dir).suite_files(all_runs);
  if (files.empty()) throw UserError("no finished runs under " + results_dir + "/runs");
  std::map<std::string, Configuration> groups;
  Selection s;
  std::string columns_seen;  // of a run without the metric, for the error when none has it
  std::optional<Direction> direction;  // --maximize / --minimize, else the one recorded with the metric
  StaleTally stale;
  if (criterion.direction) direction = criterion.direction;
  for (const auto& f : files) {
    const auto stored = read_complete_run(f);  // a corrupt file is reported and left out
    if (!stored) continue;
    const io::StoredRun& run = *stored;
    // A directory may hold several problems: those without the metric are not candidates.
    if (!run.columns.count(criterion.metric)) {
      columns_seen = join(run.column_names, ", ");
      continue;
    }
    if (!direction) direction = recorded_direction(run, criterion.metric);
    const std::string config = run.text.at("config");
    Configuration& g = groups[without_seed(config)];
    if (g.solver.empty()) {
      g.problem = run.text.at("problem");
      g.solver = run.text.at("solver");
      g.problem_params = run.problem_params;
      g.solver_params = run.solver_params;
      g.problem_key = problem_block(config);
      g.participation = participation_of(config);
      g.config_text = config;
    }
    g.seeds.push_back(static_cast<std::uint64_t>(run.numbers.at("seed")));
    g.scores.push_back(score(run, criterion, *direction));
    stale.add(run);
  }
  stale.report();
  if (groups.empty())
    throw UserError("no run under " + results_dir + "/runs has the metric '" + criterion.metric +
                    "'" + (columns_seen.empty() ? std::string() : "; columns: " + columns_seen));
  const Direction d = direction.value_or(Direction::min);
  s.direction = d;
  std::map<std::pair<std::string, std::string>, std::size_t> best;  // (problem, solver) -> index
  for (auto& [key, g] : groups) {
    g.median = median(g.scores);
    s.all.push_back(g);
    const auto slot = std::make_pair(g.problem_key, g.solver);
    auto it = best.find(slot);
    if (it == best.end() || better(d, g.median, s.all[it->second].median)) best[slot] = s.all.size() - 1;
  }
  for (const auto& [slot, index] : best) s.winners.push_back(s.all[index]);
  std::sort(s.winners.begin(), s.winners.end(), [&](const Configuration& a, const Configuration& b) {
    return a.problem_key != b.problem_key ? a.problem_key < b.problem_key : better(d, a.median, b.median);
  });
  return s;
}

std::string winners_suite(const std::vector<Configuration>& winners,
                          const std::vector<std::uint64_t>& seeds, const std::string& name,
                          const std::string& comment) {
  FEDBENCH_CHECK(!winners.empty(), "winners_suite needs a winner");
  // The budget and schedule from a winner's configuration text; a crafted run file can hold
  // text that does not parse (select itself reads that text without a parser).
  YAML::Node config;
  try {
    config = YAML::Load(winners.front().config_text);
  } catch (const YAML::Exception& e) {
    throw UserError("the configuration of the winning " + winners.front().solver +
                    " runs does not parse (" + e.what() + "); rerun them or remove their files");
  }
  YAML::Emitter out;
  out << YAML::Comment(comment) << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << name;
  out << YAML::Key << "seeds" << YAML::Value << YAML::Flow << seeds;
  const YAML::Node budget = config["budget"];
  out << YAML::Key << "rounds" << YAML::Value << budget["rounds"].Scalar();
  const std::string eval = config["eval"].Scalar();  // "every:K" or "log:N"
  const auto colon = eval.find(':');
  out << YAML::Key << "eval" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << (eval.substr(0, colon) == "log" ? "log" : "every") << YAML::Value
      << eval.substr(colon + 1) << YAML::EndMap;
  out << YAML::Key << "budget" << YAML::Value << YAML::BeginMap;
  for (const auto& kv : budget)
    if (kv.first.Scalar() != "rounds")
      out << YAML::Key << kv.first.Scalar() << YAML::Value << kv.second.Scalar();
  out << YAML::EndMap;
  out << YAML::Key << "problems" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << winners.front().problem;
  out << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : winners.front().problem_params) out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "solvers" << YAML::Value << YAML::BeginSeq;
  // Each winner keeps every setting of its own configuration: its participation too (tuning
  // suites give methods that upload more per client fewer clients per round).
  for (const auto& w : winners) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << w.solver;
    out << YAML::Key << "participation" << YAML::Value << participation_of(w.config_text);
    out << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : w.solver_params) out << YAML::Key << k << YAML::Value << v;
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::vector<std::string> winners_suites(const Selection& selection, const std::vector<std::uint64_t>& seeds,
                                        const std::string& name, const std::string& comment) {
  std::map<std::string, std::vector<Configuration>> by_problem;
  for (const auto& w : selection.winners) by_problem[w.problem_key].push_back(w);
  std::vector<std::string> suites;
  for (const auto& [key, winners] : by_problem)
    suites.push_back(winners_suite(winners, seeds.empty() ? winners.front().seeds : seeds, name, comment));
  return suites;
}

}  // namespace fedbench::suite
