// Client sampling: the right sets, reproducible from (seed, round, phase) alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/random.hpp"
#include "engine/client_sampling.hpp"

using namespace fedbench;

TEST_CASE("sampling: full participation takes every client in id order") {
  ClientSampler s(Participation::parse("full"), 5, 1);
  const auto ids = s.sample(3, 0);
  CHECK(std::vector<int>(ids.begin(), ids.end()) == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("sampling: uniform:m gives m distinct sorted ids, each client equally often") {
  ClientSampler s(Participation::parse("uniform:3"), 10, 9);  // many rounds: the permutation must return to the identity each time
  std::vector<int> hits(10, 0);
  const int rounds = 20000;
  for (int r = 0; r < rounds; ++r) {
    const auto ids = s.sample(r, 0);
    REQUIRE(ids.size() == 3);
    CHECK(std::set<int>(ids.begin(), ids.end()).size() == 3);
    for (std::size_t k = 1; k < ids.size(); ++k) CHECK(ids[k - 1] < ids[k]);
    for (int i : ids) ++hits[i];
  }
  for (int h : hits) CHECK(static_cast<double>(h) / rounds == doctest::Approx(0.3).epsilon(0.04));
}

TEST_CASE("sampling: iid:m makes m draws with replacement, each client 1/M of them") {
  ClientSampler s(Participation::parse("iid:6"), 4, 2);
  CHECK(Participation::parse("iid:6").to_text() == "iid:6");
  std::vector<int> hits(4, 0);
  const int rounds = 20000;
  long rounds_with_repeat = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto ids = s.sample(r, 0);
    REQUIRE(ids.size() == 6);  // more draws than clients: repeats are certain (pigeonhole)
    for (std::size_t k = 1; k < ids.size(); ++k) CHECK(ids[k - 1] <= ids[k]);
    rounds_with_repeat += std::set<int>(ids.begin(), ids.end()).size() < 6;
    for (int i : ids) ++hits[i];
  }
  CHECK(rounds_with_repeat == rounds);
  for (int h : hits) CHECK(static_cast<double>(h) / (6.0 * rounds) == doctest::Approx(0.25).epsilon(0.03));
  // With m = 2 of M = 4 a repeat has probability 1/4: the draws are really independent.
  ClientSampler pairs(Participation::parse("iid:2"), 4, 5);
  long repeats = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto ids = pairs.sample(r, 0);
    repeats += ids[0] == ids[1];
  }
  CHECK(static_cast<double>(repeats) / rounds == doctest::Approx(0.25).epsilon(0.05));
}

TEST_CASE("sampling: bernoulli:q includes each client with probability q") {
  ClientSampler s(Participation::parse("bernoulli:0.25"), 8, 4);
  long total = 0;
  const int rounds = 20000;
  for (int r = 0; r < rounds; ++r) total += static_cast<long>(s.sample(r, 0).size());
  CHECK(static_cast<double>(total) / (8.0 * rounds) == doctest::Approx(0.25).epsilon(0.03));
}

TEST_CASE("sampling: the set for a round does not depend on which rounds were asked before") {
  ClientSampler a(Participation::parse("uniform:4"), 12, 3), b(Participation::parse("uniform:4"), 12, 3);
  for (int r = 0; r < 10; ++r) a.sample(r, 0);
  const auto x = a.sample(10, 0);
  const std::vector<int> from_a(x.begin(), x.end());
  const auto y = b.sample(10, 0);
  CHECK(from_a == std::vector<int>(y.begin(), y.end()));
}

TEST_CASE("sampling: bad participation strings are rejected with the accepted forms") {
  CHECK_THROWS_AS(Participation::parse("uniform:0"), UserError);
  CHECK_THROWS_AS(Participation::parse("bernoulli:1.5"), UserError);
  CHECK_THROWS_WITH(Participation::parse("some"),
                    "participation 'some' is not valid; use full, uniform:M (M distinct clients per "
                    "round), bernoulli:Q (each client joins with probability 0 < Q <= 1), iid:M "
                    "(M uniform draws with replacement, the theory's i.i.d. clients) or dropout:M:R "
                    "(M distinct candidates, of which M - floor(U R M) respond, U uniform on [0, 1), "
                    "0 <= R < 1)");
  for (const char* bad : {"dropout:8", "dropout:8:1", "dropout:8:-0.1", "dropout:0:0.5", "dropout:x:0.5"})
    CHECK_THROWS_AS(Participation::parse(bad), UserError);
  CHECK_THROWS_AS(ClientSampler(Participation::parse("dropout:5:0.5"), 4, 0), UserError);
  CHECK_THROWS_AS(ClientSampler(Participation::parse("uniform:5"), 4, 0), UserError);
}

