// Reader of LIBSVM / SVMlight text files ("label index:value index:value ..."), plain, gzip-
// or bzip2-compressed (datasets/compressed_file.hpp), into a CSR matrix. Indices are 1-based and increasing
// within a line; lines may end with or without a trailing space. Every error names the file
// and the line; no input crashes the reader.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/SparseCore>

#include "core/types.hpp"

namespace fedbench::datasets {

using SparseRowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, std::int32_t>;

//! Compressed sparse rows; the arrays are what a solver's inner loop walks.
struct CsrMatrix {
  Index rows = 0, cols = 0;
  std::vector<std::int32_t> row_start{0};  //!< size rows + 1
  std::vector<std::int32_t> col;
  std::vector<double> val;

  Index nnz() const { return static_cast<Index>(val.size()); }
  //! A read-only Eigen view (no copy).
  Eigen::Map<const SparseRowMatrix> view() const {
    return {rows, cols, nnz(), row_start.data(), col.data(), val.data()};
  }
  Mat dense() const;
};

//! Raw label values and what each maps to (binary: -1/+1; multiclass: 0..C-1).
struct LabelEncoding {
  std::vector<double> raw, mapped;
  bool empty() const { return raw.empty(); }
  std::string describe() const;
};

struct LibsvmData {
  std::string path;
  std::vector<double> labels;  //!< mapped through the encoding when one was given
  CsrMatrix X;
  int max_index = 0;  //!< largest 1-based index present in the file
  long max_index_line = 0;  //!< the line it is on (for messages about the dimension)

  Index num_rows() const { return X.rows; }
  //! Dense rows x num_features matrix (num_features >= max_index, or an error naming the fix).
  Mat dense(int num_features) const;
};

//! The largest feature index a file may use (the data stays sparse below it; problems that
//! need dense rows check their own, smaller, limits).
inline constexpr long kMaxFeatureIndex = 1L << 28;

//! Reads the whole file with `num_features` columns (0: the largest index present) and maps
//! labels through `encoding` (empty: kept as read). Throws UserError "PATH:LINE: ...".
LibsvmData read_libsvm(const std::string& path, int num_features = 0,
                       const LabelEncoding& encoding = {});

}  // namespace fedbench::datasets
