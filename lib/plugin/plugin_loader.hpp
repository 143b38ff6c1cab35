// Loading plug-ins: solvers and problems from outside fedbench's tree, registered when their
// file is loaded, before the command runs, so that list, describe, run, suites, select, report
// and reproduce see them like built-in ones.
//   a shared library (.so) built against the installed fedbench (plugin/plugin.hpp);
//   a Python solver file (.py), run through the engine by fedbench's Python module.
// Sources, in order: FEDBENCH_PLUGINS (':'-separated files or directories), the per-user
// directory $XDG_DATA_HOME/fedbench/plugins (default ~/.local/share/fedbench/plugins), then
// each `--plugin PATH` of the command line. A directory contributes its *.so and *.py files in
// name order. A file loaded twice (by any path) is loaded once.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/plugin_origin.hpp"

namespace fedbench {

//! Loads one plug-in file (throws UserError naming the file and the fix).
void load_plugin(const std::string& path);
//! Loads the plug-ins of FEDBENCH_PLUGINS and of the per-user directory.
void load_configured_plugins();
//! The per-user plug-in directory (whether or not it exists); "" without an absolute HOME
//! (never a directory below the working directory).
std::string user_plugin_directory();
//! The plug-ins loaded so far, in load order.
std::vector<std::shared_ptr<const PluginOrigin>> loaded_plugins();

//! Records a plug-in loaded by another loader (the Python one), so that it is loaded once.
void note_loaded_plugin(std::shared_ptr<const PluginOrigin> origin);

//! "VERSION (headers HASH)" of this fedbench, as plug-ins built against it record it.
std::string plugin_abi();

}  // namespace fedbench
