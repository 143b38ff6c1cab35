#include "datasets/search_path.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/text.hpp"

namespace fedbench::datasets {

namespace fs = std::filesystem;

namespace {

// The per-user data directory of the XDG base directory specification; empty without HOME.
std::string user_data_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/fedbench/datasets";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/share/fedbench/datasets";
  return {};
}

// Same directory as one already listed (compared as absolute, normalised paths; links are
// not followed, so that a missing directory compares too).
bool listed(const std::vector<SearchPlace>& places, const std::string& dir) {
  const auto key = [](const std::string& d) { return fs::absolute(d).lexically_normal(); };
  for (const auto& p : places)
    if (key(p.dir) == key(dir)) return true;
  return false;
}

}  // namespace

std::vector<SearchPlace> data_search_places() {
  std::vector<SearchPlace> candidates;
  if (const char* env = std::getenv("FEDBENCH_DATA"); env && *env)
    for (const auto& d : split(env, ':'))
      if (!d.empty()) candidates.push_back({d, "$FEDBENCH_DATA"});
  // The repository's own layout, from its root (the tests' ../shared) and from a build tree.
  for (const char* relative : {"datasets/data", "../shared/datasets"})
    candidates.push_back({relative, "working directory"});
  if (const auto source = source_tree())
    for (const char* relative : {"datasets/data", "../shared/datasets"})
      candidates.push_back({(*source / relative).lexically_normal().string(), "source tree"});
  if (const std::string user = user_data_dir(); !user.empty()) candidates.push_back({user, "per-user"});
  if (const fs::path share = installed_share(); !share.empty())
    candidates.push_back({(share / "datasets").string(), "installed share"});
  candidates.push_back({"/usr/share/datasets", "Debian dataset packages"});
  std::vector<SearchPlace> places;
  for (auto& c : candidates)
    if (!listed(places, c.dir)) places.push_back(std::move(c));
  return places;
}

std::vector<std::string> data_search_path() {
  std::vector<std::string> dirs;
  for (const auto& p : data_search_places()) dirs.push_back(p.dir);
  return dirs;
}

}  // namespace fedbench::datasets
