// Running the Python scripts fedbench ships (report, plots) without a shell: where they are
// ($FEDBENCH_SCRIPTS, the source tree of a build-tree binary, the installed share; see
// core/shipped_files.hpp), which python3 runs them (Debian's, for h5py; FEDBENCH_PYTHON overrides).
#pragma once
#include <string>
#include <vector>

namespace fedbench::cli {

//! Path of a shipped script; UserError naming the places looked in.
std::string find_script(const std::string& name);
//! The python3 that runs the scripts.
std::string python_program();
//! Runs args[0] with the other arguments (no shell) and returns its exit status.
//! quiet_stdout: the program's standard output goes to standard error (ours is JSON).
int run_program(const std::vector<std::string>& args, bool quiet_stdout = false);

}  // namespace fedbench::cli
