// Typed parameter schemas: defaults, canonical text, and the exact error messages users see.
#include <doctest/doctest.h>

#include "core/params.hpp"

using namespace fedbench;

namespace {
struct P {
  double step_size;
  double comm_prob;
  int local_steps;
  bool flag;
  enum class Mode { a, b } mode;
  double eta_x, eta_y;
};
Schema<P> schema() {
  Schema<P> s("solver demo");
  s.real("step_size", &P::step_size, kTheory, {.gt = 0}, "gamma", true)
      .real("comm_prob", &P::comm_prob, "0.5", {.gt = 0, .le = 1}, "p")
      .integer("local_steps", &P::local_steps, "20", {.ge = 1}, "K")
      .boolean("flag", &P::flag, "false", "a switch")
      .choice("mode", &P::mode, "a", {{"a", P::Mode::a}, {"b", P::Mode::b}}, "mode")
      .real("eta_x", &P::eta_x, "0.1", {.gt = 0}, "eta_x")
      .real("eta_y", &P::eta_y, "0.2", {.gt = 0}, "eta_y")
      .alias("rate", {"eta_x", "eta_y"}, "sets both");
  return s;
}

std::string error_of(const ParamMap& given) {
  try {
    schema().parse(given);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("params: defaults apply and theory stays unset until resolved") {
  const P p = schema().parse({});
  CHECK(is_unset(p.step_size));
  CHECK(p.comm_prob == 0.5);
  CHECK(p.local_steps == 20);
  CHECK_FALSE(p.flag);
  CHECK(p.mode == P::Mode::a);
  const ParamMap canonical = schema().to_map(p);
  CHECK(canonical.at("step_size") == "theory");
  CHECK(canonical.at("comm_prob") == "0.5");
}

TEST_CASE("params: canonical numbers round-trip exactly") {
  const P p = schema().parse({{"step_size", "0.1"}, {"comm_prob", "1e-3"}});
  CHECK(schema().to_map(p).at("step_size") == "0.1");
  CHECK(schema().to_map(p).at("comm_prob") == "0.001");
  const P q = schema().parse(schema().to_map(p));
  CHECK(q.step_size == p.step_size);
}

TEST_CASE("params: bad input gets one line naming owner, parameter, value and constraint") {
  CHECK(error_of({{"comm_prob", "0"}}) == "solver demo: comm_prob = 0 violates 0 < comm_prob <= 1");
  CHECK(error_of({{"local_steps", "2.5"}}) == "solver demo: local_steps = '2.5' is not a whole number");
  CHECK(error_of({{"step_size", "fast"}}) ==
        "solver demo: step_size = 'fast' is not a finite number or 'theory'");
  CHECK(error_of({{"stepsize", "1"}}) ==
        "solver demo: unknown parameter 'stepsize'; valid: comm_prob, eta_x, eta_y, flag, local_steps, mode, rate, "
        "step_size (did you mean 'step_size'?)");
  CHECK(error_of({{"mode", "c"}}) == "solver demo: mode = 'c' is not one of: a, b");
  CHECK(error_of({{"flag", "maybe"}}) == "solver demo: flag = 'maybe' is not true or false");
}

TEST_CASE("params: key=value lists reject malformed items and repeats") {
  CHECK(parse_assignments({"a=1", "b=x=y"}, "o").at("b") == "x=y");
  CHECK_THROWS_WITH_AS(parse_assignments({"a"}, "solver x"),
                       "solver x: 'a' is not of the form key=value", UserError);
  CHECK_THROWS_WITH_AS(parse_assignments({"a=1", "a=2"}, "solver x"),
                       "solver x: parameter 'a' given twice", UserError);
}

TEST_CASE("params: a choice maps each text to its enum value and back") {
  CHECK(schema().parse({{"mode", "b"}}).mode == P::Mode::b);
  CHECK(schema().to_map(schema().parse({{"mode", "b"}})).at("mode") == "b");
}

TEST_CASE("params: an alias sets its targets and is not part of the canonical text") {
  const P p = schema().parse({{"rate", "0.3"}});
  CHECK(p.eta_x == 0.3);
  CHECK(p.eta_y == 0.3);
  const ParamMap canonical = schema().to_map(p);
  CHECK(canonical.count("rate") == 0);
  CHECK(canonical == schema().to_map(schema().parse({{"eta_x", "0.3"}, {"eta_y", "0.3"}})));
  CHECK(error_of({{"rate", "0.3"}, {"eta_y", "0.1"}}) ==
        "solver demo: give rate or eta_y, not both (rate sets eta_x and eta_y)");
  CHECK(error_of({{"rate", "-1"}}) == "solver demo: eta_x = -1 violates 0 < eta_x");
}
