// Everything that defines a run apart from the problem and solver parameters: federation
// settings, seed, budgets, evaluation schedule. Thread count is deliberately not part of it:
// results do not depend on it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "problem/metric_names.hpp"
#include "core/params.hpp"

namespace fedbench {

//! Which clients take part in a round.
struct Participation {
  enum class Mode { full, uniform, bernoulli, iid, dropout };
  Mode mode = Mode::full;
  //! m: uniform (m of M without replacement), iid (m draws with), dropout (m candidates)
  int clients_per_round = 0;
  double prob = 1.0;          //!< q, for Mode::bernoulli
  double drop_fraction = 0;   //!< r, for Mode::dropout: up to floor(r m) candidates drop out

  //! "full", "uniform:m", "bernoulli:q", "iid:m" or "dropout:m:r"; throws UserError naming the
  //! accepted forms.
  static Participation parse(const std::string& text);
  std::string to_text() const;
  //! Draws clients_per_round distinct clients (uniform, dropout): at most the problem's count.
  bool draws_distinct() const { return mode == Mode::uniform || mode == Mode::dropout; }
};

//! When metrics are evaluated: every k rounds, or at log-spaced rounds (points per decade);
//! round 0 and the last round are always recorded.
struct EvalSchedule {
  std::int64_t every = 1;
  int log_points_per_decade = 0;  //!< > 0 selects log spacing
  bool due(std::int64_t round) const;
  std::string to_text() const;
};

//! The schedule of a run that chose none: every round, or 10 log-spaced rows per decade for a
//! problem whose metrics cost far more than a round (the registry's expensive_metrics).
EvalSchedule default_eval_schedule(const std::string& problem);

//! A level of a metric: reached when metric <= value (direction min) or >= value (max). A run
//! stops at it (`--target`); the report's cost tables count what each method spent to reach it.
struct Target {
  std::string metric;
  double value = 0;
  Direction direction = Direction::min;  //!< min: "<=", max: ">="
  bool reached(double v) const { return direction == Direction::min ? v <= value : v >= value; }
  std::string op() const { return direction == Direction::min ? "<=" : ">="; }
  std::string to_text() const;  //!< "rel_error<=1e-10"
  //! "rel_error<=1e-10" or "test_accuracy>=0.9"; throws UserError.
  static Target parse(const std::string& text);
};

struct Budget {
  std::int64_t rounds = 100;
  std::optional<std::int64_t> max_samples;   //!< component gradients, summed over clients
  std::optional<std::int64_t> max_bytes;     //!< bytes up + down
  std::optional<double> time_limit;          //!< seconds of the run's wall clock, writing included
  std::optional<Target> target;
  double divergence_factor = 1e10;  //!< diverged when primary metric > factor * initial value
};

struct RunConfig {
  std::string problem;
  ParamMap problem_params;  //!< canonical resolved
  std::string solver;
  ParamMap solver_params;   //!< canonical resolved (theory values already computed)
  Participation participation;
  std::uint64_t seed = 0;
  Budget budget;
  EvalSchedule eval;
  //! Give even scratch client state (solver_client_is_scratch) one instance per client, as if
  //! it lasted. Like the thread count, not part of the run: results must not depend on it, and
  //! tests use it to check that a solver's scratch declaration is true.
  bool scratch_per_client = false;

  //! Canonical text (YAML through yaml-cpp's emitter, fixed key order; identity_yaml's forms of
  //! empty values): stored in every output file and, later, hashed into the run's identity.
  std::string to_text() const;
};

}  // namespace fedbench
