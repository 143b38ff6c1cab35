// Where shipped files and datasets are looked for: the order of the places, the per-user data
// directory from XDG_DATA_HOME or HOME, one entry per directory, the source tree found only for
// this build's own binaries (this test binary runs from BUILD/bin with the source tree as its
// working directory, which gives the expected answers independently).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/shipped_files.hpp"
#include "datasets/search_path.hpp"

namespace {

namespace fs = std::filesystem;
using fedbench::SearchPlace;

// Sets (or, with nullopt, unsets) a variable for one scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::vector<std::string> origins(const std::vector<SearchPlace>& places) {
  std::vector<std::string> out;
  for (const auto& p : places) out.push_back(p.origin);
  return out;
}

const SearchPlace* place_of(const std::vector<SearchPlace>& places, const std::string& origin) {
  for (const auto& p : places)
    if (p.origin == origin) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("shipped files: a build-tree binary finds its source tree, the share beside it last") {
  const auto source = fedbench::source_tree();
  REQUIRE(source);
  CHECK(fs::equivalent(*source, fs::current_path()));
  CHECK(fedbench::installed_share() == fs::path(fedbench::executable_dir()).parent_path() / "share" / "fedbench");

  const ScopedEnv unset("FEDBENCH_EXPERIMENTS", std::nullopt);
  const auto places = fedbench::shipped_places("results/experiments", "FEDBENCH_EXPERIMENTS", true);
  CHECK(origins(places) == std::vector<std::string>{"working directory", "source tree", "installed share"});
  CHECK(fs::equivalent(fedbench::find_shipped_dir("results/experiments", "FEDBENCH_EXPERIMENTS", false),
                       fs::current_path() / "results" / "experiments"));
  CHECK_THROWS_WITH_AS(fedbench::find_shipped_dir("no/such/dir", "FEDBENCH_EXPERIMENTS", true),
                       doctest::Contains("looked in no/such/dir (working directory), "), fedbench::UserError);

  const ScopedEnv set("FEDBENCH_EXPERIMENTS", "/nonexistent/experiments");
  CHECK(fedbench::shipped_places("results/experiments", "FEDBENCH_EXPERIMENTS", true).front().origin ==
        "$FEDBENCH_EXPERIMENTS");
  // A mistyped directory is an error, not a silent fall back to another one.
  CHECK_THROWS_WITH_AS(fedbench::find_shipped_dir("results/experiments", "FEDBENCH_EXPERIMENTS", true),
                       doctest::Contains("FEDBENCH_EXPERIMENTS=/nonexistent/experiments is not a directory"),
                       fedbench::UserError);
}

TEST_CASE("data search path: FEDBENCH_DATA first, per-user from XDG_DATA_HOME or HOME, no repeats") {
  const ScopedEnv data("FEDBENCH_DATA", "/d1:/d2::datasets/data");
  const ScopedEnv xdg("XDG_DATA_HOME", "/xdg");
  auto places = fedbench::datasets::data_search_places();
  REQUIRE(places.size() >= 4);
  CHECK(places[0].dir == "/d1");
  CHECK(places[1].dir == "/d2");
  CHECK(places[2].dir == "datasets/data");
  CHECK(places[2].origin == "$FEDBENCH_DATA");
  CHECK(places.back().dir == "/usr/share/datasets");
  // ./datasets/data is the source tree's (the working directory): listed once, as FEDBENCH_DATA's.
  for (const auto& p : places)
    if (p.origin != "$FEDBENCH_DATA")
      CHECK(fs::absolute(p.dir).lexically_normal() != (fs::current_path() / "datasets" / "data"));
  REQUIRE(place_of(places, "per-user"));
  CHECK(place_of(places, "per-user")->dir == "/xdg/fedbench/datasets");
  REQUIRE(place_of(places, "installed share"));
  CHECK(place_of(places, "installed share")->dir == (fedbench::installed_share() / "datasets").string());

  const ScopedEnv no_xdg("XDG_DATA_HOME", std::nullopt);
  const ScopedEnv home("HOME", "/home/someone");
  places = fedbench::datasets::data_search_places();
  REQUIRE(place_of(places, "per-user"));
  CHECK(place_of(places, "per-user")->dir == "/home/someone/.local/share/fedbench/datasets");
  CHECK(fedbench::datasets::data_search_path().size() == places.size());
}
