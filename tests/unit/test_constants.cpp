// The named problem constants: every constant a theory preset reads is published by at least
// one of the problems the preset probe (engine/theory_reads.hpp) prepares solvers on, and the
// probe reports what the presets read.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "engine/solver.hpp"
#include "engine/theory_reads.hpp"
#include "problem/constant_names.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench {
namespace {

}  // namespace

TEST_CASE("constants: the table lists every constant once, in enum order, with a meaning") {
  std::set<std::string_view> names;
  for (const auto& info : kConstantTable) {
    CHECK(names.insert(info.name).second);
    CHECK_FALSE(info.meaning.empty());
    CHECK(constant_from_name(info.name) == info.id);
  }
  CHECK_FALSE(constant_from_name("mu_typo").has_value());
}

TEST_CASE("constants: theory presets read what some problem publishes") {
  // The constants every solver's presets read, and whether one of the probe's problems
  // publishes each (a preset reading a constant nobody publishes could never run `theory`).
  std::set<Constant> all;
  for (const auto& name : solver_registry().names())
    for (Constant c : constants_read_by_presets(name)) all.insert(c);
  // The seven the hand-kept "read by" column listed before the probe replaced it.
  CHECK(all == std::set<Constant>{Constant::mu, Constant::mu_g_client_min, Constant::lipschitz_client_max,
                                  Constant::lipschitz_g_client_max, Constant::cocoercivity,
                                  Constant::cocoercivity_client_max, Constant::cocoercivity_sample_max});
  const std::vector<std::pair<std::string, ParamMap>> publishers = {
      {"quadratic-game", {{"clients", "4"}, {"samples", "6"}, {"dim", "3"}}},
      {"nc-sc-quadratic", {}}, {"bilevel-quadratic", {}}};
  for (Constant c : all) {
    INFO("a preset reads " << constant_name(c));
    bool published = false;
    for (const auto& [problem, params] : publishers)
      published = published || make_problem(problem, params)->constants().has(c);
    CHECK(published);
  }
}

TEST_CASE("constants: the probe sees each preset's reads, an alias's branch included") {
  // ProxSkip-VIP-FL's theory step reads mu and the client cocoercivity; its minibatch alias
  // reads the per-sample one (Zhang et al. 2024, Thm. 3.1 / Cor. 3.3).
  const auto proxskip = constants_read_by_presets("proxskip-gda-fl");
  CHECK(proxskip == constants_read_by_presets("proxskip-vip-fl"));
  CHECK(proxskip.count(Constant::mu) == 1);
  CHECK(proxskip.count(Constant::cocoercivity_client_max) == 1);
  CHECK(proxskip.count(Constant::cocoercivity_sample_max) == 1);
  CHECK(constants_read_by_presets("sagda").empty());  // no theory preset
  const auto fednest = constants_read_by_presets("fednest");
  CHECK(fednest == std::set<Constant>{Constant::mu_g_client_min, Constant::lipschitz_g_client_max});
}

}  // namespace fedbench
