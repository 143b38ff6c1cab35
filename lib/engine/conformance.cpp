#include "engine/conformance.hpp"

#include <algorithm>
#include <exception>
#include <functional>

#include "core/core_share.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/runner.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench {

namespace {

struct Instance {
  std::string name;
  ParamMap params;
  std::shared_ptr<const Problem> problem;
};

// The small instance of each family: every client and the exact metrics cost microseconds.
Instance instance_for(const ConformanceRequest& req, const std::string& family) {
  Instance in;
  if (!req.problem.empty()) {
    in.name = req.problem;
    in.params = req.problem_params;
  } else if (family == "bilevel") {
    in.name = "bilevel-quadratic";
    in.params = {{"clients", "5"}, {"samples", "8"}, {"dim_x", "3"}, {"dim_y", "3"}};
  } else {
    in.name = "quadratic-game";
    in.params = {{"clients", "5"}, {"samples", "8"}, {"dim", "3"}};
  }
  in.problem = make_problem(in.name, in.params);
  return in;
}

struct Spec {
  ParamMap solver_params;
  std::int64_t rounds = 15;
  int threads = 1;
  std::string participation = "full";
  bool scratch_per_client = false;
  CoreShare* share = nullptr;
  TrajectorySink* also = nullptr;
  EvaluationOverlap overlap = EvaluationOverlap::automatic;
};

class Runner {
 public:
  Runner(const ConformanceRequest& req, Instance in) : req_(req), in_(std::move(in)) {}

  MemoryTrajectory run(const Spec& spec) const {
    RunRequest r;
    r.problem = in_.name;
    r.problem_params = in_.params;
    r.solver = req_.solver;
    r.solver_params = req_.solver_params;
    for (const auto& [k, v] : spec.solver_params) r.solver_params[k] = v;
    r.participation = Participation::parse(spec.participation);
    r.seed = 7;
    r.budget.rounds = spec.rounds;
    r.eval.every = 1;
    return run_in_memory(r, in_.problem, {spec.threads, spec.scratch_per_client, spec.share, spec.also, spec.overlap});
  }
  const Instance& instance() const { return in_; }

 private:
  const ConformanceRequest& req_;
  Instance in_;
};

ConformanceCheck documented(const RegistryEntry<SolverRunner>& e) {
  ConformanceCheck c{"documented: summary, citation and every parameter", true, false, ""};
  if (e.summary.empty()) c.detail = "no summary";
  else if (e.citation.empty()) c.detail = "no citation";
  for (const auto& spec : e.params)
    if (c.detail.empty() && spec.doc.size() <= 3) c.detail = "parameter " + spec.name + " has no description";
  c.passed = c.detail.empty();
  if (c.passed) c.detail = std::to_string(e.params.size()) + " parameters";
  return c;
}

// Exact oracles where the solver offers them (batch_size = 0): a stochastic solver's noise
// floor on this small game can lie above its start.
ParamMap exact_oracles_if_offered(const RegistryEntry<SolverRunner>& e, const ParamMap& given) {
  if (given.count("batch_size")) return {};
  for (const auto& spec : e.params)
    if (spec.name == "batch_size" && spec.bounds.ge && *spec.bounds.ge == 0) return {{"batch_size", "0"}};
  return {};
}

ConformanceCheck progress(const Runner& runner, const RegistryEntry<SolverRunner>& e,
                          const ConformanceRequest& req) {
  ConformanceCheck c{"runs " + std::to_string(req.rounds) + " rounds with its defaults and makes progress on " +
                         runner.instance().name, false, false, ""};
  const MemoryTrajectory t = runner.run({exact_oracles_if_offered(e, req.solver_params), req.rounds});
  if (t.summary.status() != "ok") {
    c.detail = "status " + t.summary.status() + ": " + t.summary.message;
    return c;
  }
  const double start = t.rows.front().metrics.at(0), end = t.rows.back().metrics.at(0);
  c.detail = t.header.metric_names.at(0) + " " + format_real(start) + " -> " + format_real(end);
  c.passed = end < start;
  return c;
}

ConformanceCheck honest_counts(const Runner& runner) {
  ConformanceCheck c{"counts: run totals equal the problem layer's per-client counters", false, false, ""};
  const MemoryTrajectory t = runner.run({{}, 10});
  OracleCounts sum;
  for (const auto& client : t.summary.per_client) sum += client;
  const auto& last = t.rows.back();
  if (sum.calls != last.oracle.calls || sum.samples != last.oracle.samples) c.detail = "totals differ from the clients' sum";
  else if (last.comm.floats_up <= 0) c.detail = "no float was uploaded in 10 rounds";
  else c.detail = std::to_string(last.oracle.samples) + " samples, " + std::to_string(last.comm.floats_up) + " floats up";
  c.passed = sum.calls == last.oracle.calls && sum.samples == last.oracle.samples && last.comm.floats_up > 0;
  return c;
}

ConformanceCheck same_bits(const std::string& what, const std::function<std::string()>& compare) {
  ConformanceCheck c{what, false, false, ""};
  c.detail = compare();
  c.passed = c.detail.empty();
  if (c.passed) c.detail = "identical";
  return c;
}

// A run that throws fails its check, except a setting the solver refuses up front (a
// participation mode it does not support): that check does not apply.
ConformanceCheck guarded(const std::string& what, const std::function<ConformanceCheck()>& check,
                         bool refusal_skips = false) {
  try {
    return check();
  } catch (const UserError& e) {
    if (refusal_skips) return {what, true, true, std::string("not applicable: ") + e.what()};
    return {what, false, false, e.what()};
  } catch (const std::exception& e) {
    return {what, false, false, e.what()};
  }
}

}  // namespace

