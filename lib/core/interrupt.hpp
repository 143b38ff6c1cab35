// Ctrl-C and SIGTERM end fedbench cleanly: the handler only records the signal; runs check it
// between rounds and unwind (their .part files and run claims are removed on the way), suites
// stop starting runs, and the command prints one line and exits 128 + the signal's number.
// A second signal takes the default action at once (the handler is one-shot).
#pragma once
#include <stdexcept>
#include <string>

namespace fedbench {

//! Thrown where a run or a wait notices a pending interrupt. Not an outcome of the run: the
//! round loop passes it on, and the command reports it.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! Installs the SIGINT and SIGTERM handlers, except for a signal the process started with
//! ignored (a job started with nohup or in the background of a script keeps ignoring it).
void install_interrupt_handlers();

//! The signal received (SIGINT, SIGTERM), or 0.
int interrupt_signal();

//! "terminated" for SIGTERM, else "interrupted": the first word of the command's last line.
const char* interrupt_word();

//! Throws Interrupted when a signal is pending.
void throw_if_interrupted();

//! 128 + the signal (130 for SIGINT, 143 for SIGTERM); 130 when none was received.
int interrupt_exit_code();

}  // namespace fedbench
