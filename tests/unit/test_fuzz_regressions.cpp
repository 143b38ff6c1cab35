// Inputs found by fuzzing (tests/fuzz, docs/fuzzing.md) or built after its findings: each is
// refused with a one-line UserError naming the file (or the parameter), where it used to
// crash, overflow a buffer, read out of bounds, convert out of range or escape as another
// exception type. Run files are edited with the HDF5 C API after a real run wrote them.
#include <doctest/doctest.h>

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include "datasets/idx.hpp"
#include "engine/runner.hpp"
#include "io/hdf5.hpp"
#include "io/trajectory_file.hpp"
#include "problem/problem_registry.hpp"
#include "results/select.hpp"
#include "suite/suite.hpp"

using namespace fedbench;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "fedbench-test-fuzz-regressions";
  fs::create_directories(dir);
  return (dir / name).string();
}

// A finished run of a small game, written as `fedbench run -o` writes it.
std::string written_run(const std::string& name) {
  const std::string path = scratch(name);
  fs::remove(path);
  RunRequest req;
  req.problem = "quadratic-game";
  req.problem_params = {{"clients", "2"}, {"samples", "3"}, {"dim", "2"}};
  req.solver = "gda";
  req.budget.rounds = 3;
  PreparedRun run = prepare_run(req);
  io::Hdf5TrajectoryWriter writer(path);
  execute(run, 1, writer, "fedbench run (test)");
  return path;
}

// Opens a run file read-write in the layout fedbench writes and lets `edit` change it.
void edit(const std::string& path, const std::function<void(hid_t)>& change) {
  io::h5::silence_errors();
  io::h5::Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_V110, H5F_LIBVER_V110);
  io::h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.id()), H5Fclose);
  REQUIRE(file);
  change(file.id());
}

