// Claims on the runs of a results directory, so that several fedbench processes (two shells,
// cluster jobs, mpirun ranks) can share one directory without writing the same run twice.
//
// A claim is an exclusive flock(2) on runs/<id>.lock. The kernel drops it when its process
// dies, however it dies, so a killed process never leaves a run claimed; the lock file is
// deleted only after the run's final file exists, so a process that locks a deleted lock file
// then sees the run finished. The manifest is rewritten under a lock on the directory itself.
#pragma once
#include <string>
#include "io/directory.hpp"

namespace fedbench::suite {

class RunClaim {
 public:
  enum class Wait { no, yes };
  //! Tries to claim run `id` under results_dir/runs; with Wait::yes blocks until the holder
  //! lets go. Throws WriteError if the lock file cannot be created.
  RunClaim(const std::string& results_dir, const std::string& id, Wait wait);
  //! The same under a runs/ opened before (a results store's pinned one).
  RunClaim(const io::Directory& runs, const std::string& id, Wait wait);
  ~RunClaim();
  RunClaim(const RunClaim&) = delete;
  RunClaim& operator=(const RunClaim&) = delete;

  bool held() const { return fd_ >= 0; }
  //! Call once the run's final file exists: deletes the lock file, then lets go.
  void finished();
  //! For a finished run: deletes a lock file left by a process killed between the rename and
  //! the deletion, unless someone holds it.
  static void remove_stale(const std::string& results_dir, const std::string& id);
  static void remove_stale(const io::Directory& runs, const std::string& id);

 private:
  io::Directory runs_;  // opened once (never through a link): the lock is made and removed there
  std::string name_;
  int fd_ = -1;
  void claim(Wait wait);
};

//! An exclusive lock on a directory (flock on the directory itself), held while it lives.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& dir);
  //! The lock on a directory opened before (its own open file description, so that closing
  //! the lock lets go even while the directory's handle stays open).
  explicit DirectoryLock(const io::Directory& dir);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  DirectoryLock(int fd, const std::string& shown);  // locks `fd`, a directory opened for it
  int fd_ = -1;
};

}  // namespace fedbench::suite
