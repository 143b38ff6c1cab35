// The one line that makes a shared library a fedbench plug-in. A plug-in is a .cpp (or a few)
// with solvers and problems written as inside fedbench (FEDBENCH_REGISTER_SOLVER,
// FEDBENCH_REGISTER_PROBLEM; docs/adding-a-solver.md), built against an installed fedbench
// (find_package(fedbench), target fedbench::fedbench) and ending with
//   FEDBENCH_PLUGIN("my-methods", "1.0");
// The line stores the plug-in's name and version with the fedbench version and header
// fingerprint it was compiled against, as text the loader reads from the file before it runs
// any of the plug-in's code: a plug-in built against another fedbench is refused, not run.
#pragma once
#include "plugin/plugin_abi.hpp"

#define FEDBENCH_PLUGIN(name, version)                                                   \
  extern "C" __attribute__((visibility("default"), used)) const char fedbench_plugin_id[] = \
      "fedbench-plugin:" FEDBENCH_ABI_VERSION "|" FEDBENCH_ABI_HEADERS "|" name "|" version "|"
