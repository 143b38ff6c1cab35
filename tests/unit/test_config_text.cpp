// The run's configuration text, written by yaml-cpp's emitter, is byte for byte the text the
// run ids were first computed from (the hand-assembled text, kept here as the oracle), and
// YAML reads the values back from it.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <random>

#include "core/text.hpp"
#include "engine/run_config.hpp"

using namespace fedbench;

namespace {

// The configuration text as fedbench assembled it by hand before the emitter wrote it.
std::string hand_built_text(const RunConfig& c) {
  const auto write_map = [](std::string& out, const ParamMap& m) {
    for (const auto& [k, v] : m) out += "    " + k + ": " + v + "\n";
  };
  std::string out;
  out += "problem:\n  name: " + c.problem + "\n  params:\n";
  write_map(out, c.problem_params);
  out += "solver:\n  name: " + c.solver + "\n  params:\n";
  write_map(out, c.solver_params);
  out += "federation:\n  participation: " + c.participation.to_text() + "\n";
  out += "seed: " + std::to_string(c.seed) + "\n";
  out += "budget:\n  rounds: " + std::to_string(c.budget.rounds) + "\n";
  if (c.budget.max_samples) out += "  max_samples: " + std::to_string(*c.budget.max_samples) + "\n";
  if (c.budget.max_bytes) out += "  max_bytes: " + std::to_string(*c.budget.max_bytes) + "\n";
  if (c.budget.time_limit) out += "  time_limit: " + format_real(*c.budget.time_limit) + "\n";
  if (c.budget.target) out += "  target: " + c.budget.target->to_text() + "\n";
  out += "  divergence_factor: " + format_real(c.budget.divergence_factor) + "\n";
  out += "eval: " + c.eval.to_text() + "\n";
  return out;
}

// Values as the parameter schemas write them: canonical numbers, presets, choices, names,
// paths, partition schemes, lists, and the empty text of an unset path.
const std::vector<std::string> kValues = {"0.1",
                                          "1e-10",
                                          "-2.5",
                                          "1e+300",
                                          "3",
                                          "0",
                                          "theory",
                                          "true",
                                          "false",
                                          "relu",
                                          "a9a",
                                          "",
                                          "train",
                                          "iid",
                                          "dirichlet:0.5",
                                          "shards:2",
                                          "quantity:0.3",
                                          "auc",
                                          "tanh",
                                          "0.5,0.5",
                                          "../shared/datasets/libsvm/heart_scale",
                                          "/tmp/a b/c.txt",
                                          "x-y_z.w",
                                          "nan",
                                          "inf",
                                          "-inf",
                                          "caf\xc3\xa9",
                                          "\xe9t\xe9",
                                          "1:2"};

RunConfig random_config(std::mt19937_64& rng) {
  const auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  const auto params = [&] {
    ParamMap m;
    const std::size_t n = rng() % 7;  // 0: a problem or solver without parameters
    for (std::size_t k = 0; k < n; ++k)
      m[pick({"step_size", "comm_prob", "local_steps", "dataset", "path", "validation_file", "clients", "dim",
              "partition", "activation", "mu", "eta_x", "eta_y", "seed"})] = pick(kValues);
    return m;
  };
  RunConfig c;
  c.problem = pick({"quadratic-game", "auc", "hyper-logreg", "robust-least-squares"});
  c.solver = pick({"gda", "proxskip-gda-fl", "local-sgda", "fedbioacc"});
  c.problem_params = params();
  c.solver_params = params();
  c.participation = Participation::parse(
      pick({"full", "uniform:5", "bernoulli:0.25", "iid:3", "dropout:10:0.5", "bernoulli:1e-05"}));
  c.seed = rng() % 3 == 0 ? rng() : rng() % 100;
  c.budget.rounds = static_cast<std::int64_t>(rng() % 100000);
  if (rng() % 2) c.budget.max_samples = static_cast<std::int64_t>(rng() >> 2);
  if (rng() % 2) c.budget.max_bytes = static_cast<std::int64_t>(rng() % 1000000);
  if (rng() % 2)
    c.budget.time_limit = std::ldexp(static_cast<double>(rng() % 1000), -static_cast<int>(rng() % 20));
  if (rng() % 2) c.budget.target = Target::parse(pick({"rel_error<=1e-10", "test_auc>=0.85", "gap<=0.001"}));
  if (rng() % 3 == 0) c.budget.divergence_factor = static_cast<double>(rng() % 1000) / 7.0;
  if (rng() % 2)
    c.eval.every = static_cast<std::int64_t>(1 + rng() % 50);
  else
    c.eval.log_points_per_decade = static_cast<int>(1 + rng() % 20);
  return c;
}

// A value as YAML reads it back: the text itself, or null for the empty text.
void check_value(const YAML::Node& node, const std::string& want) {
  if (want.empty())
    CHECK(node.IsNull());
  else
    CHECK(node.as<std::string>() == want);
}

void check_parses_back(const RunConfig& c) {
  const YAML::Node root = YAML::Load(c.to_text());
  CHECK(root["problem"]["name"].as<std::string>() == c.problem);
  CHECK(root["solver"]["name"].as<std::string>() == c.solver);
  for (const auto& [part, params] :
       {std::pair{"problem", &c.problem_params}, std::pair{"solver", &c.solver_params}}) {
    CHECK(root[part]["params"].size() == params->size());
    for (const auto& [k, v] : *params) check_value(root[part]["params"][k], v);
  }
  CHECK(root["federation"]["participation"].as<std::string>() == c.participation.to_text());
  CHECK(root["seed"].as<std::uint64_t>() == c.seed);
  CHECK(root["budget"]["rounds"].as<std::int64_t>() == c.budget.rounds);
  CHECK(root["budget"]["max_samples"].IsDefined() == c.budget.max_samples.has_value());
  if (c.budget.max_samples) CHECK(root["budget"]["max_samples"].as<std::int64_t>() == *c.budget.max_samples);
  if (c.budget.max_bytes) CHECK(root["budget"]["max_bytes"].as<std::int64_t>() == *c.budget.max_bytes);
  if (c.budget.time_limit) CHECK(root["budget"]["time_limit"].as<double>() == *c.budget.time_limit);
  if (c.budget.target) CHECK(root["budget"]["target"].as<std::string>() == c.budget.target->to_text());
  CHECK(root["budget"]["divergence_factor"].as<double>() == c.budget.divergence_factor);
  CHECK(root["eval"].as<std::string>() == c.eval.to_text());
}

}  // namespace

TEST_CASE("config text: the emitter writes the hand-built text byte for byte, and YAML reads it back") {
  std::mt19937_64 rng(20261127);
  for (int k = 0; k < 2000; ++k) {
    const RunConfig c = random_config(rng);
    CAPTURE(k);
    REQUIRE(c.to_text() == hand_built_text(c));
    check_parses_back(c);
  }
}

TEST_CASE("config text: values the hand-built text could not carry are quoted and read back") {
  // The hand-built text wrote these unquoted, and YAML read something else (or nothing) back:
  // here the text differs from it, and the run ids of such configurations with it.
  for (const std::string value : {"a: b", "#x", "x #y", "null", "~", " lead", "trail ", "line\nbreak", "[1]",
                                  "{a}", "- x", "'q'", "\"q\"", "@a", "tab\there"}) {
    CAPTURE(value);
    RunConfig c;
    c.problem = "quadratic-game";
    c.solver = "gda";
    c.problem_params = {{"path", value}};
    c.solver_params = {{"step_size", "0.1"}};
    check_parses_back(c);
    CHECK(c.to_text() != hand_built_text(c));
  }
}
