// Every data row reaches a client: `contiguous` splits cut file order into blocks that differ
// by at most one row (the partitioner once kept n/M rows per client and dropped the rest), so
// heart_scale's 270 rows over 20 clients are 10 blocks of 14 and 10 of 13, not 260
// rows; the objectives then weigh row j of client i by 1/(M m_i).
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "datasets/partition.hpp"
#include "support/probe.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

std::vector<Index> client_sizes(const Problem& p) {
  std::vector<Index> out;
  for (int i = 0; i < p.num_clients(); ++i) out.push_back(p.num_samples(i));
  return out;
}

}  // namespace

TEST_CASE("rows: contiguous blocks keep every row, the first n mod M one row longer") {
  const std::vector<double> labels(10, 0.0);
  const auto contiguous = datasets::PartitionScheme::parse("contiguous");
  const datasets::Partition parts = datasets::partition_rows(labels, 4, contiguous, 0);
  const datasets::Partition expected{{0, 1, 2}, {3, 4, 5}, {6, 7}, {8, 9}};
  CHECK(parts == expected);
  CHECK(datasets::partition_rows(labels, 5, contiguous, 0).front().size() == 2);  // divisible: as before
  CHECK_THROWS_WITH(datasets::partition_rows(labels, 11, contiguous, 0),
                    "cannot partition 10 rows over 11 clients; lower the client count");
}

TEST_CASE("rows: robust least squares on heart_scale over 20 clients uses all 270 rows") {
  const auto p = testing::make_minimax("robust-least-squares",
                                       {{"source", "libsvm"},
                                        {"path", testing::dataset_path("libsvm/heart_scale")},
                                        {"clients", "20"}});
  std::vector<Index> expected(10, 14);
  expected.resize(20, 13);
  CHECK(client_sizes(*p) == expected);
  CHECK(p->dim_y() == 270);
  CHECK(p->constants().get(Constant::rows_used, "test") == 270);
  // The closed form z* (weighted least squares) and the global constants of unequal blocks,
  // against the probed operator (1/M) sum_i F_i(z) = J z + b.
  arma::mat J;
  arma::vec b;
  testing::probe_global(*p, J, b);
  const Vec z_star = *p->reference_solution();
  CHECK(arma::norm(J * arma::vec(z_star.data(), z_star.size()) + b) < 1e-10);
  const auto& k = p->constants().values();
  const std::pair<std::string, double> probed[] = {{"mu", testing::arma_mu(J)},
                                                   {"lipschitz", testing::arma_lipschitz(J)},
                                                   {"cocoercivity", testing::arma_cocoercivity_eig(J)}};
  for (const auto& constant : probed) {
    CAPTURE(constant.first);
    CHECK(k.at(constant.first) == doctest::Approx(constant.second).epsilon(1e-8));
  }
  CHECK(k.count("cocoercivity_exact") == 1);
  // The value is the mean of the client means: row k of client i weighs 1/(20 m_i).
  const Vec z = Vec::LinSpaced(p->dim(), -1.0, 1.0);
  double rows_weighted = 0;
  OracleCounts counts;
  for (int i = 0; i < p->num_clients(); ++i)
    for (Index j = 0; j < p->num_samples(i); ++j)
      rows_weighted += p->value(i, std::vector<Index>{j}, z, counts) / (20.0 * static_cast<double>(p->num_samples(i)));
  CHECK(p->global_value(z) == doctest::Approx(rows_weighted).epsilon(1e-12));
}

TEST_CASE("rows: robust least squares keeps file order in contiguous blocks") {
  // 30 synthetic rows over 4 clients: rows 0-7, 8-15, 16-22, 23-29. At z = 0 a one-row operator
  // is nonzero in y only at its row k: -2 lambda y0_k.
  const auto p = testing::make_minimax("robust-least-squares", {{"rows", "30"}, {"features", "3"}, {"clients", "4"}});
  CHECK(client_sizes(*p) == std::vector<Index>{8, 8, 7, 7});
  const Index first[] = {0, 8, 16, 23};
  OracleCounts counts;
  Vec out(p->dim());
  for (int i = 0; i < 4; ++i)
    for (Index j = 0; j < p->num_samples(i); ++j) {
      p->op(i, std::vector<Index>{j}, Vec::Zero(p->dim()), out, counts);
      Index row = -1;
      out.tail(p->dim_y()).cwiseAbs().maxCoeff(&row);
      CHECK(row == first[i] + j);
    }
}

TEST_CASE("rows: data problems split contiguously keep every row") {
  // heart: 270 rows. auc keeps them all for training; fair-classification and robust-training
  // hold out 54 test rows; hyper-logreg and data-hypercleaning split the rest over two levels.
  const std::vector<std::pair<std::string, Index>> minimax{
      {"auc", 270}, {"fair-classification", 216}, {"robust-training", 216}};
  for (const auto& entry : minimax) {
    const std::string& name = entry.first;  // a named reference: clang 14 cannot capture bindings
    const Index rows = entry.second;
    CAPTURE(name);
    const auto p = testing::make_minimax(name, {{"dataset", "heart"}, {"clients", "20"}, {"partition", "contiguous"}});
    const auto sizes = client_sizes(*p);
    CHECK(std::accumulate(sizes.begin(), sizes.end(), Index{0}) == rows);
    CHECK(*std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()) <= 1);
  }
  for (const std::string name : {"hyper-logreg", "data-hypercleaning"}) {
    CAPTURE(name);
    const auto p =
        testing::bilevel_problem(name, {{"dataset", "heart"}, {"clients", "20"}, {"partition", "contiguous"}});
    const auto& k = p->constants();
    CHECK(k.get(Constant::train_rows, "test") + k.get(Constant::validation_rows, "test") +
              k.get(Constant::test_rows, "test") == 270);
  }
}
