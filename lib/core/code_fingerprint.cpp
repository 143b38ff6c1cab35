#include "core/code_fingerprint.hpp"

#include <string_view>

namespace fedbench {

std::string source_key(const char* file) {
  const std::string_view path(file ? file : "");
  const auto& table = source_fingerprints();
  // The longest suffix starting at a directory boundary that the table knows: the path may carry
  // any prefix (absolute, "../", a checkout under a directory named problems/).
  for (std::size_t at = 0; at < path.size(); ++at) {
    if (at > 0 && path[at - 1] != '/') continue;
    const std::string suffix(path.substr(at));
    if (table.count(suffix)) return suffix;
  }
  return "";
}

std::string source_fingerprint(const std::string& key) {
  const auto& table = source_fingerprints();
  const auto it = table.find(key);
  return it == table.end() ? std::string() : it->second;
}

}  // namespace fedbench