namespace {
bool same_vector(const Vec& a, const Vec& b) {
  return a.size() == b.size() && std::equal(a.data(), a.data() + a.size(), b.data(), [](double u, double v) {
           return u == v || (u != u && v != v);  // NaN in both is the same outcome
         });
}
}  // namespace

std::string bit_difference(const MemoryTrajectory& a, const MemoryTrajectory& b) {
  if (a.summary.status() != b.summary.status())
    return "status " + a.summary.status() + " vs " + b.summary.status();
  if (a.rows.size() != b.rows.size())
    return std::to_string(a.rows.size()) + " vs " + std::to_string(b.rows.size()) + " rows";
  for (std::size_t r = 0; r < a.rows.size(); ++r) {
    const auto &x = a.rows[r], &y = b.rows[r];
    const std::string at = "round " + std::to_string(x.round) + ": ";
    if (x.round != y.round) return at + "vs round " + std::to_string(y.round);
    if (x.oracle.calls != y.oracle.calls || x.oracle.samples != y.oracle.samples)
      return at + "oracle counts differ";
    if (x.comm.floats_up != y.comm.floats_up || x.comm.floats_down != y.comm.floats_down ||
        x.comm.bytes_up != y.comm.bytes_up || x.comm.messages_up != y.comm.messages_up)
      return at + "communication counts differ";
    for (std::size_t m = 0; m < x.metrics.size(); ++m)
      if (!(x.metrics[m] == y.metrics[m]) && !(x.metrics[m] != x.metrics[m] && y.metrics[m] != y.metrics[m]))
        return at + "metric " + std::to_string(m) + " " + format_real(x.metrics[m]) + " vs " +
               format_real(y.metrics[m]);
  }
  const RunSummary &s = a.summary, &t = b.summary;
  if (s.reason != t.reason || s.message != t.message) return "stop: " + s.message + " vs " + t.message;
  if (s.rounds != t.rounds) return "rounds " + std::to_string(s.rounds) + " vs " + std::to_string(t.rounds);
  if (s.per_client.size() != t.per_client.size()) return "per-client counts of different lengths";
  for (std::size_t i = 0; i < s.per_client.size(); ++i)
    if (s.per_client[i].calls != t.per_client[i].calls || s.per_client[i].samples != t.per_client[i].samples)
      return "client " + std::to_string(i) + ": oracle counts at the end differ";
  if (!same_vector(s.final_x, t.final_x) || !same_vector(s.final_y, t.final_y)) return "final iterates differ";
  if (s.final_y_star.has_value() != t.final_y_star.has_value() ||
      (s.final_y_star && !same_vector(*s.final_y_star, *t.final_y_star)))
    return "final y*(x) differ";
  return "";
}

MemoryTrajectory run_in_memory(const RunRequest& request, std::shared_ptr<const Problem> problem,
                               const InMemoryRun& how) {
  PreparedRun prepared = prepare_run(request, std::move(problem));
  prepared.config.scratch_per_client = how.scratch_per_client;
  prepared.core_share = how.share;
  prepared.overlap = how.overlap;
  MemoryTrajectory t;
  if (how.also) {
    TeeSink both({how.also, &t});
    execute(prepared, how.threads, both);
  } else {
    execute(prepared, how.threads, t);
  }
  return t;
}

std::vector<ConformanceCheck> check_conformance(const ConformanceRequest& req) {
  const auto& entry = solver_registry().get(req.solver);
  const Runner runner(req, instance_for(req, entry.family));
  std::vector<ConformanceCheck> checks{documented(entry)};
  checks.push_back(guarded("progress", [&] { return progress(runner, entry, req); }));
  checks.push_back(guarded("counts", [&] { return honest_counts(runner); }));
  for (const std::string part : {"full", "uniform:2", "iid:7"}) {
    const std::string what = "threads: 1 and 3 give the same bits (participation " + part + ")";
    checks.push_back(guarded(what, [&] {
      return same_bits(what, [&] {
        return bit_difference(runner.run({{}, 15, 1, part}), runner.run({{}, 15, 3, part}));
      });
    }, part != "full"));
  }
  const std::string grow = "threads: growing from 1 to 4 after round 5 gives the same bits";
  checks.push_back(guarded(grow, [&] {
    return same_bits(grow, [&] {
      CoreShare share(4, 4);  // the run's job holds 1 core, three other jobs hold the rest
      FreeCoresAt free_at_5(share, 5, 3);
      Spec growing{{}, 15, 1};
      growing.share = &share;
      growing.also = &free_at_5;
      return bit_difference(runner.run({{}, 15, 1}), runner.run(growing));
    });
  }));
  const std::string beside = "evaluation: rows evaluated beside the rounds give the bits of rows waited for";
  checks.push_back(guarded(beside, [&] {
    return same_bits(beside, [&] {
      Spec waited{{}, 15, 2}, deferred = waited;
      waited.overlap = EvaluationOverlap::never;
      deferred.overlap = EvaluationOverlap::always;
      return bit_difference(runner.run(waited), runner.run(deferred));
    });
  }));
  const std::string scratch = "client state: one per position gives the bits of one per client (uniform:2)";
  checks.push_back(guarded(scratch, [&] {
    return same_bits(scratch, [&] {
      Spec per_position{{}, 12, 2, "uniform:2"}, per_client = per_position;
      per_client.scratch_per_client = true;
      return bit_difference(runner.run(per_position), runner.run(per_client));
    });
  }, true));
  return checks;
}

}  // namespace fedbench
