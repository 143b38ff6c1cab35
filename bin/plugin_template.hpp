// The files of a new plug-in project (`fedbench new-solver NAME`), as text with @NAME@ (the
// solver's registry name), @TYPE@ (its C++ struct) and @TARGET@ (the library and file name).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace fedbench::cli {

//! (relative path, content) of each file, placeholders not yet filled in.
const std::vector<std::pair<std::string, std::string>>& plugin_template_files();

}  // namespace fedbench::cli
