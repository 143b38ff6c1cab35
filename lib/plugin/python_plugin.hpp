// Python solver files as plug-ins: fedbench's Python module runs a solver class written in
// Python through the engine (the same rounds, counters, streams and run files).
#pragma once
#include <memory>

#include "core/plugin_origin.hpp"

namespace fedbench {

//! Loads the Python file of `origin` (path and fingerprint set) and registers its solvers under
//! that origin, with the name and version the file declares. Throws UserError when Python
//! support is not installed or the file is not a solver file.
void load_python_plugin(PluginOrigin origin);

}  // namespace fedbench
