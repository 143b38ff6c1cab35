// `fedbench instance`: a generated problem instance as an HDF5 file (format in
// docs/hdf5-format.md): its parameters, shapes, constants, start point and exact solution,
// and the problem's own data (matrices, vectors, data rows of every client), so that a run's
// result can be verified with numpy alone.
#pragma once
#include <string>

#include "core/params.hpp"
#include "problem/problem.hpp"

namespace fedbench::io {

inline constexpr const char* kInstanceFormat = "fedbench-instance";
inline constexpr std::int64_t kInstanceFormatVersion = 2;  // 2: a CSR group's shape is two integers

//! Writes PATH.part and renames it to PATH when complete.
void write_instance_file(const Problem& problem, const std::string& name,
                         const ParamMap& canonical_params, const std::string& path);

}  // namespace fedbench::io
