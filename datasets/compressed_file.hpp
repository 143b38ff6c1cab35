// A data file read as one byte stream, plain or compressed, told apart by its first bytes:
// gzip through zlib (which passes plain files through), bzip2 through libbz2 (the form
// LIBSVM's site distributes; concatenated streams too). Files compressed with xz, zstd, zip
// or 7z are recognised and refused with the command that decompresses them.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace fedbench::datasets {

class CompressedFile {
 public:
  //! Opens `path`; is_open() false (errno set) when it cannot be opened. UserError "PATH is
  //! xz-compressed; decompress it first (unxz PATH)" for a format read by other tools.
  explicit CompressedFile(const std::string& path);
  ~CompressedFile();
  CompressedFile(const CompressedFile&) = delete;
  CompressedFile& operator=(const CompressedFile&) = delete;

  bool is_open() const;
  //! Up to n decompressed bytes into buf, fewer only at the end (0 there); -1 on corrupt or
  //! truncated data, with error() saying why.
  long read(char* buf, std::size_t n);
  //! "unexpected end of data (truncated or corrupt .bz2?)" after a failed read.
  const std::string& error() const { return error_; }

 private:
  struct Stream;
  std::unique_ptr<Stream> stream_;
  std::string error_;
};

}  // namespace fedbench::datasets
