// Grid values of suite files and of the command line.
//
//   scalar            -> one value
//   [a, b, c]         -> three values (a YAML list)
//   logspace(a, b, n) -> n values 10^a ... 10^b, log-spaced (numpy's logspace)
//   linspace(a, b, n) -> n values a ... b, evenly spaced
//   range(a, b)       -> the integers a, a+1, ..., b-1
// A parameter map expands to the cartesian product of its values; the key `zip` holds a map
// of equal-length lists that are paired instead of crossed.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "core/params.hpp"

namespace fedbench::suite {

//! The YAML document of a suite or experiment file (`what`); UserError for a missing file or
//! malformed YAML, naming the file and line.
YAML::Node load_yaml_file(const std::string& path, const std::string& what);
//! "FILE:LINE: " for messages that point at a node.
std::string where(const std::string& file, const YAML::Node& node);
//! Refuses keys of `map` not in `valid`, naming the file, line and the valid keys.
void check_keys(const YAML::Node& map, const std::vector<std::string>& valid,
                const std::string& file, const std::string& what);

//! Values of one text item ("0.1", "logspace(-3, 0, 4)", ...); throws UserError naming `what`.
//! The most values one grid expression (logspace, linspace, range) may give, and the most runs
//! or parameter points a suite may expand to: larger grids are refused before expansion.
inline constexpr double kMaxGridValues = 1e5;
inline constexpr double kMaxSuiteRuns = 1e6;

std::vector<std::string> expand_text(const std::string& text, const std::string& what);
//! Values of one YAML node (scalar or list of scalars).
std::vector<std::string> expand_node(const YAML::Node& node, const std::string& file,
                                     const std::string& what);
//! Every combination of a parameter map node (null/empty: one empty map).
std::vector<ParamMap> expand_params(const YAML::Node& node, const std::string& file,
                                    const std::string& what);
//! Cartesian product of per-key value lists, keys in map order, last key fastest.
std::vector<ParamMap> cartesian(const std::vector<std::pair<std::string, std::vector<std::string>>>& axes);

}  // namespace fedbench::suite
