#include "core/random.hpp"

#include <limits>

namespace fedbench {

std::uint64_t Stream::below(std::uint64_t n) {
  if (n <= 1) return 0;
  // Lemire, "Fast random integer generation in an interval", ACM TOMACS 2019.
  unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::int64_t Stream::geometric(double p) {
  if (p >= 1.0) return 1;
  // Inversion: K = 1 + floor(log U / log(1 - p)), U uniform on (0, 1].
  const double k = std::floor(std::log(uniform_open0()) / std::log1p(-p));
  if (!(k < 9.0e18)) return std::numeric_limits<std::int64_t>::max();
  return 1 + static_cast<std::int64_t>(k);
}

double Stream::normal() {
  const double u1 = uniform_open0();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace fedbench
