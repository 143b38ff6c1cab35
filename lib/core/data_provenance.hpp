// Which data files a problem instance read, by content: the readers note every file they open,
// a scope around the instance's construction collects them, and each run file records them.
// A stored run whose files now hold other bytes (or are gone) is stale, not done. Hashes are
// remembered per process by (absolute path, size, modification time), so a suite of many runs
// on one file hashes it once.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace fedbench {

struct DataFileRecord {
  std::string path;      //!< as the problem was given it (relative to the working directory)
  std::string absolute;  //!< where that was when the run read it
  std::int64_t size = 0;
  std::string sha256;
  //! A registered dataset's file, verified against the checksum this build ships: its content
  //! is part of the code's fingerprint, wherever the search path finds it.
  bool registry = false;
  bool operator==(const DataFileRecord&) const = default;
};

//! The record of `path` now: absolute path, size and SHA-256 (remembered while size and
//! modification time stay the same). Throws UserError when the file cannot be read.
DataFileRecord describe_data_file(const std::string& path);
//! Tells the hash memo that `path` holds `sha256`, a registered dataset's checksum the caller
//! just verified (its record is then a registry one).
void remember_registry_file(const std::string& path, const std::string& sha256);

//! Throws UserError "cannot read WHAT PATH: not a regular file ..." for a FIFO, device or socket
//! (which would block or stream forever); nothing for a regular file or a missing one (the
//! reader's own open says why).
void require_regular_data_file(const std::string& path, const std::string& what);

//! Called by the data readers for every file they open: recorded when a DataFileScope is open
//! on this thread, otherwise nothing.
void note_data_file(const std::string& path);

//! Collects the files noted on this thread while it lives (scopes nest: an inner one hands its
//! files to the outer one too).
class DataFileScope {
 public:
  DataFileScope();
  ~DataFileScope();
  DataFileScope(const DataFileScope&) = delete;
  DataFileScope& operator=(const DataFileScope&) = delete;
  const std::vector<DataFileRecord>& files() const { return files_; }

 private:
  friend void note_data_file(const std::string& path);
  std::vector<DataFileRecord> files_;
  DataFileScope* outer_;
};

//! One line per file, "sha256<TAB>size<TAB>absolute<TAB>path<TAB>registry|file" (the run-file
//! attribute).
std::string data_files_text(const std::vector<DataFileRecord>& files);
//! The inverse of data_files_text; lines that do not parse are left out.
std::vector<DataFileRecord> parse_data_files(const std::string& text);

//! Why data recorded as `stored` is not what the same paths hold now ("" when it is): the first
//! user file whose content, size or resolved location changed, or that is gone (registry files
//! are checked by their checksum when read, and the checksums belong to the code).
std::string data_change(const std::vector<DataFileRecord>& stored);

}  // namespace fedbench
