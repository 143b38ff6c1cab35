#include "engine/run_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/yaml_text.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench {

Participation Participation::parse(const std::string& text) {
  Participation p;
  const auto bad = [&] {
    return UserError("participation '" + text +
                     "' is not valid; use full, uniform:M (M distinct clients per round), "
                     "bernoulli:Q (each client joins with probability 0 < Q <= 1), iid:M (M "
                     "uniform draws with replacement, the theory's i.i.d. clients) or dropout:M:R "
                     "(M distinct candidates, of which M - floor(U R M) respond, U uniform on [0, 1), "
                     "0 <= R < 1)");
  };
  if (text == "full") return p;
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw bad();
  const auto mode = text.substr(0, colon), arg = text.substr(colon + 1);
  if (mode == "uniform" || mode == "iid") {
    long long m = 0;
    if (!parse_whole_number(arg, m) || m < 1 || m > 1000000) throw bad();
    p.mode = mode == "iid" ? Mode::iid : Mode::uniform;
    p.clients_per_round = static_cast<int>(m);
  } else if (mode == "dropout") {
    const auto second = arg.find(':');
    long long m = 0;
    double r = -1;
    if (second == std::string::npos || !parse_whole_number(arg.substr(0, second), m) || m < 1 ||
        m > 1000000 || !parse_real(arg.substr(second + 1), r) || !(r >= 0 && r < 1))
      throw bad();
    p.mode = Mode::dropout;
    p.clients_per_round = static_cast<int>(m);
    p.drop_fraction = r;
  } else if (mode == "bernoulli") {
    double q = 0;
    if (!parse_real(arg, q) || !(q > 0 && q <= 1)) throw bad();
    p.mode = Mode::bernoulli;
    p.prob = q;
  } else {
    throw bad();
  }
  return p;
}

std::string Participation::to_text() const {
  switch (mode) {
    case Mode::full: return "full";
    case Mode::uniform: return "uniform:" + std::to_string(clients_per_round);
    case Mode::bernoulli: return "bernoulli:" + format_real(prob);
    case Mode::iid: return "iid:" + std::to_string(clients_per_round);
    case Mode::dropout:
      return "dropout:" + std::to_string(clients_per_round) + ":" + format_real(drop_fraction);
  }
  return "full";
}

bool EvalSchedule::due(std::int64_t round) const {
  if (round == 0) return true;
  if (log_points_per_decade <= 0) return round % every == 0;
  if (round == 1) return true;
  // Due when [round - 1, round] contains a point 10^(k / per_decade): about per_decade rows
  // per decade, every round while the points are denser than the rounds.
  const double per = log_points_per_decade;
  const auto bucket = [per](std::int64_t r) {
    return std::floor(std::log10(static_cast<double>(r)) * per + 1e-9);
  };
  return bucket(round) > bucket(round - 1);
}

EvalSchedule default_eval_schedule(const std::string& problem) {
  EvalSchedule schedule;
  if (problem_registry().get(problem).expensive_metrics) schedule.log_points_per_decade = 10;
  return schedule;
}

std::string EvalSchedule::to_text() const {
  if (log_points_per_decade > 0) return "log:" + std::to_string(log_points_per_decade);
  return "every:" + std::to_string(every);
}

Target Target::parse(const std::string& text) {
  Target t;
  auto pos = text.find("<=");
  if (pos == std::string::npos) {
    pos = text.find(">=");
    t.direction = Direction::max;
  }
  if (pos == std::string::npos || pos == 0 || !parse_real(text.substr(pos + 2), t.value))
    throw UserError("target '" + text +
                    "' is not of the form METRIC<=VALUE or METRIC>=VALUE, e.g. rel_error<=1e-10 or "
                    "test_accuracy>=0.9");
  t.metric = text.substr(0, pos);
  return t;
}

std::string Target::to_text() const { return metric + op() + format_real(value); }

namespace {

// "problem:" or "solver:": its name, then its parameters in key order.
void emit_part(YAML::Emitter& out, const char* part, const std::string& name, const ParamMap& params) {
  out << YAML::Key << part << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << name;
  out << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : params) out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap << YAML::EndMap;
}

}  // namespace

std::string RunConfig::to_text() const {
  YAML::Emitter out;
  out << YAML::BeginMap;
  emit_part(out, "problem", problem, problem_params);
  emit_part(out, "solver", solver, solver_params);
  out << YAML::Key << "federation" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "participation" << YAML::Value << participation.to_text() << YAML::EndMap;
  out << YAML::Key << "seed" << YAML::Value << seed;
  out << YAML::Key << "budget" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "rounds" << YAML::Value << budget.rounds;
  if (budget.max_samples) out << YAML::Key << "max_samples" << YAML::Value << *budget.max_samples;
  if (budget.max_bytes) out << YAML::Key << "max_bytes" << YAML::Value << *budget.max_bytes;
  // Reals as their shortest exact text, as everywhere in the canonical configuration.
  if (budget.time_limit) out << YAML::Key << "time_limit" << YAML::Value << format_real(*budget.time_limit);
  if (budget.target) out << YAML::Key << "target" << YAML::Value << budget.target->to_text();
  out << YAML::Key << "divergence_factor" << YAML::Value << format_real(budget.divergence_factor);
  out << YAML::EndMap;
  out << YAML::Key << "eval" << YAML::Value << eval.to_text();
  out << YAML::EndMap;
  return identity_yaml(out);
}

}  // namespace fedbench
