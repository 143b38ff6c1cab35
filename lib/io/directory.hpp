// A directory opened once, and files made in it by name relative to that handle (openat,
// renameat, unlinkat): a component of the directory's path swapped for a link after it was
// opened cannot redirect a write or a rename elsewhere, and a link planted under a file's name
// is refused, never followed. Links in the path a user gives are the user's and are followed
// when the directory is opened; a directory fedbench made itself (a results directory's runs/)
// is opened with its last component not followed.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace fedbench::io {

class Directory {
 public:
  enum class Last { follow, refuse_link };
  //! Opens `path` as a directory. UserError when it does not exist or is not a directory;
  //! WriteError "refusing to write through a symbolic link: PATH" for a link with refuse_link.
  explicit Directory(const std::string& path, Last last = Last::follow);
  //! The directory that holds `file` (its parent, "." when it has none).
  static Directory holding(const std::string& file, Last last = Last::follow);
  //! The subdirectory NAME of this one, opened relative to this handle and never through a
  //! link (WriteError "refusing to write through a symbolic link: PATH/NAME"); with `create`,
  //! made first when absent. UserError when it is absent (without `create`) or not a directory.
  enum class Create { no, yes };
  Directory child(const std::string& name, Create create = Create::no) const;
  //! What is under NAME, links not followed.
  enum class Kind { absent, regular, directory, link, other };
  Kind kind(const std::string& name) const;
  //! The names in this directory (not "." and ".."), sorted; read through the handle.
  std::vector<std::string> entries() const;
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
  //! fsync NAME, rename it to FINAL (atomic), fsync the directory. A FINAL that is not a
  //! regular file (a link, a device, a FIFO, a directory) is refused (check_output), never
  //! replaced. WriteError with the system's reason.
  void publish(const std::string& name, const std::string& final_name) const;
  //! Removes NAME (nothing when absent).
  void remove(const std::string& name) const;
  //! Removes the regular file NAME (a link under the name is removed itself, never what it
  //! points to); WriteError with the system's reason when it cannot.
  void remove_file(const std::string& name) const;
  //! An output about to be published under NAME: refused unless it is absent or a regular
  //! file (a link, a device, a FIFO, a directory are never replaced).
  void check_output(const std::string& name) const;
  //! Removes NAME and, when it is a directory (not a link), everything below it, through
  //! handles: a link anywhere below is removed itself, never followed.
  void remove_tree(const std::string& name) const;
  //! Renames `from`'s NAME to FINAL here (atomic, one file system; a link at FINAL is replaced,
  //! never followed), then fsyncs this directory.
  void move_here(const Directory& from, const std::string& name, const std::string& final_name) const;
  //! A second handle on this directory.
  Directory duplicate() const;
  //! The handle as a path for this process (/proc/self/fd/N).
  std::string handle_path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  //! Whether NAME is the same file as the open descriptor `fd` (a lock file still under its name).
  bool names(const std::string& name, int fd) const;

 private:
  Directory() = default;  // child() fills it
  std::string path_;
  int fd_ = -1;
};

//! Refuses (WriteError "refusing to write through a symbolic link: PART; `fix`") a symbolic link
//! at any existing component of the relative path `path`: a directory that fedbench names below
//! the working directory (a suite's default results/NAME, reproduce's results/reproduce/NAME)
//! must stay below it.
void refuse_links_along(const std::string& path, const std::string& fix);

}  // namespace fedbench::io
