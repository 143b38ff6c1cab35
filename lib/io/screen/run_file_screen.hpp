// Run files found on disk are read by libhdf5, which trusts their metadata: a damaged or
// crafted file whose checksums are right can still crash it (null dereferences, reads past a
// global heap's object table; whether such a read faults depends on the heap's layout) or make
// it loop. fedbench's own pre-checks refuse what they can see without decoding HDF5 object
// headers; beyond that, run files are read by a separate screening process (fedbench itself,
// started on first use and kept for the process's life) which sends back their contents, so
// this process never hands a run file to libhdf5. A file that crashes or stalls the screen is
// reported as unreadable with one line; the next file gets a new screen. Library users and
// unit tests that configure no screen read in process.
#pragma once
#include <string>
#include <vector>

#include "io/trajectory_file.hpp"

namespace fedbench::io {

//! The hidden subcommand under which fedbench serves as its own screen.
inline constexpr const char* kScreenSubcommand = "__screen-run-files";

//! Screens run files with `command` (argv; its standard input and output are the request and
//! answer channel); a request taking longer than `timeout_seconds` counts as a stall.
void screen_run_files_with(std::vector<std::string> command, double timeout_seconds = 30);
//! Back to reading in process (stops a running screen).
void stop_screening();

struct ScreenVerdict {
  std::string problem;  //!< why the file is not a readable run file; "" when it is
  std::string status;   //!< the run's status attribute when readable ("" if absent)
  std::string config;   //!< its configuration text when readable
  std::string identity;  //!< the identity text its run id hashes ("" when not recorded)
  double seed = 0;       //!< its root `seed` attribute
  RunProvenance provenance;  //!< the code and data recorded as having computed it
};

//! Reads `path` whole behind the screen (in process when none is configured).
ScreenVerdict screen_run_file(const std::string& path);

//! read_trajectory behind the screen: UserError naming the file if it does not read.
StoredRun read_trajectory_screened(const std::string& path);

//! The screening process's loop: a path per line on `in_fd`; on `out_fd` for each a kind byte
//! ('o' contents, 'b' why not), a 64-bit length and the payload; until end of input.
int serve_run_file_screen(int in_fd, int out_fd);

}  // namespace fedbench::io
