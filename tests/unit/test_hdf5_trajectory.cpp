// The HDF5 trajectory file: what a run writes is what read_trajectory returns, bit for bit;
// a run that dies leaves no file under the final name and an older file intact; reading
// anything else fails with the file's name.
#include <doctest/doctest.h>

#include <filesystem>
#include <cstring>
#include <fstream>

#include "io/hdf5.hpp"
#include "io/trajectory_file.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;
namespace fs = std::filesystem;

namespace {
const ParamMap kGame{{"clients", "3"}, {"samples", "4"}, {"dim", "2"}};

std::string scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "fedbench-test-hdf5";
  fs::create_directories(dir);
  return (dir / name).string();
}

PreparedRun prepared(std::int64_t rounds) {
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = kGame;
  req.solver = "proxskip-sgda-fl";
  req.seed = 11;
  req.budget.rounds = rounds;
  return prepare_run(req);
}
}  // namespace

TEST_CASE("hdf5: a written trajectory reads back exactly, with header and per-client totals") {
  const std::string path = scratch("roundtrip.h5");
  fs::remove(path);
  MemoryTrajectory memory;
  {
    io::Hdf5TrajectoryWriter writer(path);
    TeeSink tee({&memory, &writer});
    PreparedRun run = prepared(700);
    execute(run, 2, tee, "fedbench run (test)");  // > 1 flush of 256 rows
  }
  REQUIRE(fs::exists(path));
  CHECK_FALSE(fs::exists(path + ".part"));
  const io::StoredRun run = io::read_trajectory(path);
  REQUIRE(run.num_rows() == memory.rows.size());
  for (std::size_t r = 0; r < memory.rows.size(); ++r) {
    const auto& row = memory.rows[r];
    CHECK(run.column("round")[r] == static_cast<double>(row.round));
    CHECK(run.column("samples")[r] == static_cast<double>(row.oracle.samples));
    CHECK(run.column("bytes_up")[r] == static_cast<double>(row.comm.bytes_up));
    CHECK(run.column("wall_time")[r] == row.wall_time);
    for (std::size_t k = 0; k < memory.header.metric_names.size(); ++k)
      CHECK(run.column(memory.header.metric_names[k])[r] == row.metrics[k]);
  }
  CHECK(run.text.at("format") == "fedbench-trajectory");
  CHECK(run.text.at("solver") == "proxskip-sgda-fl");
  CHECK(run.text.at("status") == "ok");
  CHECK(run.text.at("stop_reason") == "max_rounds");
  CHECK(run.text.at("command_line") == "fedbench run (test)");
  CHECK(run.text.at("config") == memory.header.config_text);
  CHECK(run.numbers.at("seed") == 11);
  CHECK(run.solver_params == memory.header.solver_params);
  CHECK(run.constants == memory.header.constants);
  double total = 0;
  for (double v : run.per_client.at("samples")) total += v;
  CHECK(total == run.column("samples").back());
  CHECK_THROWS_WITH(run.column("nope"), doctest::Contains("has no column 'nope'"));
}

TEST_CASE("hdf5: a run that dies leaves no final file and an older file untouched") {
  const std::string path = scratch("interrupted.h5");
  std::ofstream(path) << "older result";
  {
    io::Hdf5TrajectoryWriter writer(path);
    RunHeader h;
    h.metric_names = {"rel_error"};
    writer.begin(h);
    TrajectoryRow row;
    row.metrics = {1.0};
    writer.row(row);
    CHECK(fs::exists(path + ".part"));
  }  // destroyed without end(): the run died
  CHECK_FALSE(fs::exists(path + ".part"));
  std::ifstream in(path);
  std::string content;
  std::getline(in, content);
  CHECK(content == "older result");
}

TEST_CASE("hdf5: unreadable inputs fail with the file name and the reason") {
  CHECK_THROWS_WITH(io::read_trajectory(scratch("missing.h5")),
                    (std::string("cannot open ") + scratch("missing.h5") + ": no such file").c_str());
  const std::string text = scratch("text.h5");
  std::ofstream(text) << "not hdf5";
  CHECK_THROWS_WITH(io::read_trajectory(text),
                    ("cannot open " + text + ": not an HDF5 file").c_str());
  const std::string foreign = scratch("foreign.h5");
  { io::h5::create_file(foreign); }
  CHECK_THROWS_WITH(io::read_trajectory(foreign),
                    (foreign + " is not a fedbench trajectory file (no format = "
                               "fedbench-trajectory attribute)").c_str());
  CHECK_THROWS_WITH(io::Hdf5TrajectoryWriter("/nonexistent-dir/x.h5"),
                    "cannot write /nonexistent-dir/x.h5: directory /nonexistent-dir does not "
                    "exist; create it first");
}

TEST_CASE("hdf5: a run replayed into a new file reads back the same (the report's screened copies)") {
  // A bilevel run: final x, y and y*(x), constants, metric descriptions, set-up and evaluation
  // times. (/partition is not read back, so copies do not carry it; no script reads it.)
  const std::string original = scratch("original.h5"), copy = scratch("copy.h5");
  fs::remove(original);
  fs::remove(copy);
  {
    RunRequest req;
    req.problem = "hyper-logreg";
    req.problem_params = {{"dataset", "heart"}, {"clients", "3"}};
    req.solver = "fedbioacc";
    req.seed = 5;
    req.budget.rounds = 30;
    PreparedRun run = prepare_run(req);
    io::Hdf5TrajectoryWriter writer(original);
    execute(run, 1, writer, "fedbench run (test)");
  }
  const io::StoredRun a = io::read_trajectory(original);
  {
    io::Hdf5TrajectoryWriter writer(copy);
    replay(a.record, writer);
  }
  const io::StoredRun b = io::read_trajectory(copy);
  CHECK(b.text == a.text);
  CHECK(b.numbers == a.numbers);
  CHECK(b.constants == a.constants);
  CHECK(b.problem_params == a.problem_params);
  CHECK(b.solver_params == a.solver_params);
  CHECK(b.column_names == a.column_names);
  CHECK(b.per_client == a.per_client);
  REQUIRE(b.columns.size() == a.columns.size());
  for (const auto& column : a.columns) {
    const std::string& name = column.first;  // not a structured binding: CAPTURE's lambda (clang 14)
    const auto& values = column.second;
    CAPTURE(name);
    const auto& other = b.column(name);
    REQUIRE(other.size() == values.size());
    CHECK(std::memcmp(other.data(), values.data(), values.size() * sizeof(double)) == 0);  // NaN too
  }
  CHECK(b.record.summary.final_x == a.record.summary.final_x);
  CHECK(b.record.summary.final_y == a.record.summary.final_y);
  REQUIRE(a.record.summary.final_y_star.has_value());
  CHECK(*b.record.summary.final_y_star == *a.record.summary.final_y_star);
  REQUIRE(b.record.header.metric_meta.size() == a.record.header.metric_meta.size());
  for (std::size_t k = 0; k < a.record.header.metric_meta.size(); ++k) {
    CHECK(b.record.header.metric_meta[k].direction == a.record.header.metric_meta[k].direction);
    CHECK(b.record.header.metric_meta[k].description == a.record.header.metric_meta[k].description);
    CHECK(b.record.header.metric_meta[k].unit == a.record.header.metric_meta[k].unit);
  }
}
