// The datasets fedbench knows: files, sizes, label encodings, checksums, sources. Names
// resolve through a search path (datasets/search_path.hpp); a file's sha256 is verified
// on first use and remembered (by path, size and modification time) in
// $XDG_CACHE_HOME/fedbench/verified.tsv (or ~/.cache/...).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "datasets/libsvm.hpp"
#include "datasets/search_path.hpp"

namespace fedbench::datasets {

struct DatasetFile {
  std::string role;      //!< "train", "test", "validation", "images", "labels", ...
  std::string relative;  //!< path below a search-path directory
  std::string sha256;    //!< empty when no published checksum is known
  std::int64_t instances = 0;
};

struct DatasetInfo {
  std::string name;
  std::string format;  //!< "libsvm" or "idx"
  int features = 0;    //!< nominal count (not the largest index in a file)
  int classes = 0;
  LabelEncoding labels;
  std::vector<DatasetFile> files;
  std::string source, citation;
  std::string obtain;  //!< where to get it when missing
};

const std::vector<DatasetInfo>& dataset_registry();
//! Throws UserError "unknown dataset 'x'; valid: ... (did you mean ...)".
const DatasetInfo& dataset_info(const std::string& name);

//! Full path of one file, or nullopt when no search-path directory has it.
std::optional<std::string> find_file(const DatasetFile& f);
//! Full path of a dataset's file by role; throws UserError saying where to get it.
std::string require_file(const DatasetInfo& d, const std::string& role);

enum class Verification { ok, cached_ok, mismatch, no_checksum };
//! Checks a file against its published sha256 (remembered once it matched).
Verification verify_file(const DatasetFile& f, const std::string& full_path);

//! A LIBSVM dataset file by name and role, verified, with the registry's feature count and
//! label encoding.
LibsvmData load_libsvm(const std::string& name, const std::string& role = "train");

//! Any dataset (LIBSVM or IDX images) as CSR features and encoded labels. IDX roles: "train"
//! reads train-images/train-labels (or images/labels), "test" test-images/test-labels.
struct LabeledData {
  CsrMatrix X;
  std::vector<double> labels;
  int classes = 0;
};
LabeledData load_data(const std::string& name, const std::string& role = "train");


}  // namespace fedbench::datasets
