// Reader of IDX files (MNIST, Fashion-MNIST; LeCun's format), plain, .gz or .bz2: a big-endian
// header (magic 0x0000 type ndim, then ndim uint32 sizes) followed by the raw array.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace fedbench::datasets {

struct IdxArray {
  std::vector<std::uint32_t> shape;
  std::vector<std::uint8_t> data;  //!< unsigned-byte arrays only (type 0x08), as MNIST uses
  std::size_t count() const { return shape.empty() ? 0 : shape[0]; }
};

//! Throws UserError naming the file and what is wrong (magic, type, truncation).
IdxArray read_idx(const std::string& path);

//! Images as rows of a dense matrix, pixel / 255 in [0, 1], and labels as doubles.
struct ImageData {
  Mat X;
  std::vector<double> labels;
};
ImageData read_idx_images(const std::string& images_path, const std::string& labels_path);

}  // namespace fedbench::datasets
