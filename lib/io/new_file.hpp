// Files fedbench writes (run files, temporaries, exports, manifests, references) are created,
// never opened through whatever is already under their name: a symbolic link planted there
// (in a shared results directory, say) is refused with one line and the file it points to is
// left untouched; a regular file left by a stopped write is replaced; the new file is opened
// with O_CREAT | O_EXCL | O_NOFOLLOW, so nothing can be swapped in between. Publishing under
// the final name is a rename (durable_rename.hpp), which replaces a link, never follows it.
#pragma once
#include <ext/stdio_filebuf.h>

#include <memory>
#include <ostream>
#include <string>

#include "io/directory.hpp"

namespace fedbench::io {

//! Refuses a symbolic link at `path` (WriteError "refusing to write through a symbolic link:
//! PATH"); removes a regular file there; anything else (a directory, a FIFO) is refused too.
void make_way_for(const std::string& path);

//! make_way_for, then a new file opened for writing with O_CREAT | O_EXCL | O_NOFOLLOW: its
//! descriptor. WriteError with the system's reason.
int create_new_file(const std::string& path);

//! An output stream on a file from create_new_file. close() flushes and reports failure
//! through the stream's state, like std::ofstream.
class NewFileStream : public std::ostream {
 public:
  explicit NewFileStream(const std::string& path);
  //! NAME created in an open directory (kept by the caller for the rename).
  NewFileStream(const Directory& dir, const std::string& name);
  ~NewFileStream() override;
  void close();

 private:
  explicit NewFileStream(int fd);
  std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> buffer_;
};

}  // namespace fedbench::io
