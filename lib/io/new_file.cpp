#include "io/new_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "core/error.hpp"
#include "io/durable_rename.hpp"

namespace fedbench::io {

namespace {
std::string name_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }
}  // namespace

void make_way_for(const std::string& path) { Directory::holding(path).make_way_for(name_of(path)); }

int create_new_file(const std::string& path) { return Directory::holding(path).create(name_of(path)); }

NewFileStream::NewFileStream(const std::string& path) : NewFileStream(create_new_file(path)) {}

NewFileStream::NewFileStream(const Directory& dir, const std::string& name) : NewFileStream(dir.create(name)) {}

NewFileStream::NewFileStream(int fd) : std::ostream(nullptr) {
  buffer_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(fd, std::ios::out);
  rdbuf(buffer_.get());
}

NewFileStream::~NewFileStream() = default;  // the buffer closes its file

void NewFileStream::close() {
  if (!buffer_ || !buffer_->is_open()) return;
  flush();
  if (!buffer_->close()) setstate(std::ios::failbit);  // the data did not reach the disk
}

}  // namespace fedbench::io
