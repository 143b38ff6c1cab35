// Where dataset files are looked for, in order (docs/usage.md, "Datasets"):
//   $FEDBENCH_DATA (colon-separated), ./datasets/data and ../shared/datasets of the working
//   directory, the same two of the source tree (a binary run from its build tree), the per-user
//   $XDG_DATA_HOME/fedbench/datasets (~/.local/share/fedbench/datasets), the installed
//   EXE/../share/fedbench/datasets, and /usr/share/datasets (Debian's dataset packages).
// A directory reached twice (the working directory is the source tree) is listed once.
#pragma once
#include <string>
#include <vector>

#include "core/shipped_files.hpp"

namespace fedbench::datasets {

//! Every directory searched, with where it comes from, whether it exists or not.
std::vector<SearchPlace> data_search_places();
//! The directories of data_search_places(), in order.
std::vector<std::string> data_search_path();

}  // namespace fedbench::datasets
