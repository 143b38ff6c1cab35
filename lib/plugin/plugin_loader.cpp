#include "plugin/plugin_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>

#include "core/error.hpp"
#include "core/text.hpp"
#include "plugin/plugin_abi.hpp"
#include "plugin/python_plugin.hpp"

namespace fedbench {

namespace {

namespace fs = std::filesystem;

std::vector<std::shared_ptr<const PluginOrigin>>& loaded() {
  static std::vector<std::shared_ptr<const PluginOrigin>> list;
  return list;
}

struct PluginId {
  std::string abi_version, abi_headers, name, version;
};

// The text FEDBENCH_PLUGIN stores, read from the file itself: the check runs before the
// dynamic loader runs any of the plug-in's initializers (which would already register against
// a fedbench they were not built for).
std::optional<PluginId> read_plugin_id(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("plug-in " + path + ": cannot be read; check its permissions");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string marker = std::string("fedbench-plugin") + ":";
  const auto at = bytes.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const auto end = bytes.find('\0', at);
  const auto fields = split(bytes.substr(at + marker.size(), end - at - marker.size()), '|');
  if (fields.size() < 4) return std::nullopt;
  return PluginId{fields[0], fields[1], fields[2], fields[3]};
}

bool is_python(const std::string& path) { return fs::path(path).extension() == ".py"; }

void load_shared_library(PluginOrigin origin) {
  const auto id = read_plugin_id(origin.path);
  if (!id)
    throw UserError("plug-in " + origin.path + ": not a fedbench plug-in (it has no "
                    "FEDBENCH_PLUGIN(\"name\", \"version\") line; see docs/plugins.md)");
  const std::string theirs = id->abi_version + " (headers " + id->abi_headers + ")";
  if (id->abi_version != FEDBENCH_ABI_VERSION || id->abi_headers != FEDBENCH_ABI_HEADERS)
    throw UserError("plug-in " + origin.path + " was built against fedbench " + theirs +
                    ", this is fedbench " + plugin_abi() + "; rebuild it against this fedbench");
  origin.name = id->name;
  origin.version = id->version;
  auto shared = std::make_shared<const PluginOrigin>(std::move(origin));
  {
    const LoadingPluginScope scope(shared);
    dlerror();
    if (!dlopen(shared->path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      const char* why = dlerror();
      throw UserError("plug-in " + shared->path + " cannot be loaded: " +
                      (why ? std::string(why) : "unknown reason") +
                      "; rebuild it against this fedbench");
    }
    const auto errors = take_plugin_errors();
    if (!errors.empty()) throw UserError("plug-in " + shared->describe() + ": " + errors.front());
  }
  loaded().push_back(std::move(shared));
}

// Code fedbench runs must be as trustworthy as fedbench itself: a plug-in file, and the
// directory it is loaded from, owned by this user or root and writable by nobody else (a
// world-writable directory with the sticky bit, such as /tmp, cannot have its files replaced by
// others and is accepted).
void check_plugin_place(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // a missing path is reported by its caller
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  if (st.st_uid != ::geteuid() && st.st_uid != 0)
    throw UserError(what + " " + path + " is owned by another user (uid " + std::to_string(st.st_uid) +
                    "); fedbench loads only plug-ins of its own user or root: copy it to a directory of yours");
  const bool sticky_dir = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !sticky_dir)
    throw UserError(what + " " + path + " is writable by group or others (mode " + mode +
                    "); anyone could change the code fedbench runs: chmod go-w " + path);
}

// The plug-in files of a directory, in name order.
std::vector<std::string> plugin_files_in(const fs::path& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto ext = entry.path().extension();
    if ((ext == ".so" || ext == ".py") && entry.is_regular_file(ec)) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void load_path(const std::string& path, const std::string& source) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    check_plugin_place(path, "plug-in directory");
    for (const auto& file : plugin_files_in(path)) load_plugin(file);
    return;
  }
  if (!fs::exists(path, ec))
    throw UserError(source + " names " + path + ", which does not exist; fix the path or remove it");
  load_plugin(path);
}

}  // namespace

std::string plugin_abi() {
  return std::string(FEDBENCH_ABI_VERSION) + " (headers " + FEDBENCH_ABI_HEADERS + ")";
}

void load_plugin(const std::string& path) {
  check_plugin_place(path, "plug-in");
  const fs::path parent = fs::path(path).parent_path();
  check_plugin_place(parent.empty() ? "." : parent.string(), "plug-in directory");
  PluginOrigin origin = origin_of_file(path);
  for (const auto& done : loaded())
    if (done->path == origin.path) return;
  if (is_python(origin.path)) {
    load_python_plugin(std::move(origin));
    return;
  }
  load_shared_library(std::move(origin));
}

void note_loaded_plugin(std::shared_ptr<const PluginOrigin> origin) { loaded().push_back(std::move(origin)); }

std::string user_plugin_directory() {
  const char* data = std::getenv("XDG_DATA_HOME");
  if (data && *data == '/') return (fs::path(data) / "fedbench" / "plugins").string();
  const char* home = std::getenv("HOME");
  // No HOME, or a relative one: no user directory (never one below the working directory).
  if (!home || *home != '/') return "";
  return (fs::path(home) / ".local" / "share" / "fedbench" / "plugins").string();
}

void load_configured_plugins() {
  if (const char* list = std::getenv("FEDBENCH_PLUGINS"))
    for (const auto& path : split(list, ':'))
      if (!path.empty()) load_path(path, "FEDBENCH_PLUGINS");
  std::error_code ec;
  const std::string user = user_plugin_directory();
  if (!user.empty() && fs::is_directory(user, ec))
    for (const auto& file : plugin_files_in(user)) load_plugin(file);
}

std::vector<std::shared_ptr<const PluginOrigin>> loaded_plugins() { return loaded(); }

}  // namespace fedbench
