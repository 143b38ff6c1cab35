// Solver states as a traced run reads them (engine/state_visitor.hpp): visited through the
// engine at every recorded row, the server's first, then each set-up client's in id order under
// "c/NAME"; equal to what hand-stepped updates give; and a run whose sink reads them has the
// bits of one whose sinks do not (the reference transcriptions compare them with numpy code:
// tests/reference).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "engine/conformance.hpp"
#include "engine/solver.hpp"
#include "engine/state_visitor.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

const ParamMap kGame{{"clients", "4"}, {"samples", "5"}, {"dim", "2"}};
const ParamMap kBilevel{{"clients", "4"}, {"samples", "6"}, {"dim_x", "3"}, {"dim_y", "2"}};

struct Recorded {
  std::int64_t round;
  std::string name;
  int client;
  std::vector<double> value;
};

//! Keeps the iterate and every state of each recorded row.
class StateRecorder final : public TrajectorySink, private StateSink {
 public:
  void begin(const RunHeader&) override {}
  void row(const TrajectoryRow&) override {}
  void end(const RunSummary&) override {}
  void iterate(std::int64_t, const Vec& model) override { iterates.push_back(model); }
  bool wants_states() const override { return true; }
  void states(std::int64_t round, const SolverStates& source) override {
    round_ = round;
    source.visit_states(*this);
  }

  //! The state `name` of `client` at `round` (empty when not traced).
  std::vector<double> at(std::int64_t round, const std::string& name, int client = kServer) const {
    for (const auto& s : all)
      if (s.round == round && s.name == name && s.client == client) return s.value;
    return {};
  }

  std::vector<Vec> iterates;
  std::vector<Recorded> all;

 private:
  void state(std::string_view name, int client, std::span<const double> value) override {
    all.push_back({round_, std::string(name), client, {value.begin(), value.end()}});
  }
  std::int64_t round_ = 0;
};

RunRequest request(const std::string& problem, const ParamMap& params, const std::string& solver,
                   const std::string& participation, std::int64_t rounds, ParamMap solver_params = {}) {
  RunRequest r;
  r.problem = problem;
  r.problem_params = params;
  r.solver = solver;
  r.solver_params = std::move(solver_params);
  r.participation = Participation::parse(participation);
  r.seed = 5;
  r.budget.rounds = rounds;
  r.eval.every = 1;
  return r;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

}  // namespace

TEST_CASE("states: a run whose sink reads the solver states has the bits of one that does not") {
  const std::shared_ptr<const Problem> instances[] = {fedbench::testing::problem("quadratic-game", kGame),
                                                      fedbench::testing::bilevel_problem("bilevel-quadratic", kBilevel)};
  const char* problems[] = {"quadratic-game", "bilevel-quadratic"};
  const ParamMap* params[] = {&kGame, &kBilevel};
  const char* families[] = {"minimax", "bilevel"};
  for (int f = 0; f < 2; ++f)
    for (const auto& solver : fedbench::testing::solvers_of(families[f])) {
      CAPTURE(solver);
      const RunRequest r = request(problems[f], *params[f], solver, "full", 12);
      InMemoryRun plain{2}, traced{2};
      plain.overlap = EvaluationOverlap::always;  // a traced run waits for its rows instead
      StateRecorder recorder;
      traced.also = &recorder;
      const MemoryTrajectory with_states = run_in_memory(r, instances[f], traced);
      CHECK(bit_difference(run_in_memory(r, instances[f], plain), with_states) == "");
      CHECK(recorder.iterates.size() == with_states.rows.size());  // every row's iterate
    }
}

