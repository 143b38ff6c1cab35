// Where fedbench finds the files it ships (experiment and suite files, reference runs, Python
// scripts): one search order for all of them, the same from any working directory and for a
// prefix moved after installation (docs/install.md, "Where fedbench looks").
//   1. an environment variable naming the directory (FEDBENCH_EXPERIMENTS, FEDBENCH_SCRIPTS);
//   2. for experiments only, ./results/experiments of the working directory (a clone's own);
//   3. the source tree this binary was built from, only while it runs from that build tree;
//   4. EXE/../share/fedbench, the installed share beside the running executable.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fedbench {

//! A directory fedbench looks in, and why (shown in messages and `fedbench data list`).
struct SearchPlace {
  std::string dir;
  std::string origin;  //!< e.g. "$FEDBENCH_SCRIPTS", "working directory", "source tree", "installed share"
};

//! Directory of the running executable (from /proc/self/exe); empty if unknown.
std::filesystem::path executable_dir();

//! The source tree of this build, when the running executable is this build's BUILD/bin: never
//! for an installed or moved binary, so an installation cannot depend on its clone.
std::optional<std::filesystem::path> source_tree();

//! EXE/../share/fedbench: the installed share of the prefix the executable runs from.
std::filesystem::path installed_share();

//! The places to look for `relative` (e.g. "results/experiments"), in the order above: $env
//! when set and non-empty, ./relative when `in_working_directory`, the source tree's, the
//! installed share's.
std::vector<SearchPlace> shipped_places(const std::string& relative, const char* env,
                                        bool in_working_directory);

//! The first of shipped_places() that is a directory; UserError naming every place looked in.
std::string find_shipped_dir(const std::string& relative, const char* env, bool in_working_directory);

//! "DIR (ORIGIN), ..." of places, for messages.
std::string describe_places(const std::vector<SearchPlace>& places);

}  // namespace fedbench
