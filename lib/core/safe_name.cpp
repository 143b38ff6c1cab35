#include "core/safe_name.hpp"

#include <cstdio>

namespace fedbench {

namespace {

constexpr std::size_t kMaxNameLength = 255;  // a file name's limit on Linux file systems

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.';
}

}  // namespace

std::string unusable_name(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name == ".") return "is the directory itself";
  if (name == "..") return "is the parent directory";
  if (name.size() > kMaxNameLength)
    return "has " + std::to_string(name.size()) + " characters (at most " + std::to_string(kMaxNameLength) + ")";
  for (const char c : name) {
    if (safe_char(c)) continue;
    if (c == '\n') return "has a newline";
    if (c == ' ') return "has a space";
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u < 0x7f) return std::string("has '") + c + "'";
    char buf[48];
    std::snprintf(buf, sizeof buf, "has the byte 0x%02x", u);
    return buf;
  }
  return "";
}

std::string safe_name_from(const std::string& name) {
  std::string out = name.substr(0, kMaxNameLength);
  for (char& c : out)
    if (!safe_char(c)) c = '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

}  // namespace fedbench