TEST_CASE("states: fess-gda's anchor is the hand-stepped z_{t+1} = (1 - beta) z_t + beta x_{t+1}") {
  // Shen et al., AISTATS 2024, Alg. 1 line 15, with z_0 = x_0; the quadratic game is
  // unconstrained, so x_{t+1} is the traced iterate's x.
  const double beta = 0.3;
  StateRecorder recorder;
  InMemoryRun how;
  how.also = &recorder;
  run_in_memory(request("quadratic-game", kGame, "fess-gda", "uniform:2", 6,
                        {{"beta", "0.3"}, {"p", "1"}, {"batch_size", "2"}, {"local_steps", "3"}}),
                fedbench::testing::problem("quadratic-game", kGame), how);
  const Index dx = 2;
  std::vector<double> z(recorder.iterates[0].data(), recorder.iterates[0].data() + dx);
  for (std::int64_t r = 0; r <= 6; ++r) {
    CAPTURE(r);
    if (r > 0)
      for (Index k = 0; k < dx; ++k) z[k] = (1 - beta) * z[k] + beta * recorder.iterates[r][k];
    const auto traced = recorder.at(r, "anchor_z");
    REQUIRE(traced.size() == static_cast<std::size_t>(dx));
    for (Index k = 0; k < dx; ++k) CHECK(std::abs(traced[k] - z[k]) <= 1e-15 * max_abs(z));
  }
}

TEST_CASE("states: clients in id order under c/NAME once set up; codasca's c is the mean of its c_i") {
  // CODASCA (Yuan et al., ICML 2021) sets a client's c_i = 0 up when it first takes part (its
  // set-up makes no oracle call), client 0 before round 0; c <- c + (1/N) sum_S dc_i keeps c the
  // mean of every client's c_i, set up or not (those are 0).
  StateRecorder recorder;
  InMemoryRun how;
  how.also = &recorder;
  const std::int64_t rounds = 8;
  run_in_memory(request("quadratic-game", kGame, "codasca", "uniform:1", rounds,
                        {{"batch_size", "0"}, {"local_steps", "2"}, {"eta_l", "0.2"}}),
                fedbench::testing::problem("quadratic-game", kGame), how);
  std::set<int> before;
  for (std::int64_t r = 0; r <= rounds; ++r) {
    CAPTURE(r);
    std::vector<const Recorded*> row;
    for (const auto& s : recorder.all)
      if (s.round == r) row.push_back(&s);
    REQUIRE(row.size() >= 3);
    CHECK(row[0]->name == "prox_center_x_ref");  // the server's first
    CHECK(row[1]->name == "control_variate_c");
    std::set<int> clients;
    int last = -1;
    std::vector<double> sum(4, 0.0);
    for (std::size_t k = 2; k < row.size(); ++k) {
      CHECK(row[k]->name == "c/control_variate_c_i");
      CHECK(row[k]->client > last);  // id order, once each
      last = row[k]->client;
      clients.insert(last);
      for (std::size_t j = 0; j < 4; ++j) sum[j] += row[k]->value[j];
    }
    if (r == 0) CHECK(clients == std::set<int>{0});
    CHECK(std::includes(clients.begin(), clients.end(), before.begin(), before.end()));
    CHECK(clients.size() <= before.size() + 1);  // one client per round takes part
    before = clients;
    const auto c = recorder.at(r, "control_variate_c");
    for (std::size_t j = 0; j < 4; ++j) CHECK(std::abs(c[j] - sum[j] / 4) <= 1e-12 * (max_abs(c) + 1e-300));
  }
  CHECK(max_abs(recorder.at(rounds, "control_variate_c")) > 0);
}

TEST_CASE("states: scratch-client solvers show none; state-per-slot runs show no client state") {
  for (const char* solver : {"local-sgda", "local-seg", "sgda"}) {
    CAPTURE(solver);
    StateRecorder recorder;
    InMemoryRun how;
    how.also = &recorder;
    run_in_memory(request("quadratic-game", kGame, solver, "full", 3),
                  fedbench::testing::problem("quadratic-game", kGame), how);
    CHECK(recorder.all.empty());
    CHECK(recorder.iterates.size() == 4);
  }
  // fess-gda's clients are scratch: its server anchor alone, whether or not state lives per slot.
  for (const bool per_client : {false, true}) {
    StateRecorder recorder;
    InMemoryRun how;
    how.also = &recorder;
    how.scratch_per_client = per_client;
    run_in_memory(request("quadratic-game", kGame, "fess-gda", "full", 3),
                  fedbench::testing::problem("quadratic-game", kGame), how);
    REQUIRE(recorder.all.size() == 4);
    for (const auto& s : recorder.all) CHECK(s.client == StateSink::kServer);
  }
}
