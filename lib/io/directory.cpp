#include "io/directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "core/error.hpp"
#include "io/durable_rename.hpp"

namespace fedbench::io {

Directory::Directory(const std::string& path, Last last) : path_(path.empty() ? "." : path) {
  const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (last == Last::refuse_link ? O_NOFOLLOW : 0);
  fd_ = ::open(path_.c_str(), flags);
  if (fd_ >= 0) return;
  const int err = errno;
  struct stat st {};
  if (last == Last::refuse_link && ::lstat(path_.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw WriteError("refusing to write through a symbolic link: " + path_);
  if (err == ENOENT) throw UserError("directory " + path_ + " does not exist; create it first");
  if (err == ENOTDIR) throw UserError(path_ + " is not a directory");
  throw WriteError("cannot open directory " + path_ + ": " + system_reason(err));
}

Directory Directory::holding(const std::string& file, Last last) {
  return Directory(std::filesystem::path(file).parent_path().string(), last);
}

Directory::~Directory() {
  if (fd_ >= 0) ::close(fd_);
}

Directory::Directory(Directory&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }

std::string Directory::shown(const std::string& name) const {
  return path_ == "." ? name : path_ + "/" + name;
}

std::string Directory::via_handle(const std::string& name) const {
  return "/proc/self/fd/" + std::to_string(fd_) + "/" + name;
}

void Directory::make_way_for(const std::string& name) const {
  struct stat st {};
  if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // nothing there
  if (S_ISLNK(st.st_mode)) throw WriteError("refusing to write through a symbolic link: " + shown(name));
  if (!S_ISREG(st.st_mode))
    throw WriteError("cannot create " + shown(name) +
                     ": a directory or another non-regular file is in the way; remove it");
  if (::unlinkat(fd_, name.c_str(), 0) != 0 && errno != ENOENT)
    throw WriteError("cannot replace " + shown(name) + ": " + system_reason(errno));
}

int Directory::create(const std::string& name) const {
  make_way_for(name);
  const int fd = ::openat(fd_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0) return fd;
  const int err = errno;
  if (err == EEXIST || err == ELOOP)  // planted between the check and the open
    throw WriteError("refusing to write through what appeared at " + shown(name) + " while it was being created");
  throw WriteError("cannot write " + shown(name) + ": " + system_reason(err));
}

int Directory::open_lock(const std::string& name) const {
  const int fd = ::openat(fd_, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0) return fd;
  const int err = errno;
  if (err == ELOOP) throw WriteError("refusing to write through a symbolic link: " + shown(name));
  throw WriteError("cannot create " + shown(name) + ": " + system_reason(err));
}

void Directory::publish(const std::string& name, const std::string& final_name) const {
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!synced) throw WriteError("cannot write " + shown(name) + ": " + system_reason(err));
  if (::renameat(fd_, name.c_str(), fd_, final_name.c_str()) != 0)
    throw WriteError("cannot rename " + shown(name) + " to " + shown(final_name) + ": " + system_reason(errno));
  ::fsync(fd_);  // best effort: the rename itself has happened
}

void Directory::remove(const std::string& name) const { ::unlinkat(fd_, name.c_str(), 0); }

bool Directory::names(const std::string& name, int fd) const {
  struct stat held {}, named {};
  return ::fstat(fd, &held) == 0 && ::fstatat(fd_, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         held.st_ino == named.st_ino && held.st_dev == named.st_dev;
}

}  // namespace fedbench::io
