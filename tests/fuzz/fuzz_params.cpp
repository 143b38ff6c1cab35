// Parameter values as typed on the command line (core/params.hpp): the first byte picks a
// registered problem or solver (aliases included), the rest is one `-p`/`-s` item per line,
// parsed by parse_assignments and resolved against that entry's schema, as `fedbench run` and
// `describe` do. Each line is also tried as the other value options of `run`, `select` and
// `check` (--participation, --target, --at, --tolerance).
#include <cstdint>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "engine/run_config.hpp"
#include "engine/solver.hpp"
#include "fuzz_support.hpp"
#include "problem/problem_registry.hpp"
#include "results/check.hpp"
#include "results/select.hpp"

namespace {

fedbench::ParamMap resolve(std::size_t pick, const fedbench::ParamMap& given) {
  static const std::vector<std::string> problems = fedbench::problem_registry().names();
  static const std::vector<std::string> solvers = fedbench::solver_registry().names();
  pick %= problems.size() + solvers.size();
  return pick < problems.size()
             ? fedbench::problem_registry().get(problems[pick]).resolved(given)
             : fedbench::solver_registry().get(solvers[pick - problems.size()]).resolved(given);
}

template <class Body>
void each_user_error_clean(const std::vector<std::string>& items, Body&& body) {
  for (const auto& item : items) fedbench::fuzz::expect_user_errors([&] { body(item); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fedbench;
  if (size == 0) return 0;
  const std::vector<std::string> items =
      split(std::string(reinterpret_cast<const char*>(data) + 1, size - 1), '\n');
  fuzz::expect_user_errors([&] { (void)resolve(data[0], parse_assignments(items, "fuzz")); });
  each_user_error_clean(items, [](const std::string& t) { (void)Participation::parse(t); });
  each_user_error_clean(items, [](const std::string& t) { (void)Target::parse(t); });
  each_user_error_clean(items, [](const std::string& t) {
    (void)suite::SelectCriterion::parse("rel_error", t).describe();
  });
  fuzz::expect_user_errors([&] { (void)suite::parse_tolerances(items); });
  return 0;
}
