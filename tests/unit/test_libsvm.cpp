// The LIBSVM reader on real files (counts from ../shared/datasets/libsvm/MANIFEST.md), on
// gzip-compressed input, on malformed lines, and robust least squares built from a real file.
#include <doctest/doctest.h>

#include "support/run_helpers.hpp"
#include <zlib.h>

#include <cstdio>
#include <algorithm>
#include <fstream>

#include "datasets/libsvm.hpp"
#include "problem/problem_registry.hpp"
#include "support/probe.hpp"

using namespace fedbench;

TEST_CASE("libsvm: heart_scale has 270 rows, 13 features, 150 negatives and 120 positives") {
  const auto d = datasets::read_libsvm(testing::dataset_path("libsvm/heart_scale"));
  CHECK(d.num_rows() == 270);
  CHECK(d.max_index == 13);
  CHECK(std::count(d.labels.begin(), d.labels.end(), -1.0) == 150);
  CHECK(std::count(d.labels.begin(), d.labels.end(), 1.0) == 120);
}

TEST_CASE("libsvm: a9a has 32561 rows and 123 features, pendigits lines end without a space") {
  const auto a9a = datasets::read_libsvm(testing::dataset_path("libsvm/a9a"));
  CHECK(a9a.num_rows() == 32561);
  CHECK(a9a.max_index == 123);
  CHECK(std::count(a9a.labels.begin(), a9a.labels.end(), 1.0) == 7841);
  const auto pen = datasets::read_libsvm(testing::dataset_path("libsvm/pendigits"));
  CHECK(pen.num_rows() == 7494);
  CHECK(pen.max_index == 16);
}

TEST_CASE("libsvm: gzip input reads the same as plain text") {
  const std::string plain = "/tmp/fedbench-test-libsvm.txt", gz = plain + ".gz";
  const std::string text = "+1 1:0.5 3:-2\n-1 2:1e-3 \n\n2 1:1\n";
  std::ofstream(plain) << text;
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  const auto a = datasets::read_libsvm(plain), b = datasets::read_libsvm(gz);
  CHECK(a.labels == std::vector<double>{1, -1, 2});
  CHECK(a.labels == b.labels);
  CHECK(a.dense(3) == b.dense(3));
  CHECK(a.dense(3)(0, 2) == -2.0);
  CHECK(a.dense(3)(1, 1) == 1e-3);
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

TEST_CASE("libsvm: malformed input names the file and the line") {
  const std::string path = "/tmp/fedbench-test-bad.txt";
  std::ofstream(path) << "1 1:2\n1 3:1 2:5\n";
  CHECK_THROWS_WITH(datasets::read_libsvm(path),
                    (path + ":2: feature index 2 is not above the previous one (indices are "
                            "1-based, increasing)").c_str());
  std::ofstream(path) << "1 1:2\nyes 1:1\n";
  CHECK_THROWS_WITH(datasets::read_libsvm(path), (path + ":2: label 'yes' is not a number").c_str());
  std::ofstream(path) << "1 1=2\n";
  CHECK_THROWS_WITH(datasets::read_libsvm(path),
                    (path + ":1: '1=2' is not of the form index:value").c_str());
  std::remove(path.c_str());
  CHECK_THROWS_WITH(datasets::read_libsvm("/nonexistent/a9a"),
                    "cannot open dataset /nonexistent/a9a: No such file or directory (LIBSVM "
                    "files are in ../shared/datasets/libsvm/)");
}

TEST_CASE("libsvm: robust least squares on heart_scale solves F(z*) = 0 with every row used") {
  // no `rows`: the default keeps every row of the file and says how many
  const auto p = fedbench::testing::make_minimax("robust-least-squares",
                              {{"source", "libsvm"},
                               {"path", testing::dataset_path("libsvm/heart_scale")},
                               {"clients", "10"}});
  CHECK(p->dim_x() == 13);
  CHECK(p->dim_y() == 270);
  CHECK(p->constants().get(Constant::rows_used, "test") == 270);
  Vec f;
  p->global_op(*p->reference_solution(), f);
  CHECK(f.norm() < 1e-10);
  CHECK(p->constants().values().at("mu") > 0);
}

TEST_CASE("libsvm: robust least squares on a registered dataset split with label skew") {
  const auto p = fedbench::testing::make_minimax("robust-least-squares", {{"source", "dataset"},
                                                       {"dataset", "heart"},
                                                       {"rows", "0"},
                                                       {"clients", "6"},
                                                       {"partition", "dirichlet:0.5"},
                                                       {"partition_seed", "2"}});
  Index total = 0;
  bool unequal = false;
  for (int i = 0; i < p->num_clients(); ++i) {
    total += p->num_samples(i);
    unequal |= p->num_samples(i) != p->num_samples(0);
  }
  CHECK(total == 270);  // every row kept
  CHECK(unequal);
  Vec f;
  p->global_op(*p->reference_solution(), f);  // the weighted least-squares closed form
  CHECK(f.norm() < 1e-10);
  arma::mat J;
  arma::vec b;
  testing::probe_global(*p, J, b);
  CHECK(p->constants().values().at("mu") == doctest::Approx(testing::arma_mu(J)).epsilon(1e-8));
  CHECK_THROWS_WITH(fedbench::testing::make_minimax("robust-least-squares", {{"source", "dataset"}}),
                    "problem robust-least-squares: source=dataset needs -p dataset=NAME");
}
