// Counter-based streams: same key, same numbers; different keys, independent numbers; and the
// distributions have the moments they should (checked against closed forms).
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "core/random.hpp"

using fedbench::Stream;
using fedbench::StreamKey;

TEST_CASE("random: a stream is a pure function of its key") {
  Stream a(42, "oracle-batch", 3, 17, 2), b(42, "oracle-batch", 3, 17, 2);
  for (int i = 0; i < 100; ++i) CHECK(a.next_u64() == b.next_u64());
}

TEST_CASE("random: changing any key field changes the stream") {
  const StreamKey base{42, fedbench::hash_name("p"), 3, 17, 2};
  std::set<std::uint64_t> firsts;
  for (StreamKey k : {base, StreamKey{43, base.purpose, 3, 17, 2},
                      StreamKey{42, fedbench::hash_name("q"), 3, 17, 2},
                      StreamKey{42, base.purpose, 4, 17, 2}, StreamKey{42, base.purpose, 3, 18, 2},
                      StreamKey{42, base.purpose, 3, 17, 3}}) {
    Stream s(k);
    firsts.insert(s.next_u64());
  }
  CHECK(firsts.size() == 6);
}

TEST_CASE("random: uniform, below, bernoulli, geometric and normal have the right moments") {
  Stream s(1, "moments");
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0, sg = 0;
  long counts[5] = {0, 0, 0, 0, 0};
  long heads = 0;
  for (int i = 0; i < n; ++i) {
    const double u = s.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    su += u;
    ++counts[s.below(5)];
    heads += s.bernoulli(0.3);
    sg += static_cast<double>(s.geometric(0.25));
    const double z = s.normal();
    sn += z;
    sn2 += z * z;
  }
  // Tolerances are about 5 standard errors.
  CHECK(su / n == doctest::Approx(0.5).epsilon(0.005));
  for (long c : counts) CHECK(static_cast<double>(c) / n == doctest::Approx(0.2).epsilon(0.025));
  CHECK(static_cast<double>(heads) / n == doctest::Approx(0.3).epsilon(0.01));
  CHECK(sg / n == doctest::Approx(4.0).epsilon(0.02));  // E[Geometric(p)] = 1/p
  CHECK(std::abs(sn / n) < 0.012);
  CHECK(sn2 / n == doctest::Approx(1.0).epsilon(0.015));
}

TEST_CASE("random: geometric(1) is always one step and below(1) is always 0") {
  Stream s(5, "edge");
  for (int i = 0; i < 100; ++i) {
    CHECK(s.geometric(1.0) == 1);
    CHECK(s.below(1) == 0);
  }
}
