// `fedbench data get NAME...`: downloads a registered dataset's files from their public URLs
// (bin/data_sources.cpp) or a mirror laid out like a data directory, checks each against the
// registry (SHA-256 where published, always the row count, by reading it), and only then
// publishes it under its registered path in the destination; a download that fails a check
// is deleted, so nothing half-fetched or wrong is ever found by a run.
#pragma once
#include <string>
#include <vector>

namespace fedbench::cli {

struct DataGetOptions {
  std::string to;      //!< destination directory (default: data_get_destination())
  std::string mirror;  //!< base URL of a mirror holding RELATIVE (or RELATIVE.bz2/.xz/.gz)
  bool force = false;  //!< download even when a good copy is already on the search path
};

//! Where `data get` stores files without --to: the first $FEDBENCH_DATA directory, else the
//! per-user $XDG_DATA_HOME/fedbench/datasets (~/.local/share/fedbench/datasets).
std::string data_get_destination();

//! Fetches every file of the named datasets; returns the exit status (0, or 1 when a file could
//! not be fetched or was refused).
int data_get(const std::vector<std::string>& names, const DataGetOptions& options);

}  // namespace fedbench::cli
