// Where a registered solver or problem comes from when it is not built into fedbench: a
// plug-in (a shared library, or a Python file) loaded at start-up. Registrations made while a
// plug-in loads carry its origin, so that its runs record the plug-in's path, version and the
// fingerprint of its file, and go stale when that file changes.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace fedbench {

struct PluginOrigin {
  std::string path;         //!< absolute path of the file loaded
  std::string name;         //!< the plug-in's own name (declared by it)
  std::string version;      //!< the plug-in's own version (declared by it)
  std::string fingerprint;  //!< the first 16 hex digits of the file's SHA-256

  //! "NAME VERSION (PATH)", for messages and the run file.
  std::string describe() const;
};

//! The plug-in whose registrations are running now (null: code built into fedbench).
std::shared_ptr<const PluginOrigin> loading_plugin();

//! While alive, registrations are attributed to `origin` (scopes do not nest).
class LoadingPluginScope {
 public:
  explicit LoadingPluginScope(std::shared_ptr<const PluginOrigin> origin);
  ~LoadingPluginScope();
  LoadingPluginScope(const LoadingPluginScope&) = delete;
  LoadingPluginScope& operator=(const LoadingPluginScope&) = delete;
};

//! A registration of the loading plug-in that cannot be accepted (a name taken): kept for the
//! loader, which refuses the plug-in with the first one after its initializers ran.
void report_plugin_error(std::string message);
//! The errors reported since the scope began, cleared.
std::vector<std::string> take_plugin_errors();

//! The origin of a file to be loaded: its absolute path and fingerprint (throws UserError when
//! it cannot be read); name and version are filled in by the loader.
PluginOrigin origin_of_file(const std::string& path);

}  // namespace fedbench
