#include "plugin/python_plugin.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace fedbench {

namespace {

namespace fs = std::filesystem;

constexpr const char* kHostName = "libfedbench_python.so";
// The host's entry point: starts the interpreter once and imports the module (which calls
// set_python_plugin_loader). Errors come back as text: nothing is thrown across dlopen.
using StartHost = bool (*)(std::string* error);

PythonPluginLoader& installed_loader() {
  static PythonPluginLoader loader = nullptr;
  return loader;
}

// The directory of libfedbench.so itself: the host is found relative to it, not to the
// executable, so that every program linking the library finds the same host.
fs::path core_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_python_plugin), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path file = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path(info.dli_fname).parent_path() : file.parent_path();
}

// Build tree: build/lib beside libfedbench.so; installed: PREFIX/lib/fedbench.
std::string find_host() {
  const fs::path dir = core_directory();
  std::error_code ec;
  for (const fs::path& candidate : {dir / kHostName, dir / "fedbench" / kHostName})
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  return {};
}

void start_host(const std::string& plugin) {
  const std::string host = find_host();
  if (host.empty())
    throw UserError("plug-in " + plugin + ": Python solvers need fedbench's Python support "
                    "(pybind11 at build time), and " + std::string(kHostName) + " is not beside "
                    "libfedbench.so; install pybind11-dev python3-pybind11 and rebuild fedbench");
  // Global: the extension modules Python imports later (fedbench's, numpy's) resolve their
  // Python symbols against the libpython the host brings in.
  dlerror();
  void* handle = dlopen(host.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* why = dlerror();
    throw UserError("plug-in " + plugin + ": fedbench's Python support " + host + " cannot be loaded: " +
                    (why ? why : "unknown reason") + "; rebuild fedbench");
  }
  auto start = reinterpret_cast<StartHost>(dlsym(handle, "fedbench_python_start"));
  if (!start) throw UserError("plug-in " + plugin + ": " + host + " is not fedbench's Python host; rebuild fedbench");
  std::string error;
  if (!start(&error)) throw UserError("plug-in " + plugin + ": " + error);
  if (!installed_loader())
    throw UserError("plug-in " + plugin + ": fedbench's Python module did not start; rebuild fedbench");
}

}  // namespace

void set_python_plugin_loader(PythonPluginLoader loader) { installed_loader() = loader; }

void load_python_plugin(PluginOrigin origin) {
  if (!installed_loader()) start_host(origin.path);
  const std::string error = installed_loader()(origin);
  if (!error.empty()) throw UserError(error);
}

}  // namespace fedbench
