#include "engine/context.hpp"

namespace fedbench {

std::span<const Index> ClientOracle::draw(int batch) {
  if (batch <= 0) return {};
  batch_.resize(static_cast<std::size_t>(batch));  // allocates once, then reuses
  Stream s(StreamKey{seed_, hash_name("oracle-batch"), client_, round_, draws_++});
  const auto m = static_cast<std::uint64_t>(num_samples());
  for (auto& j : batch_) j = static_cast<Index>(s.below(m));
  return batch_;
}

}  // namespace fedbench
