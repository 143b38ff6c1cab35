#include "core/shipped_files.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "core/text.hpp"

namespace fedbench {

namespace fs = std::filesystem;

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::optional<fs::path> source_tree() {
#if defined(FEDBENCH_SOURCE_DIR) && defined(FEDBENCH_BINARY_DIR)
  // Compared as files, not strings: the build directory may be reached through a link.
  std::error_code ec;
  const fs::path exe_dir = executable_dir();
  if (!exe_dir.empty() && fs::equivalent(exe_dir, fs::path(FEDBENCH_BINARY_DIR) / "bin", ec) &&
      fs::is_directory(FEDBENCH_SOURCE_DIR, ec))
    return fs::path(FEDBENCH_SOURCE_DIR);
#endif
  return std::nullopt;
}

fs::path installed_share() {
  const fs::path exe_dir = executable_dir();
  return exe_dir.empty() ? fs::path() : exe_dir.parent_path() / "share" / "fedbench";
}

std::vector<SearchPlace> shipped_places(const std::string& relative, const char* env,
                                        bool in_working_directory) {
  std::vector<SearchPlace> places;
  if (const char* value = std::getenv(env); value && *value) places.push_back({value, std::string("$") + env});
  if (in_working_directory) places.push_back({relative, "working directory"});
  if (const auto source = source_tree()) places.push_back({(*source / relative).string(), "source tree"});
  if (const fs::path share = installed_share(); !share.empty())
    places.push_back({(share / relative).string(), "installed share"});
  return places;
}

std::string describe_places(const std::vector<SearchPlace>& places) {
  std::vector<std::string> items;
  for (const auto& p : places) items.push_back(p.dir + " (" + p.origin + ")");
  return join(items, ", ");
}

std::string find_shipped_dir(const std::string& relative, const char* env, bool in_working_directory) {
  const auto places = shipped_places(relative, env, in_working_directory);
  std::error_code ec;
  // A directory the user named and mistyped must not silently give way to another one.
  if (const char* value = std::getenv(env); value && *value && !fs::is_directory(value, ec))
    throw UserError(std::string(env) + "=" + value + " is not a directory; set it to the directory that holds " +
                    fs::path(relative).filename().string() + " or unset it");
  for (const auto& p : places)
    if (fs::is_directory(p.dir, ec)) return p.dir;
  throw UserError("no " + relative + " directory: looked in " + describe_places(places) + "; set " + env +
                  " to the directory that holds it");
}

}  // namespace fedbench
