// A suite named on the command line: the path of a suite file, or the name of a shipped one
// (results/suites/NAME.yaml: `fedbench run smoke`), found in the order experiments are:
// $FEDBENCH_SUITES, ./results/suites of the working directory, the source tree's (a binary run
// from its build tree), P/share/fedbench/results/suites beside the executable.
#pragma once
#include <string>
#include <vector>

namespace fedbench::suite {

//! A shipped suite: its name (the file's stem) and the file.
struct ShippedSuite {
  std::string name;
  std::string path;
  std::string origin;  //!< the place it was found in, e.g. "installed share"
};

//! `argument` when it names an existing file or looks like a path (has a '/'); otherwise the
//! first place's NAME.yaml (NAME: argument without a .yaml ending). UserError naming every
//! place looked in when no place has it.
std::string resolve_suite_path(const std::string& argument);

//! Every shipped suite, first place first: a name found in two places is listed once (the one
//! resolve_suite_path would take).
std::vector<ShippedSuite> shipped_suites();

}  // namespace fedbench::suite
