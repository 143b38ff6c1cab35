// Suite files (suite/suite.hpp): any bytes as a suite YAML file, loaded, expanded and checked
// as `fedbench plan` does before it builds the problems, then counted per state and solver as
// plan prints them. Command-line overrides ride in comment lines, which YAML ignores:
//   #-s key=v1,v2   #-p key=logspace(-2,0,3)   #--solver NAME   #--problem NAME
//   #--seeds 1,2    #--rounds N
// Building the problems (plan's last check) is left out: that is problem code, with its own
// tests, and would spend the fuzzing time generating instances.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/text.hpp"
#include "fuzz_support.hpp"
#include "suite/grid.hpp"
#include "results/results_store.hpp"
#include "suite/suite.hpp"

namespace {

using fedbench::suite::expand_node;
using fedbench::suite::expand_text;

// Suites are valid up to 10^6 runs, and expanding one costs tens of microseconds a run here
// (ASan): 10^5 runs would pass the 10 s timeout with nothing wrong. So the grids are counted
// first, as plan's total is (each key's values multiplied: an upper bound of what load_suite
// builds), and a suite past this many runs is counted, not expanded.
constexpr double kMaxExpandedRuns = 2e4;

double values_of(const YAML::Node& node) {  // a bad grid counts 1: load_suite refuses it
  try {
    return node ? static_cast<double>(expand_node(node, "suite", "grid").size()) : 1;
  } catch (const fedbench::UserError&) {
    return 1;
  }
}

double points_of(const YAML::Node& params) {
  if (!params || !params.IsMap()) return 1;
  double n = 1;
  for (const auto& kv : params) {
    if (kv.first.Scalar() != "zip" || !kv.second.IsMap()) {
      n *= values_of(kv.second);
      continue;
    }
    double longest = 1;
    for (const auto& z : kv.second) longest = std::max(longest, values_of(z.second));
    n *= longest;
  }
  return n;
}

// Values of a command-line grid "key=v1,logspace(a, b, n),...": commas inside calls do not split.
double values_of(const std::string& item) {
  double n = 0;
  std::string piece;
  int depth = 0;
  for (char c : item.substr(item.find('=') + 1) + ",") {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c != ',' || depth != 0) {
      piece += c;
      continue;
    }
    try {
      n += static_cast<double>(expand_text(piece, "grid").size());
    } catch (const fedbench::UserError&) {
      n += 1;
    }
    piece.clear();
  }
  return std::max(n, 1.0);
}

double runs_bound(std::string_view text, const fedbench::suite::SuiteOverrides& o) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception&) {
    return 0;
  }
  if (!root.IsMap()) return 0;
  auto entries = [&](const char* key, bool solvers) {
    double n = 0;
    const YAML::Node suite_participation = root["participation"];
    if (const YAML::Node list = root[key]; list && list.IsSequence())
      for (const auto& item : list) {
        if (!item.IsMap()) continue;
        const YAML::Node own = item["participation"];
        n += points_of(item["params"]) * (solvers ? values_of(own ? own : suite_participation) : 1);
      }
    return std::max(n, 1.0);
  };
  double n = o.seeds.empty() ? values_of(root["seeds"]) : static_cast<double>(o.seeds.size());
  n *= entries("problems", false) * entries("solvers", true);
  for (const auto& item : o.solver_params) n *= values_of(item);
  for (const auto& item : o.problem_params) n *= values_of(item);
  return n;
}

fedbench::suite::SuiteOverrides overrides_in(std::string_view text) {
  fedbench::suite::SuiteOverrides o;
  for (const auto& line : fedbench::split(text, '\n')) {
    auto rest = [&](std::string_view prefix) { return line.substr(prefix.size()); };
    long long n = 0;
    if (line.rfind("#-s ", 0) == 0) o.solver_params.push_back(rest("#-s "));
    else if (line.rfind("#-p ", 0) == 0) o.problem_params.push_back(rest("#-p "));
    else if (line.rfind("#--solver ", 0) == 0) o.only_solvers.push_back(rest("#--solver "));
    else if (line.rfind("#--problem ", 0) == 0) o.only_problems.push_back(rest("#--problem "));
    else if (line.rfind("#--rounds ", 0) == 0 && fedbench::parse_int(rest("#--rounds "), n) && n >= 0)
      o.rounds = n;
    else if (line.rfind("#--seeds ", 0) == 0)
      for (const auto& s : fedbench::split(rest("#--seeds "), ','))
        if (fedbench::parse_int(s, n) && n >= 0) o.seeds.push_back(static_cast<std::uint64_t>(n));
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fedbench;
  const std::string path = fuzz::scratch().write("suite.yaml", data, size);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto overrides = overrides_in(text);
  if (runs_bound(text, overrides) > kMaxExpandedRuns) return 0;
  return fuzz::expect_user_errors([&] {
    const suite::Suite s = suite::load_suite(path, overrides);
    const suite::ResultsStore store(s.results_dir);
    std::map<std::string, int> per_solver;
    std::size_t printed = 0;
    for (const auto& run : s.runs) {
      ++per_solver[run.request.solver];
      printed += run.request.participation.to_text().size() + run.id.size() +
                 suite::to_string(store.state(run)).size();
    }
    if (per_solver.empty() || printed == 0) std::abort();  // load_suite promises a run
  });
}
