// Facts about this build, stored in every output file.
#pragma once
#include <string>

namespace fedbench {
std::string fedbench_version();
std::string git_commit();
std::string compiler_id();
//! "portable" (the x86-64 baseline every machine runs) or "x86-64-v3" (an opt-in build):
//! results compare bit for bit only between builds of one instruction set.
std::string instruction_set();
}  // namespace fedbench
