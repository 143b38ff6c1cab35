#include "suite/suite_search.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/shipped_files.hpp"

namespace fedbench::suite {

namespace fs = std::filesystem;

namespace {

std::vector<SearchPlace> suite_places() { return shipped_places("results/suites", "FEDBENCH_SUITES", true); }

}  // namespace

std::string resolve_suite_path(const std::string& argument) {
  std::error_code ec;
  // A path is the user's own file: its errors are "cannot open", never a search.
  if (fs::exists(argument, ec) || argument.find('/') != std::string::npos) return argument;
  std::string name = argument;
  if (name.ends_with(".yaml")) name.resize(name.size() - 5);
  const auto places = suite_places();
  for (const auto& place : places) {
    const fs::path file = fs::path(place.dir) / (name + ".yaml");
    if (fs::is_regular_file(file, ec)) return file.string();
  }
  throw UserError("suite " + argument + ": no such file here, and no " + name + ".yaml in " +
                  describe_places(places) + "; give the path of a suite file or a name from `fedbench list suites`");
}

std::vector<ShippedSuite> shipped_suites() {
  std::vector<ShippedSuite> suites;
  std::set<std::string> seen;
  std::error_code ec;
  for (const auto& place : suite_places()) {
    if (!fs::is_directory(place.dir, ec)) continue;
    std::vector<ShippedSuite> here;
    for (const auto& entry : fs::directory_iterator(place.dir, ec)) {
      const fs::path& p = entry.path();
      if (p.extension() != ".yaml" || !entry.is_regular_file(ec)) continue;
      here.push_back({p.stem().string(), p.string(), place.origin});
    }
    std::sort(here.begin(), here.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (auto& s : here)
      if (seen.insert(s.name).second) suites.push_back(std::move(s));
  }
  return suites;
}

}  // namespace fedbench::suite
