#include "io/durable_rename.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/error.hpp"
#include "io/new_file.hpp"

namespace fedbench::io {

std::string system_reason(int err) { return std::error_code(err, std::generic_category()).message(); }

void durable_rename(const std::string& temporary, const std::string& final_path) {
  const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!synced) throw WriteError("cannot write " + temporary + ": " + system_reason(err));
  std::error_code ec;
  std::filesystem::rename(temporary, final_path, ec);
  if (ec) throw WriteError("cannot rename " + temporary + " to " + final_path + ": " + ec.message());
  const std::string dir = std::filesystem::path(final_path).parent_path().string();
  const int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {  // best effort: the rename itself has happened
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  const auto dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    throw UserError("cannot write " + path + ": directory " + dir.string() +
                    " does not exist; create it first");
  const std::string part = path + ".part";
  NewFileStream out(part);
  errno = 0;
  out << text;
  out.close();
  if (!out) {
    const int err = errno;
    std::filesystem::remove(part, ec);
    throw WriteError("cannot write " + part + ": " + (err ? system_reason(err) : "the disk is full"));
  }
  durable_rename(part, path);
}

}  // namespace fedbench::io
