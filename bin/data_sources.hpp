// Where each registered dataset file is published (`fedbench data get`): the download URLs,
// first tried first, keyed by the file's path below a data directory (DatasetFile::relative).
// A URL ending in .bz2/.gz/.xz is decompressed unless the stored file keeps that ending.
#pragma once
#include <string>
#include <vector>

namespace fedbench::cli {

//! The URLs of the file stored as `relative` (e.g. "libsvm/a9a"); empty when none is known.
const std::vector<std::string>& download_urls(const std::string& relative);

}  // namespace fedbench::cli
