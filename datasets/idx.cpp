#include "datasets/idx.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "core/data_provenance.hpp"
#include "core/error.hpp"
#include "datasets/compressed_file.hpp"

namespace fedbench::datasets {

IdxArray read_idx(const std::string& path) {
  require_regular_data_file(path, "dataset");
  note_data_file(path);  // the run records which bytes it was computed from
  CompressedFile f(path);
  if (!f.is_open()) throw UserError("cannot open " + path + ": " + std::strerror(errno));
  // Whatever was read before a corrupt stream, the error says why it stopped.
  auto checked = [&](long got) {
    if (got < 0) throw UserError(path + ": cannot read: " + f.error());
    return got;
  };
  auto read_exact = [&](void* buf, std::size_t n, const char* what) {
    const long got = checked(f.read(static_cast<char*>(buf), n));
    if (static_cast<std::size_t>(got) != n)
      throw UserError(path + ": truncated " + std::string(what) + " (read " +
                      std::to_string(got) + " of " + std::to_string(n) + " bytes)");
  };
  std::uint8_t magic[4];
  read_exact(magic, 4, "header");
  if (magic[0] != 0 || magic[1] != 0)
    throw UserError(path + ": not an IDX file (magic bytes " + std::to_string(magic[0]) + " " +
                    std::to_string(magic[1]) + ", want 0 0)");
  if (magic[2] != 0x08)
    throw UserError(path + ": IDX element type " + std::to_string(magic[2]) +
                    " is not unsigned byte (0x08), the only type MNIST files use");
  if (magic[3] == 0 || magic[3] > 4)
    throw UserError(path + ": IDX with " + std::to_string(magic[3]) + " dimensions");
  IdxArray a;
  // The product of the nonzero sizes is bounded too: a zero size empties the array but would
  // let the others be anything, and their products (an image's rows x columns) overflow.
  std::uint64_t total = 1, nonzero = 1;
  for (int d = 0; d < magic[3]; ++d) {
    std::uint8_t b[4];
    read_exact(b, 4, "header");
    const std::uint32_t size = std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 |
                               std::uint32_t(b[2]) << 8 | b[3];
    a.shape.push_back(size);
    total *= size;
    if (size > 0) nonzero *= size;
    if (nonzero > (std::uint64_t(1) << 31)) throw UserError(path + ": IDX sizes are implausible (over 2 GB)");
  }
  // Read in blocks, growing with the data actually there: a header that announces more than
  // the file holds costs no allocation of its claim (and its error says both sizes).
  constexpr std::size_t kBlock = 1 << 20;
  while (a.data.size() < total) {
    const std::size_t before = a.data.size(), want = std::min<std::uint64_t>(kBlock, total - before);
    a.data.resize(before + want);
    const long got = checked(f.read(reinterpret_cast<char*>(a.data.data() + before), want));
    if (static_cast<std::size_t>(got) != want)
      throw UserError(path + ": the header announces " + std::to_string(total) +
                      " bytes of data but the file holds " + std::to_string(before + got) +
                      " (truncated or not an IDX file)");
  }
  return a;
}

ImageData read_idx_images(const std::string& images_path, const std::string& labels_path) {
  const IdxArray images = read_idx(images_path), labels = read_idx(labels_path);
  if (images.shape.size() != 3)
    throw UserError(images_path + ": expected images (3 dimensions), found " +
                    std::to_string(images.shape.size()));
  if (labels.shape.size() != 1 || labels.count() != images.count())
    throw UserError(labels_path + ": " + std::to_string(labels.count()) + " labels for " +
                    std::to_string(images.count()) + " images in " + images_path);
  const Index n = images.shape[0], d = Index(images.shape[1]) * images.shape[2];
  ImageData out;
  out.X.resize(n, d);
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < d; ++k) out.X(i, k) = images.data[i * d + k] / 255.0;
  out.labels.assign(labels.data.begin(), labels.data.end());
  return out;
}

}  // namespace fedbench::datasets
