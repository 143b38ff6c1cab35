// Every registered solver, on a small strongly monotone quadratic game: it runs, makes
// progress, counts what the problem layer served, gives the same bits with 1 and 3 threads,
// and documents every parameter. Plus the per-round message counts of each algorithm (for
// ProxSkip, Zhang et al. 2024, Algorithm 2: one upload and one broadcast per communication).
#include <doctest/doctest.h>

#include <cmath>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/core_share.hpp"
#include "engine/conformance.hpp"
#include "engine/context.hpp"
#include "engine/solver.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;
using fedbench::testing::RunSpec;

namespace {
const ParamMap kGame{{"clients", "5"}, {"samples", "8"}, {"dim", "3"}};
const std::int64_t kDim = 6;

std::shared_ptr<const MinimaxProblem> game() {
  static auto g = fedbench::testing::problem("quadratic-game", kGame);
  return g;
}
MemoryTrajectory run_game(const RunSpec& spec) {
  return fedbench::testing::run(game(), "quadratic-game", kGame, spec);
}
void require_same_bits(const MemoryTrajectory& a, const MemoryTrajectory& b) {
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t r = 0; r < a.rows.size(); ++r) {
    REQUIRE(a.rows[r].round == b.rows[r].round);
    REQUIRE(a.rows[r].oracle.calls == b.rows[r].oracle.calls);
    REQUIRE(a.rows[r].oracle.samples == b.rows[r].oracle.samples);
    REQUIRE(a.rows[r].comm.bytes_up == b.rows[r].comm.bytes_up);
    REQUIRE(a.rows[r].metrics == b.rows[r].metrics);
  }
}
}  // namespace

TEST_CASE("conformance: every solver documents every parameter") {
  for (const auto& name : solver_registry().names()) {
    const auto& e = solver_registry().get(name);
    CAPTURE(name);
    CHECK(!e.summary.empty());
    CHECK(!e.citation.empty());
    for (const auto& spec : e.params) {
      CAPTURE(spec.name);
      CHECK(spec.doc.size() > 3);
    }
  }
}

// Stochastic solvers stall at a noise floor of order gamma sigma^2 / mu (Thm 3.1), which on
// this tiny game lies above the start; progress is checked with exact oracles wherever the
// solver offers them (batch_size = 0) and the floor itself in test_noise_floor.cpp.
ParamMap exact_oracles_if_offered(const std::string& solver) {
  for (const auto& spec : solver_registry().get(solver).params)
    if (spec.name == "batch_size" && spec.bounds.ge && *spec.bounds.ge == 0)
      return {{"batch_size", "0"}};
  return {};
}

TEST_CASE("conformance: every solver with theory parameters makes progress and counts honestly") {
  for (const auto& name : fedbench::testing::solvers_of("minimax")) {
    CAPTURE(name);
    const auto t = run_game({name, exact_oracles_if_offered(name), 40});
    REQUIRE(t.summary.status() == "ok");
    REQUIRE(t.rows.size() == 41);
    const double start = t.rows.front().metrics[0], end = t.rows.back().metrics[0];
    CHECK(end < start);
    // The run's totals are the problem layer's per-client counters, summed.
    OracleCounts sum;
    for (const auto& c : t.summary.per_client) sum += c;
    CHECK(sum.calls == t.rows.back().oracle.calls);
    CHECK(sum.samples == t.rows.back().oracle.samples);
    CHECK(t.rows.back().comm.floats_up > 0);
  }
}

TEST_CASE("conformance: every solver gives the same bits with 1 and 3 threads") {
  for (const auto& name : fedbench::testing::solvers_of("minimax")) {
    CAPTURE(name);
    require_same_bits(run_game({name, {}, 15, 1}), run_game({name, {}, 15, 3}));
  }
  for (const char* part : {"uniform:2", "bernoulli:0.5", "iid:7"}) {
    CAPTURE(part);
    for (const char* solver : {"local-sgda", "codasca"}) {  // codasca: client state across draws
      RunSpec one{solver, {}, 15, 1, part}, three{solver, {}, 15, 3, part};
      require_same_bits(run_game(one), run_game(three));
    }
  }
}