std::string read_error(const std::string& path) {
  try {
    (void)io::read_trajectory(path);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(read without error)";
}

std::vector<char> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("fuzz regressions: a run file edited within the format still reads") {
  const std::string path = written_run("edited.h5");
  edit(path, [](hid_t file) { io::h5::write_attribute(file, "message", std::string("edited")); });
  CHECK(io::read_trajectory(path).text.at("message") == "edited");
}

TEST_CASE("fuzz regressions: the superblock is checked before libhdf5 reads a run file") {
  const std::string good = written_run("good.h5");
  const std::vector<char> bytes = bytes_of(good);
  const std::string size = std::to_string(bytes.size());

  const std::string cut = scratch("truncated.h5");
  write_bytes(cut, std::vector<char>(bytes.begin(), bytes.begin() + bytes.size() / 2));
  CHECK(read_error(cut) == cut + ": truncated: " + std::to_string(bytes.size() / 2) + " of the " +
                               size + " bytes its HDF5 superblock announces");

  const std::string tiny = scratch("tiny.h5");
  write_bytes(tiny, std::vector<char>(bytes.begin(), bytes.begin() + 20));
  CHECK(read_error(tiny) == tiny + ": truncated: 20 bytes, less than an HDF5 superblock");

  const std::string longer = scratch("appended.h5");
  std::vector<char> appended = bytes;
  appended.insert(appended.end(), 100, 'x');
  write_bytes(longer, appended);
  CHECK(read_error(longer) == longer + ": not a fedbench run file (" +
                                  std::to_string(appended.size()) +
                                  " bytes, 100 more than its HDF5 superblock announces)");

  const std::string flipped = scratch("flipped.h5");
  std::vector<char> changed = bytes;
  changed[30] ^= 0x01;  // a bit of the end-of-file address
  write_bytes(flipped, changed);
  CHECK(read_error(flipped) == flipped + ": corrupt: the checksum of its HDF5 superblock does not match");

  const std::string old = scratch("superblock-v0.h5");
  fs::remove(old);
  { io::h5::Handle f(H5Fcreate(old.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose); }
  CHECK(read_error(old) == old + ": not a fedbench run file (HDF5 superblock version 0; "
                                 "fedbench writes version 3)");
}

TEST_CASE("fuzz regressions: global heaps are walked before libhdf5 loops on them") {
  const std::vector<char> bytes = bytes_of(written_run("heap.h5"));
  const std::string heap = "GCOL\x01";
  const auto at = std::search(bytes.begin(), bytes.end(), heap.begin(), heap.end());
  REQUIRE(at != bytes.end());
  const std::size_t start = static_cast<std::size_t>(at - bytes.begin());
  std::vector<char> changed = bytes;
  std::fill(changed.begin() + start + 16, changed.begin() + start + 32, 0);  // free space of size 0
  const std::string looping = scratch("heap-loop.h5");
  write_bytes(looping, changed);
  CHECK(read_error(looping) == looping + ": corrupt: the HDF5 global heap at byte " +
                                   std::to_string(start) +
                                   " holds an object of 0 bytes at its byte 16 that ends nowhere");

  changed = bytes;  // libhdf5 sized its buffer by the length first: realloc of ~2^64 bytes
  std::fill(changed.begin() + start + 8, changed.begin() + start + 16, '\xff');
  const std::string longer = scratch("heap-length.h5");
  write_bytes(longer, changed);
  CHECK(read_error(longer) == longer + ": corrupt: the HDF5 global heap at byte " +
                                  std::to_string(start) +
                                  " claims 18446744073709551615 bytes, past the end of the file");
}

TEST_CASE("fuzz regressions: attributes of a run file are single values of the right kind") {
  const std::string array = written_run("array-seed.h5");
  edit(array, [](hid_t file) {  // read into one int64, four values overflowed the stack
    H5Adelete(file, "seed");
    const hsize_t four = 4;
    const std::int64_t values[4] = {1, 2, 3, 4};
    io::h5::Handle space(H5Screate_simple(1, &four, nullptr), H5Sclose);
    io::h5::Handle attr(H5Acreate2(file, "seed", H5T_STD_I64LE, space.id(), H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose);
    H5Awrite(attr.id(), H5T_NATIVE_INT64, values);
  });
  CHECK(read_error(array) == "attribute seed of " + array + ":/ is not a single value");

  const std::string negative = written_run("negative-seed.h5");  // cast to uint64: undefined
  edit(negative, [](hid_t file) { io::h5::write_attribute(file, "seed", std::int64_t{-1}); });
  CHECK(read_error(negative) ==
        negative + ": attribute seed = -1 is not a whole number in [0, 2^64)");

  const std::string number = written_run("number-param.h5");  // was std::bad_variant_access
  edit(number, [](hid_t file) {
    io::h5::Handle g(H5Gopen2(file, "params/solver", H5P_DEFAULT), H5Gclose);
    io::h5::write_attribute(g.id(), "step_size", 0.5);
  });
  CHECK(read_error(number) == number + ": attribute step_size of params/solver is not text");

  const std::string missing = written_run("no-config.h5");  // select threw std::out_of_range
  edit(missing, [](hid_t file) { H5Adelete(file, "config"); });
  CHECK(read_error(missing) == missing + ": not a fedbench run file (no attribute config)");

  const std::string reason = written_run("bad-reason.h5");
  edit(reason, [](hid_t file) { io::h5::write_attribute(file, "stop_reason", std::string("tired")); });
  CHECK(read_error(reason) == reason + ": unknown stop reason 'tired'");
}

TEST_CASE("fuzz regressions: datasets of a run file are checked before they are allocated") {
  const std::string huge = written_run("huge-column.h5");
  edit(huge, [](hid_t file) {  // unwritten chunks read as fill values: 8 GB of them
    io::h5::Handle ds(H5Dopen2(file, "trajectory/wall_time", H5P_DEFAULT), H5Dclose);
    const hsize_t rows = hsize_t{1} << 30;
    H5Dset_extent(ds.id(), &rows);
  });
  CHECK(read_error(huge) == "dataset wall_time of " + huge +
                                ":/trajectory claims 1073741824 values, more than the file can hold (corrupt, or a "
                                "decompression bomb)");

  // A decompression bomb: 8 MB of zeros in one deflated chunk of a few kB. Deflate could hold
  // it, fedbench's own chunks never would: refused before it is inflated.
  const std::string bomb = written_run("bomb.h5");
  const hsize_t zeros = hsize_t{1} << 20;
  edit(bomb, [&](hid_t file) {
    io::h5::Handle g(H5Gopen2(file, "trajectory", H5P_DEFAULT), H5Gclose);
    H5Ldelete(g.id(), "wall_time", H5P_DEFAULT);
    io::h5::Handle space(H5Screate_simple(1, &zeros, nullptr), H5Sclose);
    io::h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(dcpl.id(), 1, &zeros);
    H5Pset_deflate(dcpl.id(), 9);
    io::h5::Handle ds(H5Dcreate2(g.id(), "wall_time", H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, dcpl.id(),
                                 H5P_DEFAULT),
                      H5Dclose);
    const std::vector<double> values(zeros, 0.0);
    H5Dwrite(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  });
  CHECK(fs::file_size(bomb) * 128 < zeros * 8);   // more than the budget allows ...
  CHECK(fs::file_size(bomb) * 1032 > zeros * 8);  // ... though within what deflate can do
  CHECK(read_error(bomb) == "dataset wall_time of " + bomb + ":/trajectory claims 1048576 values, more than the "
                                "file can hold (corrupt, or a decompression bomb)");

  const std::string uneven = written_run("uneven-clients.h5");
  edit(uneven, [](hid_t file) {  // per-client totals were indexed by the first one's length
    io::h5::Handle g(H5Gopen2(file, "clients", H5P_DEFAULT), H5Gclose);
    H5Ldelete(g.id(), "samples", H5P_DEFAULT);
    io::h5::write_vector(g.id(), "samples", std::vector<std::int64_t>{1});
  });
  CHECK(read_error(uneven) == uneven + ": corrupt: /clients/samples has 1 values, "
                                       "/clients/grad_x_calls 2");

  const std::string count = written_run("huge-count.h5");
  edit(count, [](hid_t file) {  // 2^63 as a double does not convert back to int64
    io::h5::Handle g(H5Gopen2(file, "clients", H5P_DEFAULT), H5Gclose);
    H5Ldelete(g.id(), "samples", H5P_DEFAULT);
    io::h5::write_vector(g.id(), "samples", std::vector<double>{1e300, 1});
  });
  CHECK(read_error(count) == count + ": corrupt: /clients/samples holds 1e+300, not a count");

  const std::string filtered = written_run("nbit.h5");
  edit(filtered, [](hid_t file) {
    io::h5::Handle g(H5Gopen2(file, "final", H5P_DEFAULT), H5Gclose);
    H5Ldelete(g.id(), "x", H5P_DEFAULT);
    const hsize_t n = 2;
    io::h5::Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    io::h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(dcpl.id(), 1, &n);
    H5Pset_nbit(dcpl.id());
    io::h5::Handle ds(H5Dcreate2(g.id(), "x", H5T_STD_I32LE, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT),
                      H5Dclose);
  });
  CHECK(read_error(filtered) == "dataset x of " + filtered +
                                    ":/final uses HDF5 filter 5, which fedbench does not write");
}

TEST_CASE("fuzz regressions: whole-number parameters stop at 2^53") {
  const auto& game = problem_registry().get("quadratic-game");
  // 2^63 - 1 became 2^63 as a double, then an undefined conversion to the int64 field.
  CHECK_THROWS_WITH(game.resolved({{"instance_seed", "9223372036854775807"}}),
                    "problem quadratic-game: instance_seed = '9223372036854775807' is out of range "
                    "(whole numbers up to 2^53 = 9007199254740992)");
  CHECK(game.resolved({{"instance_seed", "9007199254740992"}}).at("instance_seed") == "9007199254740992");
}

TEST_CASE("fuzz regressions: suite files without a key or with a wrapping count") {
  // A missing key is an invalid YAML node: asking it for its line threw YAML::InvalidNode.
  const std::string no_problems = scratch("no-problems.yaml");
  std::ofstream(no_problems) << "name: x\n";
  CHECK_THROWS_WITH(suite::load_suite(no_problems),
                    (no_problems + ": 'problems' must be a non-empty list of {name, params}").c_str());
  // Points per decade are an int: 2^32 wrapped to 0, every round.
  const std::string wide = scratch("eval-log.yaml");
  std::ofstream(wide) << "name: x\neval: {log: 4294967296}\n";
  CHECK_THROWS_WITH(suite::load_suite(wide),
                    (wide + ":2: eval log = 4294967296 is more than 2147483647 points per decade").c_str());
}

TEST_CASE("fuzz regressions: an IDX size of 0 does not let the other sizes overflow") {
  // 0 images of 2^32-1 x 2^32-1 pixels: 0 bytes in all, but rows x columns overflowed int64.
  const std::string images = scratch("empty-huge.idx"), labels = scratch("empty.idx");
  const unsigned char header[] = {0, 0, 8, 3, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  std::ofstream(images, std::ios::binary).write(reinterpret_cast<const char*>(header), sizeof header);
  const unsigned char no_labels[] = {0, 0, 8, 1, 0, 0, 0, 0};
  std::ofstream(labels, std::ios::binary).write(reinterpret_cast<const char*>(no_labels), sizeof no_labels);
  CHECK_THROWS_WITH(datasets::read_idx_images(images, labels),
                    (images + ": IDX sizes are implausible (over 2 GB)").c_str());
}

TEST_CASE("fuzz regressions: select reads a run whose configuration text is not YAML") {
  // A run file's config attribute edited into text no YAML parser reads (a libFuzzer finding:
  // select took the participation through yaml-cpp and its exception ended the process).
  const fs::path dir = scratch("select-config");
  fs::remove_all(dir);
  fs::create_directories(dir / "runs");
  // Edited consistently (identity text, configuration and name agree), so that the file is
  // still taken as the run its name stands for.
  const std::string source = written_run("select-config.h5");
  std::string config = io::read_trajectory(source).text.at("config");
  config += "bad: [unclosed\n  - x: : y\n";
  const std::string identity = config + "versions:\n  problem: 1\n  solver: 1\n";
  const std::string path = (dir / "runs" / (suite::run_id(identity) + ".h5")).string();
  fs::copy_file(source, path);
  edit(path, [&](hid_t file) {
    io::h5::write_attribute(file, "config", config);
    io::h5::write_attribute(file, "identity", identity);
  });
  const auto selection = suite::select_best(dir.string(), suite::SelectCriterion::parse("rel_error", "rounds=3"));
  REQUIRE(selection.winners.size() == 1);
  CHECK(selection.winners[0].participation == "full");
  // Its winners suite needs the budget from that text: a one-line refusal, not a crash.
  CHECK_THROWS_WITH_AS(suite::winners_suites(selection, {1}, "w", "c"),
                       doctest::Contains("the configuration of the winning gda runs does not parse"), UserError);
}
