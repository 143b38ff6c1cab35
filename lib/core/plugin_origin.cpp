#include "core/plugin_origin.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

#include "core/error.hpp"
#include "core/sha256.hpp"

namespace fedbench {

namespace {
std::shared_ptr<const PluginOrigin>& current() {
  static std::shared_ptr<const PluginOrigin> origin;
  return origin;
}
std::vector<std::string>& errors() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

void report_plugin_error(std::string message) { errors().push_back(std::move(message)); }
std::vector<std::string> take_plugin_errors() { return std::exchange(errors(), {}); }

std::string PluginOrigin::describe() const { return name + " " + version + " (" + path + ")"; }

std::shared_ptr<const PluginOrigin> loading_plugin() { return current(); }

LoadingPluginScope::LoadingPluginScope(std::shared_ptr<const PluginOrigin> origin) {
  current() = std::move(origin);
  errors().clear();
}
LoadingPluginScope::~LoadingPluginScope() { current().reset(); }

PluginOrigin origin_of_file(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  if (ec || !std::filesystem::is_regular_file(absolute, ec))
    throw UserError("plug-in " + path + ": no such file; give the path of a built plug-in (.so) or a "
                    "Python solver file (.py)");
  PluginOrigin origin;
  origin.path = std::filesystem::weakly_canonical(absolute, ec).string();
  if (ec) origin.path = absolute.string();
  origin.fingerprint = sha256_file(origin.path).substr(0, 16);
  return origin;
}

}  // namespace fedbench
