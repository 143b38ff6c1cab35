// A directory opened once, and files made in it by name relative to that handle (openat,
// renameat, unlinkat): a component of the directory's path swapped for a link after it was
// opened cannot redirect a write or a rename elsewhere, and a link planted under a file's name
// is refused, never followed. Links in the path a user gives are the user's and are followed
// when the directory is opened; a directory fedbench made itself (a results directory's runs/)
// is opened with its last component not followed.
#pragma once
#include <memory>
#include <string>

namespace fedbench::io {

class Directory {
 public:
  enum class Last { follow, refuse_link };
  //! Opens `path` as a directory. UserError when it does not exist or is not a directory;
  //! WriteError "refusing to write through a symbolic link: PATH" for a link with refuse_link.
  explicit Directory(const std::string& path, Last last = Last::follow);
  //! The directory that holds `file` (its parent, "." when it has none).
  static Directory holding(const std::string& file, Last last = Last::follow);
  ~Directory();
  Directory(Directory&& other) noexcept;
  Directory& operator=(Directory&&) = delete;
  Directory(const Directory&) = delete;
  Directory& operator=(const Directory&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  //! PATH/NAME, as said to users.
  std::string shown(const std::string& name) const;
  //! NAME in this directory for a library that only takes a path (libhdf5): resolved through
  //! the open handle (/proc/self/fd/N/NAME), not through the directory's path.
  std::string via_handle(const std::string& name) const;

  //! Refuses a symbolic link under NAME (WriteError "refusing to write through a symbolic link:
  //! PATH"), removes a regular file there (a stopped write's), refuses anything else.
  void make_way_for(const std::string& name) const;
  //! make_way_for, then NAME created with O_CREAT | O_EXCL | O_NOFOLLOW: its descriptor.
  int create(const std::string& name) const;
  //! NAME opened (created if absent) for locking, never through a link: its descriptor.
  int open_lock(const std::string& name) const;
  //! fsync NAME, rename it to FINAL (atomic; a link at FINAL is replaced, never followed),
  //! fsync the directory. WriteError with the system's reason.
  void publish(const std::string& name, const std::string& final_name) const;
  //! Removes NAME (nothing when absent).
  void remove(const std::string& name) const;
  //! Whether NAME is the same file as the open descriptor `fd` (a lock file still under its name).
  bool names(const std::string& name, int fd) const;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace fedbench::io
