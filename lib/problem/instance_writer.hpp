// Where a problem writes the data of its generated instance (`fedbench instance`), so that a
// result can be checked outside fedbench with numpy alone: named arrays, each with a one-line
// meaning. Paths use '/' for groups ("clients/3/M"). The HDF5 implementation is in
// io/instance_file; problems only call these methods.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace fedbench {

class InstanceWriter {
 public:
  virtual ~InstanceWriter() = default;
  virtual void matrix(const std::string& path, const Mat& m, const std::string& meaning) = 0;
  virtual void vector(const std::string& path, const Vec& v, const std::string& meaning) = 0;
  virtual void indices(const std::string& path, const std::vector<Index>& v,
                       const std::string& meaning) = 0;
  //! A sparse matrix in CSR form: path/data, path/indices, path/indptr and a shape attribute
  //! (scipy.sparse.csr_matrix((data, indices, indptr), shape)).
  virtual void csr(const std::string& path, Index rows, Index cols,
                   const std::vector<std::int32_t>& indptr, const std::vector<std::int32_t>& indices,
                   const std::vector<double>& data, const std::string& meaning) = 0;
  virtual void scalar(const std::string& path, double value, const std::string& meaning) = 0;
  virtual void text(const std::string& path, const std::string& value, const std::string& meaning) = 0;
};

}  // namespace fedbench
