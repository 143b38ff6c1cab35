// The run-file screen: contents cross the socket unchanged (an encoding round trip checked
// against the in-process reader), a malformed answer is an error and never a crash, and a
// screen that crashes, stalls or talks nonsense gives one line naming the file. The real
// screen (fedbench itself) on files that crash libhdf5 is exercised by tests/cli/faults.sh.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <string>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "engine/runner.hpp"
#include "io/screen/run_file_contents.hpp"
#include "io/screen/run_file_screen.hpp"
#include "results/results_store.hpp"
#include "results/run_identity.hpp"
#include "suite/suite.hpp"

using namespace fedbench;
namespace fs = std::filesystem;

namespace {

RunRequest small_game(std::uint64_t seed) {
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = {{"clients", "3"}, {"samples", "4"}, {"dim", "2"}};
  req.solver = "local-sgda";
  req.seed = seed;
  req.budget.rounds = 4;
  return req;
}

std::string written_run(const std::string& name, const RunRequest& req) {
  const fs::path dir = fs::temp_directory_path() / "fedbench-test-run-file-screen";
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  fs::remove(path);
  PreparedRun run = prepare_run(req);
  io::Hdf5TrajectoryWriter writer(path);
  execute(run, 1, writer, "fedbench run (test)");
  return path;
}

bool same(const Vec& a, const Vec& b) { return a.size() == b.size() && (a.array() == b.array()).all(); }

// Screens `path` with a stand-in screen given as a shell script.
std::string screened_by(const std::string& script, const std::string& path, double timeout = 30) {
  io::screen_run_files_with({"/bin/sh", "-c", script}, timeout);
  const io::ScreenVerdict verdict = io::screen_run_file(path);
  io::stop_screening();
  return verdict.problem;
}

}  // namespace

TEST_CASE("run-file screen: contents survive the encoding bit for bit") {
  const std::string path = written_run("roundtrip.h5", small_game(3));
  io::RunFileContents contents = io::read_run_file_contents(path);
  contents.run.record.summary.final_y_star = Vec::LinSpaced(3, -1.0, 1.0 / 3.0);  // bilevel runs have one
  const std::string bytes = io::encode_run_file_contents(contents);
  const io::RunFileContents back = io::decode_run_file_contents(bytes, path);

  CHECK(back.run.path == contents.run.path);
  CHECK(back.run.text == contents.run.text);
  CHECK(back.run.numbers == contents.run.numbers);
  CHECK(back.run.constants == contents.run.constants);
  CHECK(back.run.problem_params == contents.run.problem_params);
  CHECK(back.run.solver_params == contents.run.solver_params);
  CHECK(back.run.column_names == contents.run.column_names);
  CHECK(back.run.columns == contents.run.columns);
  CHECK(back.run.per_client == contents.run.per_client);
  REQUIRE(back.meta.size() == contents.meta.size());
  for (const auto& [name, m] : contents.meta) {
    CHECK(back.meta.at(name).direction == m.direction);
    CHECK(back.meta.at(name).description == m.description);
    CHECK(back.meta.at(name).unit == m.unit);
  }
  const RunSummary &s = contents.run.record.summary, &t = back.run.record.summary;
  CHECK(same(s.final_x, t.final_x));
  CHECK(same(s.final_y, t.final_y));
  REQUIRE(t.final_y_star.has_value());
  CHECK(same(*s.final_y_star, *t.final_y_star));
  CHECK(io::encode_run_file_contents(back) == bytes);

  // Assembled, it is the run the in-process reader gives.
  contents.run.record.summary.final_y_star.reset();
  const io::StoredRun direct = io::read_trajectory(path);
  const io::StoredRun via = io::assemble_run(io::decode_run_file_contents(io::encode_run_file_contents(contents), path));
  REQUIRE(via.record.rows.size() == direct.record.rows.size());
  CHECK(via.record.rows.size() == 5);
  for (std::size_t i = 0; i < via.record.rows.size(); ++i) {
    CHECK(via.record.rows[i].metrics == direct.record.rows[i].metrics);
    CHECK(via.record.rows[i].round == direct.record.rows[i].round);
    CHECK(via.record.rows[i].wall_time == direct.record.rows[i].wall_time);
  }
  CHECK(via.record.header.metric_names == direct.record.header.metric_names);
  CHECK(via.record.summary.reason == direct.record.summary.reason);
}

