// Facts about this build, stored in every output file.
#pragma once
#include <string>

namespace fedbench {
std::string fedbench_version();
std::string git_commit();
std::string compiler_id();
}  // namespace fedbench
