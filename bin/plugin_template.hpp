// The files of a new plug-in project (`fedbench new-solver NAME [--python]`), as text with @NAME@ (the
// solver's registry name), @TYPE@ (its C++ struct) and @TARGET@ (the library and file name).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace fedbench::cli {

//! (relative path, content) of each file, placeholders not yet filled in: a C++ plug-in project,
//! or a Python solver file with its suite.
const std::vector<std::pair<std::string, std::string>>& plugin_template_files(bool python);

//! `text` with every (placeholder, value) of `fields` replaced, in order.
std::string replace_placeholders(std::string text, const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace fedbench::cli
