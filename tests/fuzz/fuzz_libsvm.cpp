// LIBSVM reader (datasets/libsvm.hpp): any bytes, plain or gzip, as a dataset file. Files that
// parse are read again with the dimension and a label encoding taken from the first read, as
// problems do, and made dense when small.
#include <algorithm>
#include <cstdint>

#include "datasets/libsvm.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fedbench::datasets;
  const std::string path = fedbench::fuzz::scratch().write("data.libsvm", data, size);
  return fedbench::fuzz::expect_user_errors([&] {
    const LibsvmData plain = read_libsvm(path);
    // Binary encoding of the first two distinct labels; a third label must be refused.
    LabelEncoding encoding;
    for (double label : plain.labels) {
      if (std::find(encoding.raw.begin(), encoding.raw.end(), label) != encoding.raw.end()) continue;
      encoding.raw.push_back(label);
      encoding.mapped.push_back(encoding.raw.size() == 1 ? -1.0 : 1.0);
      if (encoding.raw.size() == 2) break;
    }
    const LibsvmData encoded = read_libsvm(path, plain.max_index + 1, encoding);
    if (static_cast<double>(encoded.num_rows()) * (plain.max_index + 1) <= 1 << 20)
      (void)encoded.dense(plain.max_index + 1);
    (void)plain.dense(0);  // too few features: a UserError unless the file has no index
  });
}
