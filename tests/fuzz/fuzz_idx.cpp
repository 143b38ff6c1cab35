// IDX reader (datasets/idx.hpp). The first byte chooses: even, one file for read_idx; odd, an
// image file and a label file for read_idx_images, split where the next two bytes say
// (little-endian, modulo the rest's length). Either file may be gzip.
#include <cstdint>

#include "datasets/idx.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fedbench::datasets;
  const auto& dir = fedbench::fuzz::scratch();
  if (size < 3) return 0;
  if (data[0] % 2 == 0) {
    const std::string path = dir.write("one.idx", data + 1, size - 1);
    return fedbench::fuzz::expect_user_errors([&] { (void)read_idx(path); });
  }
  const std::size_t rest = size - 3, split = (data[1] | std::size_t(data[2]) << 8) % (rest + 1);
  const std::string images = dir.write("images.idx", data + 3, split);
  const std::string labels = dir.write("labels.idx", data + 3 + split, rest - split);
  return fedbench::fuzz::expect_user_errors([&] { (void)read_idx_images(images, labels); });
}
