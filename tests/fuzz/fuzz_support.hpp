// Shared by the libFuzzer harnesses: the input bytes as a file, for readers that take a path,
// and the one expected outcome of bad input, a fedbench::UserError. Any other exception
// escapes the harness, and libFuzzer reports it as a crash.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace fedbench::fuzz {

//! A scratch directory under $TMPDIR (or /tmp) named after the process, so that parallel
//! fuzzing jobs never share a file; removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    path_ = (base / ("fedbench-fuzz-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }

  //! Writes `size` bytes to NAME in the directory (replacing it) and returns its path.
  std::string write(const std::string& name, const std::uint8_t* data, std::size_t size) const {
    const std::string file = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (!f) std::abort();  // the harness cannot work without its scratch space
    if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return file;
  }

 private:
  std::string path_;
};

//! The scratch directory of this process, created at the first call.
inline const ScratchDir& scratch() {
  static const ScratchDir dir;
  return dir;
}

//! Runs `body`; a UserError is the clean answer to bad input, anything else escapes.
template <class Body>
int expect_user_errors(Body&& body) {
  try {
    body();
  } catch (const UserError&) {
  }
  return 0;
}

}  // namespace fedbench::fuzz
