// Python solver files as plug-ins: fedbench's Python module runs a solver class written in
// Python through the engine (the same rounds, counters, streams and run files).
//
// The core never links libpython. The first .py plug-in dlopen()s the embedding host
// (libfedbench_python.so, found beside libfedbench.so in a build tree, in PREFIX/lib/fedbench
// when installed), which starts the interpreter and imports the `fedbench` extension module;
// importing the module installs its file loader here. Inside a plain `python3`, importing the
// module installs the loader without any host. docs/python.md.
#pragma once
#include <memory>
#include <string>

#include "core/plugin_origin.hpp"

namespace fedbench {

//! Loads the Python file of `origin` (path and fingerprint set) and registers its solvers under
//! that origin, with the name and version the file declares. Throws UserError when Python
//! support is not installed or the file is not a solver file.
void load_python_plugin(PluginOrigin origin);

//! Imports a Python solver file and registers its solvers; returns "" or the one-line error
//! (no exception crosses from the module into the core).
using PythonPluginLoader = std::string (*)(const PluginOrigin& origin);
//! Installed by the Python module when it is imported.
void set_python_plugin_loader(PythonPluginLoader loader);

}  // namespace fedbench
