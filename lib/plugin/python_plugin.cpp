#include "plugin/python_plugin.hpp"

#include "core/error.hpp"

namespace fedbench {

void load_python_plugin(PluginOrigin origin) {
  throw UserError("plug-in " + origin.path +
                  ": Python solver files are not supported by this build of fedbench yet");
}

}  // namespace fedbench