TEST_CASE("sampling: uniform:m selects what a fresh Fisher-Yates permutation would, round after round") {
  // The reference: the dense partial Fisher-Yates over all M ids with the sampler's stream.
  auto reference = [](int M, int m, std::uint64_t seed, std::int64_t round, int phase) {
    Stream s(seed, "client-sampling", -1, round, phase);
    std::vector<int> perm(static_cast<std::size_t>(M));
    for (int i = 0; i < M; ++i) perm[i] = i;
    for (int k = 0; k < m; ++k) std::swap(perm[k], perm[k + static_cast<int>(s.below(static_cast<std::uint64_t>(M - k)))]);
    std::vector<int> out(perm.begin(), perm.begin() + m);
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const auto& [M, m] : std::vector<std::pair<int, int>>{{100000, 100}, {1000, 10}, {50, 40}, {9, 1}, {64, 8}}) {
    ClientSampler s(Participation::parse("uniform:" + std::to_string(m)), M, 21);
    for (std::int64_t r = 0; r < 30; ++r) {
      const auto ids = s.sample(r, 1);
      CHECK(std::vector<int>(ids.begin(), ids.end()) == reference(M, m, 21, r, 1));
    }
  }
}

TEST_CASE("sampling: dropout:m:r keeps m - floor(U r m) of uniform:m's candidates") {
  // The code released with Xie et al.'s CD-MAGE: 8 candidates, up to half drop out, so 5 to 8
  // respond, each count with probability 1/4 (floor(4 U) is uniform on {0, 1, 2, 3}).
  const Participation p = Participation::parse("dropout:8:0.5");
  CHECK(p.to_text() == "dropout:8:0.5");
  ClientSampler dropout(p, 40, 7), candidates(Participation::parse("uniform:8"), 40, 7);
  CHECK(dropout.max_per_round() == 8);
  std::vector<long> count_of(9, 0), hits(40, 0);
  const int rounds = 20000;
  for (int r = 0; r < rounds; ++r) {
    const auto kept = dropout.sample(r, 1);
    const auto all = candidates.sample(r, 1);
    REQUIRE(kept.size() >= 5);
    REQUIRE(kept.size() <= 8);
    ++count_of[kept.size()];
    for (std::size_t k = 1; k < kept.size(); ++k) CHECK(kept[k - 1] < kept[k]);
    // The responders are candidates of the same round (uniform:8 with the same stream).
    CHECK(std::includes(all.begin(), all.end(), kept.begin(), kept.end()));
    for (int i : kept) ++hits[i];
  }
  for (int n = 5; n <= 8; ++n) CHECK(static_cast<double>(count_of[n]) / rounds == doctest::Approx(0.25).epsilon(0.06));
  // Each client responds equally often: 6.5 of 40 per round.
  for (long h : hits) CHECK(static_cast<double>(h) / rounds == doctest::Approx(6.5 / 40).epsilon(0.06));
  // r = 0 is uniform:m exactly.
  ClientSampler none(Participation::parse("dropout:8:0"), 40, 7), same(Participation::parse("uniform:8"), 40, 7);
  for (int r = 0; r < 20; ++r) {
    const auto a = none.sample(r, 0);
    const auto b = same.sample(r, 0);
    CHECK(std::vector<int>(a.begin(), a.end()) == std::vector<int>(b.begin(), b.end()));
  }
}

TEST_CASE("sampling: redrawn responders come from phase 0's candidates, afresh, as many as the phase's drop-outs leave") {
  const std::uint64_t seed = 21;
  ClientSampler s(Participation::parse("dropout:8:0.5"), 30, seed);
  ClientSampler candidates(Participation::parse("uniform:8"), 30, seed);  // the same candidates' draw
  // How often a candidate responds in phase B, given that it did or did not in phase A.
  double in_a = 0, in_a_and_b = 0, out_a = 0, out_a_in_b = 0;
  for (int r = 0; r < 2000; ++r) {
    const auto a = s.sample(r, 0);
    const std::vector<int> phase_a(a.begin(), a.end());
    const auto redrawn0 = s.redraw_responders(r, 0);
    CHECK(std::vector<int>(redrawn0.begin(), redrawn0.end()) == phase_a);  // phase 0 is the sample
    const auto c = candidates.sample(r, 0);
    const std::set<int> pool(c.begin(), c.end());
    const std::size_t expected_size = s.sample(r, 1).size();  // phase 1's drop-out count
    const auto b = s.redraw_responders(r, 1);
    CHECK(b.size() == expected_size);
    CHECK(std::is_sorted(b.begin(), b.end()));
    for (int i : b) CHECK(pool.count(i) == 1);
    for (int i : pool) {
      const bool was_a = std::find(phase_a.begin(), phase_a.end(), i) != phase_a.end();
      const bool is_b = std::find(b.begin(), b.end(), i) != b.end();
      (was_a ? in_a : out_a) += 1;
      (was_a ? in_a_and_b : out_a_in_b) += is_b;
    }
  }
  // Drawn afresh: responding in B does not depend on having responded in A (a prefix of the
  // same order, or phase A's set again, would make it certain or likely).
  CHECK(in_a_and_b / in_a == doctest::Approx(out_a_in_b / out_a).epsilon(0.05));
  // Without drop-outs every candidate responds in every phase: the phase-0 set.
  ClientSampler u(Participation::parse("uniform:8"), 30, seed);
  for (int r = 0; r < 50; ++r) {
    const auto a = u.sample(r, 0);
    const std::vector<int> phase_a(a.begin(), a.end());
    const auto b = u.redraw_responders(r, 1);
    CHECK(std::vector<int>(b.begin(), b.end()) == phase_a);
  }
}
