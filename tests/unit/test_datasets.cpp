// Datasets: SHA-256 against the FIPS 180-4 examples and coreutils' sums of the shared files;
// the registry against the MANIFEST's counts; CSR reading; IDX images; corrupted inputs give
// clean errors; partitioners keep every row exactly once and are reproducible by seed.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/sha256.hpp"
#include "datasets/idx.hpp"
#include "datasets/partition.hpp"
#include "datasets/registry.hpp"
#include "support/probe.hpp"

using namespace fedbench;
using namespace fedbench::datasets;

namespace {
std::string temp(const std::string& name) { return "/tmp/fedbench-test-" + name; }

std::map<double, Index> histogram(const std::vector<double>& labels) {
  std::map<double, Index> h;
  for (double l : labels) ++h[l];
  return h;
}
}  // namespace

TEST_CASE("sha256: FIPS 180-4 examples and a file checked by coreutils") {
  Sha256 a;
  a.update("abc");
  CHECK(a.hex_digest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 e;
  CHECK(e.hex_digest() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 two;  // 448-bit message: the padding crosses a block
  two.update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
  CHECK(two.hex_digest() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_file(testing::dataset_path("libsvm/heart_scale")) ==
        "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9");
}

TEST_CASE("registry: every present LIBSVM file has the MANIFEST's rows and verifies") {
  int present = 0;
  for (const auto& d : dataset_registry()) {
    if (d.format != "libsvm") continue;
    for (const auto& f : d.files) {
      const auto path = find_file(f);
      if (!path) continue;
      CAPTURE(f.relative);
      ++present;
      CHECK(verify_file(f, *path) != Verification::mismatch);
      const LibsvmData data = read_libsvm(*path, d.features, d.labels);
      CHECK(data.num_rows() == f.instances);
      CHECK(data.X.cols == d.features);
      // Encoded labels are exactly the encoding's targets.
      for (const auto& [label, count] : histogram(data.labels))
        CHECK(std::find(d.labels.mapped.begin(), d.labels.mapped.end(), label) != d.labels.mapped.end());
    }
  }
  CHECK(present == 21);  // every LIBSVM file of ../shared/datasets/libsvm
}

TEST_CASE("registry: label encodings and histograms from the MANIFEST") {
  auto h = histogram(load_libsvm("mushrooms").labels);  // raw 1/2 -> -1/+1
  CHECK(h[-1] == 3916);
  CHECK(h[1] == 4208);
  h = histogram(load_libsvm("breast-cancer").labels);  // raw 2/4
  CHECK(h[-1] == 444);
  CHECK(h[1] == 239);
  h = histogram(load_libsvm("satimage").labels);  // raw 1..6 -> 0..5
  CHECK(h == std::map<double, Index>{{0, 1072}, {1, 479}, {2, 961}, {3, 415}, {4, 470}, {5, 1038}});
  const auto a9a_test = load_libsvm("a9a", "test");  // reaches index 122 only; nominal 123
  CHECK(a9a_test.max_index == 122);
  CHECK(a9a_test.X.cols == 123);
  CHECK(a9a_test.X.nnz() > 0);
  CHECK_THROWS_WITH(load_libsvm("covtype"), doctest::Contains("download from https://www.csie.ntu.edu.tw"));
  CHECK_THROWS_WITH(dataset_info("a9"), doctest::Contains("(did you mean 'a9a'?)"));
}

TEST_CASE("libsvm: CSR rows equal the text, by an independent dense parse") {
  const std::string path = temp("csr.txt");
  std::ofstream(path) << "1 2:0.5 5:-1\n-1 1:3\n1 \n-1 3:2e-3 4:7 5:1\n";
  const LibsvmData d = read_libsvm(path, 6, {{-1, 1}, {0, 1}});
  Mat want = Mat::Zero(4, 6);
  want(0, 1) = 0.5; want(0, 4) = -1; want(1, 0) = 3; want(3, 2) = 2e-3; want(3, 3) = 7; want(3, 4) = 1;
  CHECK(d.X.dense() == want);
  CHECK(d.labels == std::vector<double>{1, 0, 1, 0});
  CHECK(d.X.row_start == std::vector<std::int32_t>{0, 2, 3, 3, 6});
  std::remove(path.c_str());
}

TEST_CASE("libsvm: corrupted inputs give one clean error each") {
  const std::string path = temp("bad.txt");
  auto expect = [&](const std::string& content, const std::string& message) {
    std::ofstream(path, std::ios::binary) << content;
    CHECK_THROWS_WITH(read_libsvm(path), (path + message).c_str());
  };
  expect("", ": no data rows (is this a LIBSVM file?)");
  expect("1 1:nan\n", ":1: '1:nan' is not of the form index:value");
  expect("1 99999999999:1\n", ":1: feature index 99999999999 is past the limit of 268435456 features");
  expect("1 3000000000:1\n", ":1: feature index 3000000000 is past the limit of 268435456 features");
  expect("1 2147483647:1", ":1: feature index 2147483647 is past the limit of 268435456 features");
  expect(std::string("1 1:0.5\0 2:7\n-1 1:1\n", 20), ":1: byte 0x00 (NUL) at column 8; a LIBSVM file is text");
  expect("1 1:\x01x\n", ":1: '1:\\x01x' is not of the form index:value");
  expect("1 0:1\n", ":1: feature index 0 is not above the previous one (indices are 1-based, increasing)");
  expect(std::string("1 1:1\n1 2:\0\n", 12), ":2: byte 0x00 (NUL) at column 5; a LIBSVM file is text");
  std::ofstream(path) << "-1 1:1\n1 1:2\n";
  CHECK_THROWS_WITH(read_libsvm(path, 0, {{-1, 2}, {-1, 1}}),
                    (path + ":2: label '1' is not one of the dataset's labels (-1 -> -1, 2 -> 1)").c_str());
  // A truncated .gz: the error names the file, no crash.
  const std::string gz = temp("trunc.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "1 1:0.5 2:0.25 7:1\n";
  gzwrite(f, big.data(), static_cast<unsigned>(big.size()));
  gzclose(f);
  std::ifstream in(gz, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(gz, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_WITH(read_libsvm(gz), doctest::Contains("(truncated or corrupt .gz?)"));
  std::remove(path.c_str());
  std::remove(gz.c_str());
}

TEST_CASE("idx: the MNIST test set has 10000 28x28 images with the known digit counts") {
  const auto& d = dataset_info("mnist-t10k");
  const ImageData m = read_idx_images(require_file(d, "images"), require_file(d, "labels"));
  CHECK(m.X.rows() == 10000);
  CHECK(m.X.cols() == 784);
  CHECK(m.X.minCoeff() == 0.0);
  CHECK(m.X.maxCoeff() == 1.0);
  const auto h = histogram(m.labels);  // LeCun et al.: the test set's digit counts
  const Index counts[10] = {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009};
  for (int k = 0; k < 10; ++k) CHECK(h.at(k) == counts[k]);
  const std::string bad = temp("bad.idx");
  std::ofstream(bad, std::ios::binary) << std::string("\0\0\x08\x03\0\0\0\x05", 8);
  CHECK_THROWS_WITH(read_idx(bad), (bad + ": truncated header (read 0 of 4 bytes)").c_str());
  std::ofstream(bad, std::ios::binary) << "P5\x03\x04";
  CHECK_THROWS_WITH(read_idx(bad), (bad + ": not an IDX file (magic bytes 80 53, want 0 0)").c_str());
  std::ofstream(bad, std::ios::binary) << "PK\x03\x04";
  CHECK_THROWS_WITH(read_idx(bad),
                    (bad + " is zip-compressed; decompress it first (unzip " + bad + ")").c_str());
  // A header that announces about 2 GB in an 8-byte file: refused without allocating its claim.
  std::ofstream(bad, std::ios::binary) << std::string("\0\0\x08\x01\x7f\xff\xff\xff", 8);
  CHECK_THROWS_WITH(read_idx(bad), (bad + ": the header announces 2147483647 bytes of data but the file holds 0 "
                                          "(truncated or not an IDX file)").c_str());
  std::ofstream(bad, std::ios::binary) << std::string("\0\0\x08\x01\0\0\0\x05\x01\x02", 10);
  CHECK_THROWS_WITH(read_idx(bad), (bad + ": the header announces 5 bytes of data but the file holds 2 "
                                          "(truncated or not an IDX file)").c_str());
  std::remove(bad.c_str());
}

TEST_CASE("partition: every row exactly once, reproducible, and the intended skew") {
  const auto labels = load_libsvm("pendigits").labels;  // 10 classes, 7494 rows
  for (const char* scheme : {"iid", "shards:1", "shards:3", "dirichlet:0.1", "dirichlet:100", "quantity:0.5"}) {
    CAPTURE(scheme);
    const auto s = PartitionScheme::parse(scheme);
    const Partition p = partition_rows(labels, 50, s, 7);
    std::vector<Index> all;
    for (const auto& c : p) {
      CHECK(!c.empty());
      all.insert(all.end(), c.begin(), c.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<Index> want(labels.size());
    std::iota(want.begin(), want.end(), Index{0});
    CHECK(all == want);
    CHECK(partition_rows(labels, 50, s, 7) == p);
    CHECK(partition_rows(labels, 50, s, 8) != p);
  }
  std::vector<double> classes;
  auto classes_per_client = [&](const Partition& p) {
    double mean = 0;
    for (const auto& h : label_histograms(p, labels, classes))
      mean += static_cast<double>(std::count_if(h.begin(), h.end(), [](Index c) { return c > 0; }));
    return mean / static_cast<double>(p.size());
  };
  CHECK(classes_per_client(partition_rows(labels, 100, PartitionScheme::parse("shards:1"), 1)) < 1.2);
  CHECK(classes_per_client(partition_rows(labels, 50, PartitionScheme::parse("iid"), 1)) > 9.5);
  CHECK(classes_per_client(partition_rows(labels, 50, PartitionScheme::parse("dirichlet:0.05"), 1)) < 4);
  CHECK(classes_per_client(partition_rows(labels, 50, PartitionScheme::parse("dirichlet:100"), 1)) > 9);
  CHECK_THROWS_WITH(PartitionScheme::parse("dirichlet"),
                    "partition 'dirichlet' is not valid; use iid, shards:S (S whole >= 1), dirichlet:A, quantity:A (A > 0) or contiguous");
}

TEST_CASE("idx: Fashion-MNIST from Debian has 60000 + 10000 images, 6000 and 1000 per class") {
  const auto train = load_data("fashion-mnist", "train");
  const auto test = load_data("fashion-mnist", "test");
  CHECK(train.X.rows == 60000);
  CHECK(test.X.rows == 10000);
  CHECK(train.X.cols == 784);
  for (const auto& [label, count] : histogram(train.labels)) CHECK(count == 6000);
  for (const auto& [label, count] : histogram(test.labels)) CHECK(count == 1000);
}

TEST_CASE("readers: random bytes and mutated real lines give errors or data, never a crash") {
  Stream rng(12, "fuzz");
  const std::string path = temp("fuzz.bin");
  const std::string seed_text = "+1 3:0.5 17:1 123:-2e-3\n-1 1:1 2:1\n";
  for (int trial = 0; trial < 300; ++trial) {
    std::string bytes;
    if (trial % 2 == 0) {  // random bytes, biased towards the characters the format uses
      const char alphabet[] = "0123456789:.-+ e\n\t\r\x80\xff";
      const std::size_t n = rng.below(200);
      for (std::size_t k = 0; k < n; ++k) bytes += alphabet[rng.below(sizeof alphabet - 1)];
    } else {  // a valid file with a few bytes changed
      bytes = seed_text;
      for (int k = 0; k < 3; ++k) bytes[rng.below(bytes.size())] = static_cast<char>(rng.below(256));
    }
    std::ofstream(path, std::ios::binary) << bytes;
    try {
      const auto d = read_libsvm(path);
      CHECK(d.X.rows == static_cast<Index>(d.labels.size()));
    } catch (const UserError&) {
    }
    try {
      read_idx(path);
    } catch (const UserError&) {
    }
  }
  std::remove(path.c_str());
}
