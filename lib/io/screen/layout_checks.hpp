// Checks of a run file's bytes before libhdf5 opens it: the superblock must be what fedbench
// writes (a truncated or extended file is refused here, where libhdf5 notices late) and every
// global heap collection, which carries no checksum, must walk cleanly. Part of the run-file
// defence (README.md in this folder).
#pragma once
#include <string>

namespace fedbench::io::h5 {

//! Throws UserError "PATH: corrupt: ..." for a file libhdf5 must not be handed.
void check_layout(const std::string& path);

}  // namespace fedbench::io::h5
