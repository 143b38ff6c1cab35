#include "datasets/compressed_file.hpp"

#include <bzlib.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "core/error.hpp"

namespace fedbench::datasets {

namespace {

// Formats read by other tools: their magic bytes, name and the command that decompresses.
struct ForeignFormat {
  std::string_view magic, name, command;
};
constexpr ForeignFormat kForeign[] = {
    {std::string_view("\xFD"
                      "7zXZ\0",
                      6),
     "xz", "unxz"},
    {std::string_view("\x28\xB5\x2F\xFD", 4), "zstd", "unzstd"},
    {std::string_view("PK\x03\x04", 4), "zip", "unzip"},
    {std::string_view("7z\xBC\xAF\x27\x1C", 6), "7z", "7z x"},
};

bool is_bzip2(std::string_view head) {
  return head.size() >= 4 && head.substr(0, 3) == "BZh" && head[3] >= '1' && head[3] <= '9';
}

}  // namespace

// One of the two decoders; the other pointer is null.
struct CompressedFile::Stream {
  gzFile gz = nullptr;
  FILE* file = nullptr;  // bzip2: the raw file under bz
  BZFILE* bz = nullptr;
  bool bz_done = false;  // the last bzip2 stream ended at the end of the file
  ~Stream() {
    if (gz) gzclose(gz);
    int ignored = 0;
    if (bz) BZ2_bzReadClose(&ignored, bz);
    if (file) std::fclose(file);
  }
};

CompressedFile::CompressedFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return;
  char head[6] = {};
  const std::string_view magic(head, std::fread(head, 1, sizeof head, f));
  for (const auto& format : kForeign)
    if (magic.substr(0, format.magic.size()) == format.magic) {
      std::fclose(f);
      throw UserError(path + " is " + std::string(format.name) + "-compressed; decompress it first (" +
                      std::string(format.command) + " " + path + ")");
    }
  std::rewind(f);
  auto stream = std::make_unique<Stream>();
  if (is_bzip2(magic)) {
    stream->file = f;
    int status = BZ_OK;
    stream->bz = BZ2_bzReadOpen(&status, f, 0, 0, nullptr, 0);
    if (status != BZ_OK) return;  // out of memory: is_open() false
  } else {
    // zlib reads gzip and plain files alike; it takes its own descriptor at offset 0.
    const int fd = ::dup(fileno(f));
    std::fclose(f);
    if (fd < 0) return;
    stream->gz = gzdopen(fd, "rb");
    if (!stream->gz) {
      ::close(fd);
      return;
    }
    gzbuffer(stream->gz, 1 << 17);
  }
  stream_ = std::move(stream);
}

CompressedFile::~CompressedFile() = default;

bool CompressedFile::is_open() const { return stream_ != nullptr; }

long CompressedFile::read(char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const unsigned want = static_cast<unsigned>(std::min<std::size_t>(n - got, 1u << 30));
    if (stream_->gz) {
      const int k = gzread(stream_->gz, buf + got, want);
      int err = Z_OK;
      const char* msg = gzerror(stream_->gz, &err);
      if (k < 0 || (err != Z_OK && err != Z_STREAM_END)) {
        error_ = std::string(msg) + " (truncated or corrupt .gz?)";
        return -1;
      }
      if (k == 0) break;
      got += static_cast<std::size_t>(k);
      continue;
    }
    if (stream_->bz_done) break;
    int status = BZ_OK;
    const int k = BZ2_bzRead(&status, stream_->bz, buf + got, static_cast<int>(want));
    if (status != BZ_OK && status != BZ_STREAM_END) {
      error_ = status == BZ_UNEXPECTED_EOF
                   ? "unexpected end of data (truncated or corrupt .bz2?)"
                   : "bzip2 error " + std::to_string(status) + " (truncated or corrupt .bz2?)";
      return -1;
    }
    got += static_cast<std::size_t>(k);
    if (status == BZ_STREAM_END) {
      // Another stream may follow (pbzip2 writes several): go on with the bytes read past this one.
      void* unused = nullptr;
      int count = 0;
      BZ2_bzReadGetUnused(&status, stream_->bz, &unused, &count);
      const std::string rest(static_cast<const char*>(unused), static_cast<std::size_t>(count));
      BZ2_bzReadClose(&status, stream_->bz);
      stream_->bz = nullptr;
      if (rest.empty() && std::fgetc(stream_->file) == EOF) {
        stream_->bz_done = true;
        break;
      }
      if (rest.empty()) std::fseek(stream_->file, -1, SEEK_CUR);
      stream_->bz = BZ2_bzReadOpen(&status, stream_->file, 0, 0, const_cast<char*>(rest.data()),
                                   static_cast<int>(rest.size()));
      if (status != BZ_OK) {
        error_ = "bzip2 error " + std::to_string(status) + " (truncated or corrupt .bz2?)";
        return -1;
      }
    }
  }
  return static_cast<long>(got);
}

}  // namespace fedbench::datasets
