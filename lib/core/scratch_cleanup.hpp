// A scratch directory that does not outlive its process: removed when its owner goes out of
// scope (normal return or exception) and when the process is interrupted (SIGINT, SIGTERM).
//
// The signals are caught by a handler that only writes the signal number to a pipe
// (async-signal-safe); a dedicated thread reads it, removes every registered directory and
// then ends the process by the same signal with its default action (exit status 130 or 143 in
// a shell), whatever the other threads are doing. A signal that was ignored when the first
// directory was registered (a background job of a non-interactive shell ignores SIGINT) stays
// ignored. The handlers are in place only while some directory is registered.
//
// A process killed with SIGKILL cannot remove its directory; the name holds the host and the
// process id (PREFIX-HOST-PID-XXXXXX), and the next process that makes a directory of the same
// prefix in the same parent removes those of this host whose process is gone.
#pragma once
#include <string>

namespace fedbench {

class ScratchDirectory {
 public:
  //! Creates PARENT/PREFIX-HOST-PID-XXXXXX (mode 0700), after removing the directories of
  //! PREFIX that dead processes of this host left in PARENT. Throws WriteError when it cannot.
  ScratchDirectory(const std::string& parent, const std::string& prefix);
  //! Removes the directory and everything in it.
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

//! Removes `dir` (and everything in it) if the process gets SIGINT or SIGTERM before
//! keep_on_interrupt(dir), then ends the process by that signal. ScratchDirectory uses these.
void remove_on_interrupt(const std::string& dir);
//! Stops removing `dir` on an interrupt; the last one registered restores the previous
//! handlers.
void keep_on_interrupt(const std::string& dir);

}  // namespace fedbench
