// Markdown output of the catalogs (`list --markdown`, `reproduce --list --markdown`).
#pragma once
#include <string>

namespace fedbench::cli {

//! Text fit for one table cell: no '|' (it would end the cell) and no line break.
inline std::string markdown_cell(std::string text) {
  for (auto& c : text)
    if (c == '|') c = '/';
    else if (c == '\n') c = ' ';
  return text;
}

}  // namespace fedbench::cli
