// Registrations made while a plug-in loads: attributed to it, a taken name reported to the
// loader instead of thrown (an exception cannot leave the dynamic loader's initializers), and a
// plug-in file's fingerprint is the SHA-256 of its bytes.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/plugin_origin.hpp"
#include "core/registry.hpp"
#include "core/sha256.hpp"

using namespace fedbench;

namespace {
struct Product {};
RegistryEntry<Product> entry(const std::string& name) {
  RegistryEntry<Product> e;
  e.name = name;
  e.kind = "solver";
  e.plugin = loading_plugin();
  return e;
}
std::shared_ptr<const PluginOrigin> origin(const std::string& name) {
  auto o = std::make_shared<PluginOrigin>();
  o->name = name;
  o->version = "1.0";
  o->path = "/p/lib" + name + ".so";
  o->fingerprint = "0123456789abcdef";
  return o;
}
}  // namespace

TEST_CASE("plug-ins: registrations inside a loading scope carry the plug-in, others none") {
  Registry<Product> registry("solver");
  registry.add(entry("built-in"));
  {
    const LoadingPluginScope scope(origin("mine"));
    registry.add(entry("mine"));
    registry.add_alias("mine-fast", "mine", {}, "faster defaults");
  }
  CHECK(registry.get("built-in").plugin == nullptr);
  REQUIRE(registry.get("mine").plugin != nullptr);
  CHECK(registry.get("mine").plugin->describe() == "mine 1.0 (/p/libmine.so)");
  REQUIRE(registry.get("mine-fast").plugin != nullptr);
  CHECK(registry.get("mine-fast").plugin->name == "mine");
  CHECK(loading_plugin() == nullptr);
}

TEST_CASE("plug-ins: a taken name is reported to the loader, not thrown; outside a plug-in it throws") {
  Registry<Product> registry("solver");
  {
    const LoadingPluginScope first(origin("first"));
    registry.add(entry("gda-x"));
  }
  {
    const LoadingPluginScope second(origin("second"));
    CHECK_NOTHROW(registry.add(entry("gda-x")));
    CHECK_NOTHROW(registry.add_alias("alias-x", "missing", {}, "names nothing"));
    const auto errors = take_plugin_errors();
    REQUIRE(errors.size() == 2);
    CHECK(errors[0] == "solver 'gda-x' is already registered by plug-in first 1.0 (/p/libfirst.so); "
                       "rename it in the plug-in");
    CHECK(errors[1] == "solver alias 'alias-x' names 'missing', which is not registered");
    CHECK(take_plugin_errors().empty());
  }
  CHECK(registry.get("gda-x").plugin->name == "first");  // the first registration stays
  CHECK_THROWS_AS(registry.add(entry("gda-x")), InternalError);
}

TEST_CASE("plug-ins: a file's origin is its canonical path and the SHA-256 of its bytes") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("fedbench-plugin-origin-" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "libx.so") << "abc";
  const PluginOrigin o = origin_of_file((dir / "sub" / ".." / "libx.so").string());
  CHECK(o.path == fs::canonical(dir / "libx.so").string());
  // SHA-256("abc") begins ba7816bf8f01cfea (FIPS 180-4, Appendix B.1).
  CHECK(o.fingerprint == "ba7816bf8f01cfea");
  CHECK_THROWS_WITH_AS(origin_of_file((dir / "none.so").string()),
                       doctest::Contains("no such file"), UserError);
  fs::remove_all(dir);
}
