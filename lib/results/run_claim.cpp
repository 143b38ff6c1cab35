#include "results/run_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "core/error.hpp"

namespace fedbench::suite {

namespace {

std::string system_reason(int err) { return std::error_code(err, std::generic_category()).message(); }

// flock, retried when a signal interrupts a blocking wait.
int lock(int fd, int operation) {
  int rc = 0;
  do rc = ::flock(fd, operation);
  while (rc != 0 && errno == EINTR);
  return rc;
}

}  // namespace

RunClaim::RunClaim(const std::string& results_dir, const std::string& id, Wait wait)
    : runs_(results_dir + "/runs", io::Directory::Last::refuse_link), name_(id + ".lock") {
  claim(wait);
}

RunClaim::RunClaim(const io::Directory& runs, const std::string& id, Wait wait)
    : runs_(runs.duplicate()), name_(id + ".lock") {
  claim(wait);
}

void RunClaim::claim(Wait wait) {
  for (;;) {
    fd_ = runs_.open_lock(name_);
    if (lock(fd_, LOCK_EX | (wait == Wait::no ? LOCK_NB : 0)) != 0) {
      const int err = errno;
      ::close(fd_);
      fd_ = -1;
      if (err != EWOULDBLOCK) throw WriteError("cannot lock " + runs_.shown(name_) + ": " + system_reason(err));
      return;  // another process holds it
    }
    // The holder may have deleted the file while we waited: then our lock is on a file no
    // longer under this name, and another process may lock the new one. Start over.
    if (runs_.names(name_, fd_)) return;
    ::close(fd_);
    fd_ = -1;
  }
}

RunClaim::~RunClaim() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the lock
}

void RunClaim::finished() {
  if (fd_ < 0) return;
  runs_.remove(name_);
  ::close(fd_);
  fd_ = -1;
}

void RunClaim::remove_stale(const std::string& results_dir, const std::string& id) {
  struct stat st {};
  if (::stat((results_dir + "/runs/" + id + ".lock").c_str(), &st) != 0) return;
  try {
    remove_stale(io::Directory(results_dir + "/runs", io::Directory::Last::refuse_link), id);
  } catch (const WriteError&) {
    // runs/ not openable as fedbench's own (a link): the stale file stays, harmless
  }
}

void RunClaim::remove_stale(const io::Directory& runs, const std::string& id) {
  if (runs.kind(id + ".lock") == io::Directory::Kind::absent) return;
  try {
    RunClaim claim(runs, id, Wait::no);
    claim.finished();
  } catch (const WriteError&) {
    // a read-only directory: the stale file stays, harmless
  }
}

DirectoryLock::DirectoryLock(const std::string& dir)
    : DirectoryLock(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), dir) {}

DirectoryLock::DirectoryLock(const io::Directory& dir)
    : DirectoryLock(::openat(dir.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), dir.path()) {}

DirectoryLock::DirectoryLock(int fd, const std::string& shown) : fd_(fd) {
  if (fd_ < 0) throw WriteError("cannot open " + shown + ": " + system_reason(errno));
  if (lock(fd_, LOCK_EX) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw WriteError("cannot lock " + shown + ": " + system_reason(err));
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace fedbench::suite