TEST_CASE("run-file screen: a cut or padded answer is an error naming the file") {
  const std::string path = written_run("cut.h5", small_game(4));
  const std::string bytes = io::encode_run_file_contents(io::read_run_file_contents(path));
  int refused = 0;
  for (std::size_t n = 0; n < bytes.size(); n += 1 + n / 16) {
    try {
      (void)io::decode_run_file_contents(bytes.substr(0, n), path);
    } catch (const UserError& e) {
      CHECK(std::string(e.what()) == path + ": the run-file screen sent a malformed answer");
      ++refused;
      continue;
    }
    FAIL("a cut encoding of " << n << " bytes decoded");
  }
  CHECK(refused > 20);
  CHECK_THROWS_AS(io::decode_run_file_contents(bytes + "x", path), UserError);
}

TEST_CASE("run-file screen: a screen that crashes, stalls or talks nonsense gives one line") {
  const std::string path = written_run("screened.h5", small_game(5));
  CHECK(screened_by("kill -SEGV $$", path) ==
        path + ": reading it crashed the HDF5 library (signal 11: Segmentation fault); the file is "
               "damaged or crafted");
  CHECK(screened_by("exec sleep 20", path, 0.3) ==
        path + ": reading it made no progress for 0.3 s; the file is damaged or crafted");
  CHECK(screened_by("printf 'hello, world: no frame'; exec sleep 20", path) ==
        path + ": the run-file screen /bin/sh gave no answer fedbench understands");
  CHECK(screened_by("exit 3", path).find("ended with code 3") != std::string::npos);
  // An answer longer than the file could hold (201 MB for a file of kilobytes) is refused from
  // its header, before this process allocates it: it has no memory limit of its own.
  const std::string oversized = screened_by(R"(printf "o\000\000\000\014\000\000\000\000"; exec sleep 20)", path, 5);
  CHECK(oversized.find(path + ": its contents take over ") == 0);
  CHECK(oversized.find(" MB, more than a run file of " + std::to_string(fs::file_size(path)) +
                       " bytes holds; the file is damaged or crafted") != std::string::npos);

  // Heartbeats: a screen that reports bytes read is given time as long as the count grows (1.2 s
  // of progress against a 0.3 s quiet window); one whose count stands still stalls; one that has
  // read far more than the file holds is looping.
  const std::string beats = R"(for i in 1 2 3 4 5 6; do printf "\006\00${i}\000\000\000\000\000\000\000"; sleep 0.2; done; )";
  CHECK(screened_by(beats + R"(printf 'b\004\000\000\000\000\000\000\000fine'; exec cat >/dev/null)", path, 0.3) == path + ": fine");
  const std::string still = R"(for i in 1 2 3 4 5 6; do printf "\006\001\000\000\000\000\000\000\000"; sleep 0.2; done; )";
  CHECK(screened_by(still + R"(printf 'b\004\000\000\000\000\000\000\000fine'; exec cat >/dev/null)", path, 0.3) ==
        path + ": reading it made no progress for 0.3 s; the file is damaged or crafted");
  CHECK(screened_by(R"(printf "\006\000\000\000\000\000\000\001\000"; exec sleep 20)", path).find(
            ": reading it read over 256 MB from a file of ") != std::string::npos);

  // Killed from outside (SIGKILL, as a job kill or the OOM killer would): not the file's
  // fault, so one new screen is tried; this one then crashes, which is reported.
  const fs::path marker = fs::temp_directory_path() / "fedbench-test-run-file-screen" / "started-once";
  fs::remove(marker);
  const std::string twice = "if [ -e '" + marker.string() + "' ]; then kill -SEGV $$; else touch '" +
                            marker.string() + "'; kill -KILL $$; fi";
  CHECK(screened_by(twice, path).find("(signal 11: ") != std::string::npos);
  CHECK(fs::exists(marker));
}

