#include "engine/context.hpp"

#include <algorithm>

namespace fedbench {

std::span<const Index> ClientOracle::draw(int batch) {
  if (batch <= 0) return {};
  batch_.resize(static_cast<std::size_t>(batch));  // allocates once, then reuses
  Stream s(StreamKey{seed_, hash_name("oracle-batch"), client_, round_, draws_++});
  const auto m = static_cast<std::uint64_t>(num_samples());
  for (auto& j : batch_) j = static_cast<Index>(s.below(m));
  return batch_;
}

std::span<const Index> BilevelOracle::draw(int batch, Index m, std::string_view level,
                                           std::vector<Index>& buffer) {
  if (batch <= 0) return {};
  buffer.resize(static_cast<std::size_t>(batch));
  const std::uint64_t purpose = hash_name(level == "upper" ? "oracle-batch-upper" : "oracle-batch-lower");
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
    Stream s(StreamKey{seed_, hash_name("oracle-reshuffle"), client_, round_, epoch_++});
    for (Index j = m; j > 1; --j) std::swap(permutation_[j - 1], permutation_[s.below(j)]);
    epoch_pos_ = 0;
  }
  const Index n = std::min<Index>(batch, m - epoch_pos_);
  std::span<const Index> chunk(permutation_.data() + epoch_pos_, static_cast<std::size_t>(n));
  epoch_pos_ += n;
  return chunk;
}

}  // namespace fedbench
