// What the problems that hold rows of a dataset write with `fedbench instance`: the data
// matrix (LIBSVM data as CSR, image data as a dense matrix), class ids, and each client's rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/libsvm.hpp"
#include "datasets/partition.hpp"
#include "datasets/registry.hpp"
#include "problem/instance_writer.hpp"

namespace fedbench::problems {

//! True for image datasets (IDX files), whose rows are written dense.
inline bool dense_rows(const std::string& dataset) { return datasets::dataset_info(dataset).format == "idx"; }

//! X as a dense matrix (`dense`) or in CSR form; the meaning gets the storage appended.
inline void write_rows(InstanceWriter& out, const std::string& path, const datasets::CsrMatrix& X, bool dense,
                       const std::string& meaning) {
  if (dense) out.matrix(path, X.dense(), meaning + " (dense, one row per sample)");
  else out.csr(path, X.rows, X.cols, X.row_start, X.col, X.val, meaning + " (CSR, one row per sample)");
}

//! A dense data matrix X as such (`dense`) or in CSR form (its nonzeros).
inline void write_rows(InstanceWriter& out, const std::string& path, const Mat& X, bool dense,
                       const std::string& meaning) {
  if (dense) {
    out.matrix(path, X, meaning + " (dense, one row per sample)");
    return;
  }
  datasets::CsrMatrix csr;
  csr.rows = X.rows();
  csr.cols = X.cols();
  for (Index r = 0; r < X.rows(); ++r) {
    for (Index c = 0; c < X.cols(); ++c)
      if (X(r, c) != 0) {
        csr.col.push_back(static_cast<std::int32_t>(c));
        csr.val.push_back(X(r, c));
      }
    csr.row_start.push_back(static_cast<std::int32_t>(csr.val.size()));
  }
  write_rows(out, path, csr, false, meaning);
}

inline void write_labels(InstanceWriter& out, const std::string& path, const std::vector<double>& labels,
                         const std::string& meaning) {
  out.vector(path, Eigen::Map<const Vec>(labels.data(), static_cast<Index>(labels.size())), meaning);
}

//! clients/<i>/<leaf>: the rows each client holds.
inline void write_client_rows(InstanceWriter& out, const std::string& leaf, const datasets::Partition& parts,
                              const std::string& meaning) {
  for (std::size_t i = 0; i < parts.size(); ++i)
    out.indices("clients/" + std::to_string(i) + "/" + leaf, parts[i], meaning);
}

}  // namespace fedbench::problems
