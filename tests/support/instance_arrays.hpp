// The arrays a problem writes for `fedbench instance`, kept in memory: tests compute from
// them what the problem's own code computes, independently.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "problem/instance_writer.hpp"

namespace fedbench::testing {

//! The arrays a problem writes for `fedbench instance`, in memory (CSR kept dense).
struct InstanceArrays final : InstanceWriter {
  std::map<std::string, Mat> X;
  std::map<std::string, Vec> vectors;
  std::map<std::string, std::vector<Index>> lists;
  std::map<std::string, double> scalars;
  void matrix(const std::string& path, const Mat& m, const std::string&) override { X[path] = m; }
  void vector(const std::string& path, const Vec& v, const std::string&) override { vectors[path] = v; }
  void indices(const std::string& path, const std::vector<Index>& v, const std::string&) override {
    lists[path] = v;
  }
  void csr(const std::string& path, Index rows, Index cols, const std::vector<std::int32_t>& indptr,
           const std::vector<std::int32_t>& indices, const std::vector<double>& data, const std::string&) override {
    if (path != "X" && path != "train/X") return;  // the rows the oracles read
    Mat dense = Mat::Zero(rows, cols);
    for (Index r = 0; r < rows; ++r)
      for (std::int32_t e = indptr[r]; e < indptr[r + 1]; ++e) dense(r, indices[e]) = data[e];
    X[path] = dense;
  }
  void scalar(const std::string& path, double value, const std::string&) override { scalars[path] = value; }
  void text(const std::string&, const std::string&, const std::string&) override {}
};

}  // namespace fedbench::testing
