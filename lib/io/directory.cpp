#include "io/directory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
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
  const std::filesystem::path path(file);
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..")  // '' or 'dir/': no name to write under
    throw UserError("cannot write '" + file + "': give a file name");
  return Directory(path.parent_path().string(), last);
}

Directory Directory::child(const std::string& name, Create create) const {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    throw InternalError("Directory::child takes one path component, not '" + name + "'");
  if (create == Create::yes && ::mkdirat(fd_, name.c_str(), 0777) != 0 && errno != EEXIST)
    throw WriteError("cannot create directory " + shown(name) + ": " + system_reason(errno));
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (kind(name) == Kind::link) throw WriteError("refusing to write through a symbolic link: " + shown(name));
    if (err == ENOENT) throw UserError("directory " + shown(name) + " does not exist");
    if (err == ENOTDIR) throw UserError(shown(name) + " is not a directory");
    throw WriteError("cannot open directory " + shown(name) + ": " + system_reason(err));
  }
  Directory out;
  out.path_ = shown(name);
  out.fd_ = fd;
  return out;
}

Directory::Kind Directory::kind(const std::string& name) const {
  struct stat st {};
  if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Kind::absent;
  if (S_ISLNK(st.st_mode)) return Kind::link;
  if (S_ISREG(st.st_mode)) return Kind::regular;
  if (S_ISDIR(st.st_mode)) return Kind::directory;
  return Kind::other;
}

std::vector<std::string> Directory::entries() const {
  std::vector<std::string> names;
  const int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // its own offset
  DIR* d = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (!d) {
    if (fd >= 0) ::close(fd);
    throw WriteError("cannot read directory " + path_ + ": " + system_reason(errno));
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
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
  check_output(final_name);  // planted while the file was written: still never replaced
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

void Directory::remove_file(const std::string& name) const {
  if (::unlinkat(fd_, name.c_str(), 0) != 0 && errno != ENOENT)
    throw WriteError("cannot delete " + shown(name) + ": " + system_reason(errno));
}

void Directory::check_output(const std::string& name) const {
  switch (kind(name)) {
    case Kind::absent:
    case Kind::regular: return;
    case Kind::link: throw WriteError("refusing to write through a symbolic link: " + shown(name));
    case Kind::directory: throw UserError("cannot write " + shown(name) + ": it is a directory; name a file");
    case Kind::other:
      throw UserError("cannot write " + shown(name) + ": it is not a regular file (a device, FIFO or socket); "
                      "name a regular file");
  }
}

void Directory::remove_tree(const std::string& name) const {
  if (kind(name) == Kind::directory) {
    const Directory sub = child(name);  // refuses a link swapped in meanwhile
    for (const auto& entry : sub.entries()) sub.remove_tree(entry);
    ::unlinkat(fd_, name.c_str(), AT_REMOVEDIR);
    return;
  }
  remove(name);
}

void Directory::move_here(const Directory& from, const std::string& name, const std::string& final_name) const {
  if (::renameat(from.fd_, name.c_str(), fd_, final_name.c_str()) != 0)
    throw WriteError("cannot move " + from.shown(name) + " to " + shown(final_name) + ": " + system_reason(errno));
  ::fsync(fd_);  // best effort: the rename itself has happened
}

Directory Directory::duplicate() const {
  Directory out;
  out.path_ = path_;
  out.fd_ = ::fcntl(fd_, F_DUPFD_CLOEXEC, 3);
  if (out.fd_ < 0) throw WriteError("cannot open directory " + path_ + " again: " + system_reason(errno));
  return out;
}

bool Directory::names(const std::string& name, int fd) const {
  struct stat held {}, named {};
  return ::fstat(fd, &held) == 0 && ::fstatat(fd_, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         held.st_ino == named.st_ino && held.st_dev == named.st_dev;
}

void refuse_links_along(const std::string& path, const std::string& fix) {
  std::filesystem::path so_far;
  for (const auto& part : std::filesystem::path(path)) {
    so_far /= part;
    std::error_code ec;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(so_far, ec)))
      throw WriteError("refusing to write through a symbolic link: " + so_far.string() + "; " + fix);
  }
}

}  // namespace fedbench::io