namespace {

// A suite's run written under its id, with the identity text it hashes recorded.
std::string written_suite_run(const RunRequest& req, const std::string& name = "") {
  const std::string identity = suite::identity_text(req);
  const fs::path dir = fs::temp_directory_path() / "fedbench-test-run-file-screen" / "runs";
  fs::create_directories(dir);
  const std::string path = (dir / ((name.empty() ? suite::run_id(identity) : name) + ".h5")).string();
  fs::remove(path);
  PreparedRun run = prepare_run(req);
  run.identity = identity;
  io::Hdf5TrajectoryWriter writer(path);
  execute(run, 1, writer, "fedbench run (test)");
  return path;
}

std::string copied(const std::string& from, const std::string& name) {
  const std::string to = (fs::path(from).parent_path() / (name + ".h5")).string();
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  return to;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("run-file screen: without one, files are read here; a file is only the run its name stands for") {
  const RunRequest own = small_game(6);
  const std::string path = written_suite_run(own);
  const io::ScreenVerdict verdict = io::screen_run_file(path);
  CHECK(verdict.problem.empty());
  CHECK(verdict.status == "ok");
  CHECK(verdict.config.find("seed: 6\n") != std::string::npos);
  CHECK(verdict.identity == suite::identity_text(own));
  CHECK(verdict.seed == 6.0);
  CHECK(suite::run_file_problem(path).empty());
  CHECK(suite::read_complete_run(path).has_value());

  // A backup copy, and the file copied under another run's id: not runs.
  RunRequest other_seed = own;
  other_seed.seed = 7;
  const std::string backup = copied(path, fs::path(path).stem().string() + ".backup");
  CHECK(has(suite::run_file_problem(backup), "not a run of this results directory: its name is not a run id"));
  CHECK_FALSE(suite::read_complete_run(backup).has_value());
  CHECK(suite::read_complete_run(backup, suite::RunOrigin::named).has_value());  // named by a user: read
  const std::string elsewhere = copied(path, suite::run_id(suite::identity_text(other_seed)));
  CHECK(has(suite::run_file_problem(elsewhere), "its stored identity hashes to " + fs::path(path).stem().string()));

  // A file without a recorded identity (a `run -o` file, or older fedbench) under a run's name.
  const std::string bare = written_run("bare.h5", own);
  const std::string bare_in_runs = copied(bare, fs::path(path).stem().string());
  CHECK(has(suite::run_file_problem(bare_in_runs), "records no run identity"));

  // Solver parameters asked as a preset are numbers in the stored configuration: still the run.
  RunRequest theory = own;
  theory.solver_params = {{"schedule", "decay"}, {"step_size", "theory"}};
  const std::string preset = written_suite_run(theory);
  CHECK(suite::run_file_problem(preset) == "");
}

TEST_CASE("run identity: a changed byte in the stored configuration or seed is found") {
  const RunRequest own = small_game(6);
  const std::string identity = suite::identity_text(own);
  const std::string id = suite::run_id(identity);
  PreparedRun run = prepare_run(own);
  const std::string config = run.config.to_text();
  CHECK(suite::identity_mismatch(id, identity, config, 6.0).empty());
  CHECK(has(suite::identity_mismatch(id, identity, config, 7.0), "root seed"));
  std::string flipped = config;
  flipped[config.find("clients: 3") + 9] = '4';
  CHECK(has(suite::identity_mismatch(id, identity, flipped, 6.0), "differs from its identity at line"));
  std::string solver_flip = config;
  solver_flip[config.find("local-sgda")] = 'L';
  CHECK_FALSE(suite::identity_mismatch(id, identity, solver_flip, 6.0).empty());
  std::string identity_flip = identity;
  identity_flip[identity.find("seed: 6") + 6] = '8';
  CHECK(has(suite::identity_mismatch(id, identity_flip, config, 6.0), "hashes to"));
  CHECK(suite::is_run_id(id));
  CHECK_FALSE(suite::is_run_id(id.substr(1) + "G"));
  CHECK_FALSE(suite::is_run_id(id + "0"));
}

TEST_CASE("run-file screen: one interrupt ends the wait on a stalled screen at once") {
  // In a child process: the interrupt flag, once raised, stays raised for the whole process.
  const std::string path = written_run("interrupted.h5", small_game(2));
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    install_interrupt_handlers();
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      ::kill(::getpid(), SIGINT);
    }).detach();
    const auto start = std::chrono::steady_clock::now();
    int code = 1;  // the wait ran to the screen's 30 s limit, or ended without a word
    try {
      screened_by("exec sleep 20", path, 30);
    } catch (const Interrupted&) {
      code = std::chrono::steady_clock::now() - start < std::chrono::seconds(3) ? 0 : 2;
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
