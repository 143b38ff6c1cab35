// Counter-based random streams. Every random number in fedbench comes from a Stream keyed by
// (seed, purpose, client, round, step): the same key gives the same numbers whatever thread,
// rank or resume order asks for them, which is what makes runs bitwise reproducible.
// The generator is SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014) started from a key made by chaining its finalizer over the key
// fields. Normals use Box-Muller written here, so the bits do not depend on the C++ library.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>

namespace fedbench {

//! FNV-1a hash of a purpose name; constexpr so that literal purposes cost nothing per call.
constexpr std::uint64_t hash_name(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

//! SplitMix64 finalizer: a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

//! The fields that name one stream. client = -1 means "the server"; step numbers draws made
//! by the same party in the same round.
struct StreamKey {
  std::uint64_t seed = 0;
  std::uint64_t purpose = 0;
  std::int64_t client = -1;
  std::int64_t round = 0;
  std::int64_t step = 0;

  constexpr std::uint64_t digest() const {
    std::uint64_t h = mix64(seed ^ 0x6a09e667f3bcc909ULL);
    h = mix64(h ^ purpose);
    h = mix64(h ^ static_cast<std::uint64_t>(client));
    h = mix64(h ^ static_cast<std::uint64_t>(round));
    return mix64(h ^ static_cast<std::uint64_t>(step));
  }
};

class Stream {
 public:
  explicit constexpr Stream(const StreamKey& key) : state_(key.digest()) {}
  Stream(std::uint64_t seed, std::string_view purpose, std::int64_t client = -1,
         std::int64_t round = 0, std::int64_t step = 0)
      : Stream(StreamKey{seed, hash_name(purpose), client, round, step}) {}

  constexpr std::uint64_t next_u64() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
  }
  //! Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  //! Uniform on (0, 1]: safe inside log().
  double uniform_open0() { return static_cast<double>((next_u64() >> 11) + 1) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  //! Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t n);
  bool bernoulli(double p) { return uniform() < p; }
  //! Number of Bernoulli(p) trials up to and including the first success (support 1, 2, ...).
  std::int64_t geometric(double p);
  //! Standard normal by the Box-Muller transform (one of the pair is discarded, so that each
  //! call consumes exactly two uniforms and the stream position stays easy to reason about).
  double normal();

 private:
  std::uint64_t state_;
};

}  // namespace fedbench
