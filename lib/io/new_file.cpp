#include "io/new_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.hpp"
#include "io/durable_rename.hpp"

namespace fedbench::io {

void make_way_for(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // nothing there
  if (S_ISLNK(st.st_mode)) throw WriteError("refusing to write through a symbolic link: " + path);
  if (!S_ISREG(st.st_mode))
    throw WriteError("cannot create " + path + ": a directory or another non-regular file is in the way; remove it");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw WriteError("cannot replace " + path + ": " + system_reason(errno));
}

int create_new_file(const std::string& path) {
  make_way_for(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0) return fd;
  const int err = errno;
  if (err == EEXIST || err == ELOOP)  // planted between the check and the open
    throw WriteError("refusing to write through what appeared at " + path + " while it was being created");
  throw WriteError("cannot write " + path + ": " + system_reason(err));
}

NewFileStream::NewFileStream(const std::string& path) : std::ostream(nullptr) {
  buffer_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(create_new_file(path), std::ios::out);
  rdbuf(buffer_.get());
}

NewFileStream::~NewFileStream() = default;  // the buffer closes its file

void NewFileStream::close() {
  if (!buffer_ || !buffer_->is_open()) return;
  flush();
  if (!buffer_->close()) setstate(std::ios::failbit);  // the data did not reach the disk
}

}  // namespace fedbench::io
