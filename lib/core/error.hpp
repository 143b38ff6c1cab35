// Error types. A UserError is bad input (names, values, files): the CLI prints its one-line
// message and exits 2 before any work starts. A WriteError is a refused write (exit 1). FEDBENCH_CHECK guards internal invariants; it
// throws (never asserts) so release and debug builds behave the same.
#pragma once
#include <stdexcept>
#include <string>

namespace fedbench {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! The system refused to store a result (disk full, read-only file system, no permission):
//! not bad input and not an outcome of the run. The CLI prints its line and exits 1; a suite
//! stops taking runs, and every file under a final name stays complete.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

#define FEDBENCH_CHECK(cond, msg)                                                         \
  do {                                                                                    \
    if (!(cond))                                                                          \
      throw ::fedbench::InternalError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                      ": " + (msg));                                      \
  } while (0)

}  // namespace fedbench
