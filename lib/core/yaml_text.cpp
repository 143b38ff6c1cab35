#include "core/yaml_text.hpp"

#include <yaml-cpp/emitter.h>

#include <string_view>

#include "core/text.hpp"

namespace fedbench {

std::string identity_yaml(const YAML::Emitter& out) {
  std::string text;
  for (std::string line : split(out.c_str(), '\n')) {
    // "key: V" with exactly V after a plain key's colon (keys hold no ": "; a text value holding
    // quotes or braces is quoted and escaped, so its line never ends in a bare "" or {}).
    const auto value_is = [&](std::string_view v) {
      return line.size() >= v.size() + 2 && line.find(": ") == line.size() - v.size() - 2 && line.ends_with(v);
    };
    if (value_is("\"\"")) line.resize(line.size() - 2);  // an empty value: nothing after ": "
    if (value_is("{}")) line.resize(line.size() - 3);    // an empty map: nothing after its key's ':'
    // An empty map's "{}" on the line below its key.
    const auto start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, std::string::npos, "{}") == 0) continue;
    text += line + "\n";
  }
  return text;
}

}  // namespace fedbench
