// Reader of LIBSVM / SVMlight text files ("label index:value index:value ..."), plain or
// gzip-compressed (zlib reads both). Indices are 1-based and increasing within a line; lines
// may end with or without a trailing space. Errors name the file and line.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace fedbench::datasets {

struct SparseEntry {
  std::int32_t index;  //!< 0-based feature index
  double value;
};

struct LibsvmData {
  std::string path;
  std::vector<double> labels;
  std::vector<std::vector<SparseEntry>> rows;
  int max_index = 0;  //!< largest 1-based index present in the file

  Index num_rows() const { return static_cast<Index>(rows.size()); }
  //! Dense rows x num_features matrix (num_features >= max_index, or an error naming the fix).
  Mat dense(int num_features) const;
};

//! Reads the whole file; throws UserError "PATH: cannot open ..." or "PATH:LINE: ...".
LibsvmData read_libsvm(const std::string& path);

}  // namespace fedbench::datasets
