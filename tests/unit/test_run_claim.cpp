// Claims on runs (flock on runs/<id>.lock): exclusive while held, released by closing, the lock
// file deleted only by a holder, a waiter never left holding a deleted file, stale files of
// finished runs removed. flock locks belong to open file descriptions, so two claims in one
// process conflict exactly as two processes would.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "results/run_claim.hpp"

using namespace fedbench::suite;
namespace fs = std::filesystem;

namespace {

std::string fresh_results_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("fedbench-test-claim-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "runs");
  return dir.string();
}

}  // namespace

TEST_CASE("run claims: exclusive while held, free once finished, lock file then gone") {
  const std::string dir = fresh_results_dir("exclusive");
  const std::string lock = dir + "/runs/r1.lock";
  RunClaim first(dir, "r1", RunClaim::Wait::no);
  CHECK(first.held());
  CHECK(fs::exists(lock));
  {
    RunClaim second(dir, "r1", RunClaim::Wait::no);
    CHECK_FALSE(second.held());
    RunClaim other_run(dir, "r2", RunClaim::Wait::no);
    CHECK(other_run.held());
  }
  first.finished();
  CHECK_FALSE(first.held());
  CHECK_FALSE(fs::exists(lock));
  RunClaim again(dir, "r1", RunClaim::Wait::no);
  CHECK(again.held());
}

TEST_CASE("run claims: a waiter gets the claim when the holder lets go, on the file under the name") {
  const std::string dir = fresh_results_dir("wait");
  auto first = std::make_unique<RunClaim>(dir, "r1", RunClaim::Wait::no);
  REQUIRE(first->held());
  auto waiter = std::async(std::launch::async, [&] {
    RunClaim claim(dir, "r1", RunClaim::Wait::yes);
    // Held, and on the lock file that exists under the name now (the holder deleted its own).
    const bool ok = claim.held() && fs::exists(dir + "/runs/r1.lock");
    RunClaim rival(dir, "r1", RunClaim::Wait::no);
    return ok && !rival.held();
  });
  CHECK(waiter.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout);
  first->finished();  // deletes r1.lock, then releases: the waiter must not keep the old file
  CHECK(waiter.get());
}

TEST_CASE("run claims: a stale lock file of a finished run is removed unless held") {
  const std::string dir = fresh_results_dir("stale");
  {
    RunClaim killed(dir, "r1", RunClaim::Wait::no);  // dropped without finished(): a kill
  }
  REQUIRE(fs::exists(dir + "/runs/r1.lock"));
  RunClaim::remove_stale(dir, "r1");
  CHECK_FALSE(fs::exists(dir + "/runs/r1.lock"));

  RunClaim holder(dir, "r2", RunClaim::Wait::no);
  RunClaim::remove_stale(dir, "r2");
  CHECK(fs::exists(dir + "/runs/r2.lock"));
  RunClaim::remove_stale(dir, "r3");  // no file: nothing to do
  CHECK_FALSE(fs::exists(dir + "/runs/r3.lock"));
}
