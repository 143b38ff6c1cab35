// What computed a run: build-time code fingerprints found for every registered solver and
// problem, data files recorded by content while an instance is built, and the verdict (current
// or stale, with the reason) that resume, plan, check and show give a stored run.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/code_fingerprint.hpp"
#include "core/data_provenance.hpp"
#include "engine/provenance.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

using namespace fedbench;
namespace fs = std::filesystem;

namespace {

// A scratch file with `text`, removed with its directory at the end of the test.
struct ScratchFile {
  fs::path dir, path;
  explicit ScratchFile(const std::string& text) {
    dir = fs::temp_directory_path() / ("fedbench-provenance-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    path = dir / "rows.txt";
    write(text);
  }
  void write(const std::string& text) const { std::ofstream(path, std::ios::trunc) << text; }
  ~ScratchFile() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// SHA-256 of "abc" (FIPS 180-4, Appendix B.1).
constexpr const char* kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

}  // namespace

TEST_CASE("provenance: a registration's source key, however the compiler was given the path") {
  CHECK(source_key("/work/fedbench/lib/solvers/minimax/sgda.cpp") == "lib/solvers/minimax/sgda.cpp");
  CHECK(source_key("../lib/solvers/bilevel/fednest.cpp") == "lib/solvers/bilevel/fednest.cpp");  // ccache
  CHECK(source_key("/home/u/problems/fedbench/problems/minimax/auc.cpp") == "problems/minimax/auc.cpp");
  CHECK(source_key("/home/u/problems/fedbench/tests/unit/test_x.cpp") == "");  // not a plug-in file
  CHECK(source_key("/home/u/xlib/solvers/minimax/sgda.cpp") == "");           // not at a directory
  CHECK(source_key("/src/myproblems/x.cpp") == "");
  CHECK(source_key(nullptr) == "");
}

TEST_CASE("provenance: every registered solver and problem has its own build-time fingerprint") {
  CHECK(numerics_fingerprint().size() == 16);
  for (const auto& name : solver_registry().names()) {
    CAPTURE(name);
    const auto& e = solver_registry().get(name);
    CHECK(e.source.rfind("lib/solvers/", 0) == 0);
    CHECK(source_fingerprint(e.source).size() == 16);
  }
  for (const auto& name : problem_registry().names()) {
    if (name.rfind("test-", 0) == 0) continue;  // test-only problems live under tests/
    CAPTURE(name);
    const auto& e = problem_registry().get(name);
    CHECK(e.source.rfind("problems/", 0) == 0);
    CHECK(source_fingerprint(e.source).size() == 16);
  }
  // An alias shares its base's file; two solvers of different files differ.
  CHECK(solver_registry().get("gda").source == solver_registry().get("sgda").source);
  CHECK(source_fingerprint(solver_registry().get("sgda").source) !=
        source_fingerprint(solver_registry().get("local-sgda").source));
}

TEST_CASE("provenance: data files are recorded by content while a scope is open, and changes found") {
  const ScratchFile file("abc");
  std::vector<DataFileRecord> recorded;
  note_data_file(file.path.string());  // no scope: nothing recorded, nothing thrown
  {
    const DataFileScope outer;
    {
      const DataFileScope inner;
      note_data_file(file.path.string());
      note_data_file(file.path.string());  // once per file
      REQUIRE(inner.files().size() == 1);
    }
    recorded = outer.files();  // the inner scope's files reach the outer one
  }
  REQUIRE(recorded.size() == 1);
  CHECK(recorded[0].sha256 == kAbc);
  CHECK(recorded[0].size == 3);
  CHECK(recorded[0].absolute == fs::absolute(file.path).lexically_normal().string());
  CHECK_FALSE(recorded[0].registry);
  CHECK(parse_data_files(data_files_text(recorded)) == recorded);
  CHECK(data_change(recorded).empty());

  file.write("abd");  // same size, other bytes
  const std::string changed = data_change(recorded);
  CHECK(changed.find("changed (sha256 ba7816bf8f01 -> ") != std::string::npos);
  fs::remove(file.path);
  CHECK(data_change(recorded).find("is gone") != std::string::npos);
  // A registered dataset's file is fixed by the checksum compiled into this build.
  recorded[0].registry = true;
  CHECK(data_change(recorded).empty());
}

TEST_CASE("provenance: a stored run is stale when its solver's, its problem's or the shared code differs") {
  RunProvenance stored = current_code("quadratic-game", "local-sgda");
  CHECK(staleness(stored, "quadratic-game", "local-sgda").empty());
  // A fingerprint of another build, part by part.
  RunProvenance other = stored;
  other.solver_code = "0000000000000000";
  CHECK(staleness(other, "quadratic-game", "local-sgda") ==
        "code: solver local-sgda changed (lib/solvers/minimax/local_sgda.cpp)");
  other = stored;
  other.problem_code = "0000000000000000";
  CHECK(staleness(other, "quadratic-game", "local-sgda").rfind("code: problem quadratic-game changed", 0) == 0);
  other = stored;
  other.numerics = "0000000000000000";
  CHECK(staleness(other, "quadratic-game", "local-sgda") ==
        "code: the shared numerical code or the compiler changed");
  CHECK(staleness(RunProvenance{}, "quadratic-game", "local-sgda").rfind("written before", 0) == 0);
  // The attributes a run file stores round-trip.
  stored.data.push_back({"a.txt", "/x/a.txt", 3, kAbc, false});
  const RunProvenance back = provenance_from_attributes(provenance_attributes(stored));
  CHECK(back.recorded);
  CHECK(back.numerics == stored.numerics);
  CHECK(back.solver_code == stored.solver_code);
  CHECK(back.problem_code == stored.problem_code);
  CHECK(back.data == stored.data);
}

TEST_CASE("provenance: an instance built from a user file records it; a generated one records none") {
  std::string rows;
  for (int i = 0; i < 40; ++i)
    rows += (i % 2 ? "-1" : "+1") + std::string(" 1:") + std::to_string(0.1 * i) + " 2:" + std::to_string(1 - 0.05 * i) + "\n";
  const ScratchFile file(rows);
  const auto from_file = problem_registry().get("auc").create(
      {{"source", "libsvm"}, {"path", file.path.string()}, {"clients", "2"}});
  REQUIRE(from_file->data_files().size() == 1);
  CHECK(from_file->data_files()[0].absolute == fs::absolute(file.path).lexically_normal().string());
  CHECK(from_file->data_files()[0].size == static_cast<std::int64_t>(fs::file_size(file.path)));
  const auto generated = problem_registry().get("quadratic-game").create({});
  CHECK(generated->data_files().empty());
}
