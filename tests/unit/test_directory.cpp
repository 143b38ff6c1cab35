// Files made through a directory handle stay in the directory that was opened: a path
// component swapped for a link afterwards redirects neither the creation nor the rename, a link
// planted under a file's name is refused and keeps its target's bytes, and a runs/ directory
// that is a link is refused when opened as fedbench's own.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "io/directory.hpp"
#include "io/new_file.hpp"

using namespace fedbench;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "fedbench-test-directory" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string contents(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("directory: a swapped path component redirects neither creation nor rename") {
  const fs::path root = fresh("swap");
  fs::create_directories(root / "runs");
  fs::create_directories(root / "elsewhere");
  const io::Directory runs((root / "runs").string(), io::Directory::Last::refuse_link);
  // After the handle is opened, runs/ is moved away and a link to elsewhere takes its name.
  fs::rename(root / "runs", root / "runs.moved");
  fs::create_directory_symlink(root / "elsewhere", root / "runs");
  {
    io::NewFileStream out(runs, "x.part");
    out << "data";
    out.close();
    REQUIRE(out);
  }
  runs.publish("x.part", "x");
  CHECK(contents(root / "runs.moved" / "x") == "data");
  CHECK(fs::is_empty(root / "elsewhere"));
  // Opened now, as fedbench's own directory, the link is refused.
  CHECK_THROWS_WITH_AS(io::Directory((root / "runs").string(), io::Directory::Last::refuse_link),
                       ("refusing to write through a symbolic link: " + (root / "runs").string()).c_str(),
                       WriteError);
  // A path the user gives may go through links.
  CHECK_NOTHROW(io::Directory((root / "runs").string()));
}

TEST_CASE("directory: a link planted under a name is refused, a stopped write's file replaced") {
  const fs::path root = fresh("planted");
  const io::Directory dir(root.string());
  std::ofstream(root / "precious") << "precious";
  fs::create_symlink(root / "precious", root / "out.part");
  CHECK_THROWS_WITH_AS(io::NewFileStream(dir, "out.part"),
                       ("refusing to write through a symbolic link: " + (root / "out.part").string()).c_str(),
                       WriteError);
  CHECK(contents(root / "precious") == "precious");
  CHECK(fs::is_symlink(root / "out.part"));
  fs::remove(root / "out.part");
  std::ofstream(root / "out.part") << "left by a stopped write";
  {
    io::NewFileStream out(dir, "out.part");
    out << "new";
    out.close();
  }
  CHECK(contents(root / "out.part") == "new");
  // A link at the final name is neither written through nor replaced: the publish is refused
  // and the link, and what it points to, stay as they were; a FIFO and a directory likewise.
  fs::create_symlink(root / "precious", root / "out");
  CHECK_THROWS_WITH_AS(dir.publish("out.part", "out"),
                       ("refusing to write through a symbolic link: " + (root / "out").string()).c_str(), WriteError);
  CHECK(fs::is_symlink(root / "out"));
  CHECK(contents(root / "precious") == "precious");
  fs::remove(root / "out");
  REQUIRE(::mkfifo((root / "out").c_str(), 0600) == 0);
  CHECK_THROWS_AS(dir.publish("out.part", "out"), UserError);
  CHECK(fs::is_fifo(root / "out"));
  fs::remove(root / "out");
  fs::create_directory(root / "out");
  CHECK_THROWS_AS(dir.publish("out.part", "out"), UserError);
  fs::remove(root / "out");
  dir.publish("out.part", "out");  // a regular file or nothing: published
  CHECK(contents(root / "out") == "new");
  // The lock file of a claim: never through a link either.
  fs::create_symlink(root / "precious", root / "run.lock");
  CHECK_THROWS_AS(dir.open_lock("run.lock"), WriteError);
  const int fd = dir.open_lock("other.lock");
  CHECK(dir.names("other.lock", fd));
  dir.remove("other.lock");
  CHECK_FALSE(dir.names("other.lock", fd));
  ::close(fd);
}