TEST_CASE("conformance: every solver runs every participation mode it accepts to the end") {
  // bernoulli:0.2 on 5 clients leaves a third of the phases without anybody; iid:7 draws some
  // client twice; dropout:5:0.6 loses up to 3 of 5. Seeds 5 and 9 leave round 0's first phase
  // empty and its second phase, drawn afresh (cd-mage's `independent`), not: no estimate yet.
  std::vector<RunSpec> specs;
  for (const auto& name : fedbench::testing::solvers_of("minimax")) specs.push_back({name, {}, 12});
  specs.push_back({"cd-mage", {{"phase2_clients", "independent"}}, 12});
  specs.push_back({"cd-mage-plus", {{"phase2_clients", "independent"}}, 12});
  for (RunSpec spec : specs) {
    for (const char* part : {"uniform:2", "iid:7", "bernoulli:0.2", "dropout:5:0.6"}) {
      for (std::uint64_t seed = 1; seed <= 9; ++seed) {
        CAPTURE(spec.solver);
        CAPTURE(part);
        CAPTURE(seed);
        spec.participation = part;
        spec.seed = seed;
        try {
          const MemoryTrajectory t = run_game(spec);
          CHECK(t.summary.status() == "ok");
          CHECK(t.rows.back().round == 12);
        } catch (const UserError& e) {  // refused before any round: full participation only
          CHECK(std::string(e.what()).find("use --participation full") != std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("conformance: every solver gives the same bits when its threads grow mid-run") {
  for (const auto& name : fedbench::testing::solvers_of("minimax")) {
    CAPTURE(name);
    CoreShare share(4, 4);  // the run's job holds 1 core, three other jobs hold the rest
    FreeCoresAt free_at_5(share, 5, 3);
    RunSpec growing{name, {}, 15, 1};
    growing.core_share = &share;
    growing.also = &free_at_5;
    const MemoryTrajectory grown = run_game(growing);
    CHECK(grown.summary.threads_at_end == 4);  // min(its 5 clients, 4 cores)
    CHECK(share.free_cores() == 3);            // given back when it ended
    require_same_bits(run_game({name, {}, 15, 1}), grown);
  }
}

// A solver that declares its Client struct scratch gets one per running client, handed from
// client to client; if any field carried over (from the previous client at that position, or
// from this client's last turn), the run would differ from one with a Client per client.
TEST_CASE("conformance: scratch client state per position gives the bits of state per client") {
  std::set<std::string> compared;
  for (const auto& name : fedbench::testing::solvers_of("minimax")) {
    CAPTURE(name);
    for (const std::string part : {"uniform:2", "iid:7"}) {  // iid: one position runs a client twice
      CAPTURE(part);
      RunSpec per_position{name, {}, 12, 2, part}, per_client = per_position;
      per_client.scratch_per_client = true;
      MemoryTrajectory a;
      try {
        a = run_game(per_position);
      } catch (const UserError&) {
        continue;  // needs full participation: every position is then its own client
      }
      require_same_bits(a, run_game(per_client));
      compared.insert(name);
    }
  }
  for (const char* scratch : {"catalyst-scaffold-s", "cd-mage", "fed-norm-sgda", "fess-gda", "local-seg", "local-sgda"})
    CHECK(compared.count(scratch) == 1);
}

TEST_CASE("conformance: a different seed changes stochastic runs but not deterministic ones") {
  RunSpec a{"proxskip-sgda-fl", {}, 10}, b = a;
  b.seed = a.seed + 1;
  CHECK(run_game(a).rows.back().metrics != run_game(b).rows.back().metrics);
  a.solver = b.solver = "gda";
  CHECK(run_game(a).rows.back().metrics == run_game(b).rows.back().metrics);
}

// Local SGDA / SEG as run in Zhang et al. 2024, Section 5; FESS-GDA, Shen et al. 2024,
// Algorithm 1 (lines 3 and 10): d1 + d2 floats each way per
// sampled client (the anchor z never leaves the server).
TEST_CASE("communication: local methods send one model each way per client per round") {
  const std::int64_t rounds = 12, n = 5, K = 4;
  for (const char* name : {"local-sgda", "local-seg", "fess-gda", "fsgda"}) {
    CAPTURE(name);
    ParamMap params{{"local_steps", std::to_string(K)}};
    if (std::string(name).rfind("f", 0) == 0) params["batch_size"] = "1";  // FESS-GDA: B = 100
    const auto t = run_game({name, params, rounds});
    const auto& last = t.rows.back();
    CHECK(last.comm.exchanges == rounds);
    CHECK(last.comm.floats_up == rounds * n * kDim);
    CHECK(last.comm.floats_down == rounds * n * kDim);
    CHECK(last.comm.bytes_up == 8 * rounds * n * kDim);
    const std::int64_t calls_per_step = std::string(name) == "local-seg" ? 2 : 1;
    CHECK(last.oracle[OracleKind::grad_x] == rounds * n * K * calls_per_step);
    CHECK(last.oracle.samples == rounds * n * K * calls_per_step);  // batch size 1
  }
  // Fed-Norm-SGDA+ sends the snapshot x~ with every broadcast: 2 d1 + d2 down, d1 + d2 up.
  const auto t = run_game({"fed-norm-sgda-plus", {{"local_steps", "2"}, {"batch_size", "1"}}, rounds});
  CHECK(t.rows.back().comm.floats_down == rounds * n * (kDim + kDim / 2));
  CHECK(t.rows.back().comm.floats_up == rounds * n * kDim);
  // FedSGDA-M averages models and estimators: 2 (d1 + d2) up; down from round 1 on; two
  // oracle calls per local step (the same minibatch at two points) plus one initial estimate.
  const auto m = run_game({"fedsgda-m", {{"local_steps", std::to_string(K)}, {"batch_size", "1"},
                                          {"initial_batch", "3"}}, rounds});
  CHECK(m.rows.back().comm.floats_up == rounds * n * 2 * kDim);
  CHECK(m.rows.back().comm.floats_down == rounds * n * kDim + (rounds - 1) * n * kDim);
  CHECK(m.rows.back().oracle[OracleKind::grad_x] == n * (1 + rounds * K * 2));
  CHECK(m.rows.back().oracle.samples == n * (3 + rounds * K * 2));
}

TEST_CASE("communication: fedgda-gt pays two exchanges per round") {
  const std::int64_t rounds = 7, n = 5, K = 3;
  const auto t = run_game({"fedgda-gt", {{"local_steps", std::to_string(K)}}, rounds});
  const auto& last = t.rows.back();
  CHECK(last.comm.exchanges == 2 * rounds);
  CHECK(last.comm.floats_up == 2 * rounds * n * kDim);
  CHECK(last.comm.floats_down == 2 * rounds * n * kDim);
  CHECK(last.oracle[OracleKind::grad_x] == rounds * n * (K + 1));
  CHECK(last.oracle.samples == rounds * n * (K + 1) * 8);  // full local batches of 8
}

TEST_CASE("communication: proxskip communicates only when its coin says so") {
  // Every engine round is one theta = 1 event; the iterations in between are local and free.
  const std::int64_t rounds = 3000, n = 5;
  const double p = 0.2;
  const auto t = run_game({"proxskip-gda-fl", {{"step_size", "0.1"}, {"comm_prob", "0.2"}}, rounds,
                           1, "full", 11, 1000});
  const auto& last = t.rows.back();
  CHECK(last.comm.exchanges == rounds);
  CHECK(last.comm.floats_up == rounds * n * kDim);
  CHECK(last.comm.floats_down == rounds * n * kDim);
  CHECK(last.comm.bytes_down == rounds * n * (8 * kDim + 8));  // the model and K as control
  // Iterations per communication are Geometric(p): mean 1/p, sd sqrt(1-p)/p / sqrt(rounds).
  const double iterations = static_cast<double>(last.oracle[OracleKind::grad_x]) / n;
  CHECK(iterations / rounds == doctest::Approx(1.0 / p).epsilon(0.05));
  CHECK(last.oracle[OracleKind::grad_x] % n == 0);  // every client does the same iterations
}

TEST_CASE("runs: a diverging run ends with status diverged, not a crash") {
  const auto t = run_game({"gda", {{"step_size", "50"}}, 200});
  CHECK(t.summary.status() == "diverged");
  CHECK(t.summary.reason == StopReason::diverged);
  CHECK(t.summary.rounds < 200);
  CHECK(t.summary.message.find("rel_error") != std::string::npos);
}

TEST_CASE("runs: budgets and targets stop the run with the matching reason") {
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = kGame;
  req.solver = "gda";
  req.solver_params = {{"step_size", "0.3"}};
  req.budget.rounds = 1000;
  req.budget.target = Target{"rel_error", 1e-6};
  PreparedRun run = prepare_run(req, game());
  MemoryTrajectory t;
  execute(run, 1, t);
  CHECK(t.summary.reason == StopReason::target_reached);
  CHECK(t.rows.back().metrics[0] <= 1e-6);
  CHECK(t.rows[t.rows.size() - 2].metrics[0] > 1e-6);

  req.budget.target.reset();
  req.budget.max_samples = 5 * 8 * 10;  // ten full-batch rounds
  PreparedRun run2 = prepare_run(req, game());
  MemoryTrajectory t2;
  execute(run2, 1, t2);
  CHECK(t2.summary.reason == StopReason::oracle_budget);
  CHECK(t2.summary.rounds == 10);
}

TEST_CASE("runs: log-spaced evaluation keeps round 0, the last round and few rows in between") {
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = kGame;
  req.solver = "gda";
  req.budget.rounds = 1000;
  req.eval.log_points_per_decade = 5;
  PreparedRun run = prepare_run(req, game());
  MemoryTrajectory t;
  execute(run, 1, t);
  CHECK(t.rows.front().round == 0);
  CHECK(t.rows.back().round == 1000);
  CHECK(t.rows.size() < 30);
  for (std::size_t r = 1; r < t.rows.size(); ++r) CHECK(t.rows[r - 1].round < t.rows[r].round);
}

TEST_CASE("runs: incompatible settings are rejected before any round") {
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = kGame;
  req.solver = "proxskip-vip-fl";
  req.participation = Participation::parse("uniform:2");
  CHECK_THROWS_WITH_AS(prepare_run(req, game()),
                       "solver proxskip-vip-fl: ProxSkip-VIP-FL (Alg. 2) needs every client in "
                       "every round; use --participation full",
                       UserError);
  req.solver = "local-sgda";
  req.solver_params = {{"schedule", "constant"}};
  CHECK_THROWS_WITH_AS(prepare_run(req, game()),
                       "solver local-sgda: schedule=constant has no theory step size; give -s "
                       "step_size=VALUE",
                       UserError);
  req.participation = Participation::parse("uniform:9");
  req.solver_params = {};
  CHECK_THROWS_AS(prepare_run(req, game()), UserError);
}

TEST_CASE("communication: sagda talks to one client set in both stages") {
  const std::int64_t rounds = 10, m = 2, K = 3;
  const auto t = run_game({"sagda", {{"local_steps", std::to_string(K)}, {"batch_size", "1"}}, rounds,
                           1, "uniform:2"});
  const auto& last = t.rows.back().comm;
  CHECK(last.exchanges == 2 * rounds);
  CHECK(last.floats_down == rounds * m * (kDim + 2 * kDim));  // (x, y); then (x, y, v)
  CHECK(last.floats_up == rounds * m * (kDim + kDim));        // c_i; then the model
  for (const auto& c : t.summary.per_client)  // stage 1 + K steps for each round it took part in
    CHECK(c[OracleKind::grad_x] % (1 + K) == 0);
}

TEST_CASE("communication: cd-mage, cd-mage+ and cd-ma per round (Xie et al. 2021, Algs. 1-4)") {
  const std::int64_t rounds = 8, m = 3, d = kDim;
  const ParamMap steps{{"local_steps", "2"}, {"batch_size", "2"}};
  const auto mage = run_game({"cd-mage", steps, rounds, 1, "uniform:3"}).rows.back().comm;
  CHECK(mage.exchanges == 2 * rounds);
  CHECK(mage.floats_down == rounds * m * (d + 2 * d));  // (x, y); then (x, y, u, v)
  CHECK(mage.floats_up == rounds * m * (d + d));        // gradient; then the local model
  ParamMap plus_steps = steps;
  const auto plus = run_game({"cd-mage-plus", plus_steps, rounds, 1, "uniform:3"}).rows.back().comm;
  CHECK(plus.floats_down == mage.floats_down + (rounds - 1) * m * d);  // z_{t-1} from round 1
  const auto ma = run_game({"cd-ma", steps, rounds, 1, "uniform:3"}).rows.back().comm;
  CHECK(ma.exchanges == rounds);
  CHECK(ma.floats_down == rounds * m * d);
  CHECK(ma.floats_up == rounds * m * d);
}

TEST_CASE("oracle: random reshuffling visits every sample once per epoch, restarting each round") {
  const auto p = fedbench::testing::problem("quadratic-game", {{"clients", "1"}, {"samples", "7"}, {"dim", "1"}});
  OracleCounts counts;
  ClientOracle oracle(*p, 0, counts, 3);
  std::vector<Index> seen;
  std::vector<std::size_t> sizes;
  for (int k = 0; k < 3; ++k) {
    const auto chunk = oracle.next_reshuffled(3);
    sizes.push_back(chunk.size());
    seen.insert(seen.end(), chunk.begin(), chunk.end());
  }
  CHECK(sizes == std::vector<std::size_t>{3, 3, 1});
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<Index>{0, 1, 2, 3, 4, 5, 6});
  const auto next_epoch = oracle.next_reshuffled(3);
  CHECK(next_epoch.size() == 3);
}

TEST_CASE("sampling: a client drawn twice in a round (iid) runs twice on fresh minibatches") {
  // 7 draws of the 4 clients: per-client sample counts sum to 7 draws x one step x batch 1,
  // and some client must have run twice in the same round with different batches.
  const std::int64_t rounds = 5;
  const auto t = run_game({"local-sgda", {{"local_steps", "1"}, {"batch_size", "1"}}, rounds, 1, "iid:7"});
  std::int64_t samples = 0;
  for (const auto& c : t.summary.per_client) samples += c.samples;
  CHECK(samples == rounds * 7);
  CHECK(t.rows.back().comm.messages_up == rounds * 7);
}

TEST_CASE("communication: catalyst-scaffold-s per round, z_ref rides when theta > 0") {
  const std::int64_t rounds = 6, m = 3, d = kDim;
  const ParamMap base{{"local_steps", "2"}, {"batch_size", "2"}};
  const auto t = run_game({"catalyst-scaffold-s", base, rounds, 1, "uniform:3"}).rows.back().comm;
  CHECK(t.exchanges == 2 * rounds);
  CHECK(t.floats_up == rounds * m * 2 * d);           // gradient; then the local model
  CHECK(t.floats_down == rounds * m * (d + 2 * d));   // z_t; then z_t and g
  ParamMap prox = base;
  prox["theta"] = "0.5";
  const auto p = run_game({"catalyst-scaffold-s", prox, rounds, 1, "uniform:3"}).rows.back().comm;
  CHECK(p.floats_down == t.floats_down + rounds * m * d);
}

TEST_CASE("catalyst-scaffold-s: Bernoulli(1/K) flags give rounds of K local steps on average") {
  // Per round a client makes 1 full-gradient call (phase A) and 2 calls per local step.
  const auto steps_per_round = [](const MemoryTrajectory& t, std::int64_t rounds) {
    const auto calls = t.summary.per_client[0][OracleKind::grad_x];
    return static_cast<double>(calls - rounds) / (2.0 * static_cast<double>(rounds));
  };
  // p = 1: every index flagged, so every round runs exactly one step.
  const auto one = run_game({"catalyst-scaffold-s", {{"local_steps", "1"}, {"stage_iterations", "7"}}, 20});
  CHECK(steps_per_round(one, 20) == 1.0);
  // p = 1/5: gaps between flags are Geometric(1/5), mean 5 (Xie et al. 2021, App. B.1: p = 1/K,
  // on average K local steps).
  const std::int64_t rounds = 1500;
  const auto geo = run_game({"catalyst-scaffold-s", {{"local_steps", "5"}, {"eta_l", "0.001"}}, rounds});
  CHECK(steps_per_round(geo, rounds) == doctest::Approx(5.0).epsilon(0.06));
  const auto fixed = run_game({"catalyst-scaffold-s", {{"local_steps", "5"}, {"round_lengths", "fixed"}}, 30});
  CHECK(steps_per_round(fixed, 30) == 5.0);
}

TEST_CASE("communication: codasca uploads model and variate change, x_ref rides when theta > 0") {
  const std::int64_t rounds = 6, m = 3, d = kDim;
  const auto t = run_game({"codasca", {{"local_steps", "2"}, {"theta", "0.5"}}, rounds, 1, "uniform:3"});
  CHECK(t.rows.back().comm.floats_up == rounds * m * 2 * d);
  CHECK(t.rows.back().comm.floats_down == rounds * m * (2 * d + d / 2));  // model, c, x_ref
  const auto coda = run_game({"coda-plus", {{"local_steps", "2"}}, rounds, 1, "uniform:3"});
  CHECK(coda.rows.back().comm.floats_up == rounds * m * d);
  CHECK(coda.rows.back().comm.floats_down == rounds * m * d);
}

TEST_CASE("theory: cd-mage's Lemma 5 steps from the game's constants (Xie et al. 2021, Sec. 4.1)") {
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = kGame;
  req.solver = "cd-mage";
  req.solver_params = {{"c_eta", "theory"}, {"c_gamma", "theory"}, {"local_steps", "4"}};
  PreparedRun run = prepare_run(req, game());
  const auto& k = game()->constants();
  const double L = k.get(Constant::lipschitz_client_max, "test"), mu = k.get(Constant::mu, "test"), K = 4;
  const double gamma = 1 / (87 * L * K);
  const double eta = std::min({1 / (36 * L * K), 1 / (4 * L * (1 + L / mu) * K), mu * mu * gamma / (21 * L * L)});
  CHECK(std::stod(run.config.solver_params.at("c_gamma")) == doctest::Approx(gamma).epsilon(1e-12));
  CHECK(std::stod(run.config.solver_params.at("c_eta")) == doctest::Approx(eta).epsilon(1e-12));
  CHECK(eta <= gamma);  // the theory's primal step is far below the dual one
  // Two timescales: y settles first, so ||z - z*|| need not fall at once; the run must be ok.
  const auto t = run_game({"cd-mage", req.solver_params, 200});
  CHECK(t.summary.status() == "ok");
  req.solver_params = {{"c_eta", "theory"}};  // one theory value and one number: rejected
  CHECK_THROWS_WITH_AS(prepare_run(req, game()),
                       "solver cd-mage: set c_eta and c_gamma both to theory or both to numbers",
                       UserError);
}
