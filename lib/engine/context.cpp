#include "engine/context.hpp"

#include <algorithm>

namespace fedbench {

namespace {
// Stream purposes, hashed at compile time: a draw costs no hashing of names.
constexpr std::uint64_t kBatch = hash_name("oracle-batch");
constexpr std::uint64_t kUpperBatch = hash_name("oracle-batch-upper");
constexpr std::uint64_t kLowerBatch = hash_name("oracle-batch-lower");
constexpr std::uint64_t kReshuffle = hash_name("oracle-reshuffle");
}  // namespace

std::span<const Index> ClientOracle::draw(int batch) {
  if (batch <= 0) return {};
  batch_.resize(static_cast<std::size_t>(batch));  // allocates once, then reuses
  Stream s(StreamKey{seed_, kBatch, client_, round_, draws_++});
  const auto m = static_cast<std::uint64_t>(num_samples());
  for (auto& j : batch_) j = static_cast<Index>(s.below(m));
  return batch_;
}

std::span<const Index> BilevelOracle::draw(int batch, Index m, std::string_view level,
                                           std::vector<Index>& buffer) {
  if (batch <= 0) return {};
  buffer.resize(static_cast<std::size_t>(batch));
  const std::uint64_t purpose = level == "upper" ? kUpperBatch : kLowerBatch;
  Stream s(StreamKey{seed_, purpose, client_, round_, draws_++});
  for (auto& j : buffer) j = static_cast<Index>(s.below(static_cast<std::uint64_t>(m)));
  return buffer;
}

std::span<const Index> ClientOracle::next_reshuffled(int batch) {
  const Index m = num_samples();
  if (batch <= 0 || batch >= m) batch = static_cast<int>(m);
  if (epoch_pos_ < 0 || epoch_pos_ >= m) {  // a new epoch: a fresh permutation
    permutation_.resize(static_cast<std::size_t>(m));
    for (Index j = 0; j < m; ++j) permutation_[j] = j;
    Stream s(StreamKey{seed_, kReshuffle, client_, round_, epoch_++});
    for (Index j = m; j > 1; --j) std::swap(permutation_[j - 1], permutation_[s.below(j)]);
    epoch_pos_ = 0;
  }
  const Index n = std::min<Index>(batch, m - epoch_pos_);
  std::span<const Index> chunk(permutation_.data() + epoch_pos_, static_cast<std::size_t>(n));
  epoch_pos_ += n;
  return chunk;
}

}  // namespace fedbench
