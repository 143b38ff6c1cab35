#include "problems/common/client_split.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/random.hpp"
#include "datasets/registry.hpp"
#include "datasets/train_test.hpp"
#include "problems/common/instance_rows.hpp"

namespace fedbench::problems {

void keep_random_rows(datasets::CsrMatrix& X, std::vector<double>& labels, std::int64_t rows,
                      std::uint64_t seed, const std::string& owner, const std::string& what) {
  const Index n = X.rows;
  if (rows > n)
    throw UserError("problem " + owner + ": rows = " + std::to_string(rows) + " but " + what + " has " +
                    std::to_string(n) + "; lower rows (0: all)");
  if (rows == 0 || rows == n) return;
  const auto kept = datasets::split_rows(n, static_cast<double>(n - rows) / static_cast<double>(n), 0,
                                         mix64(seed ^ hash_name("rows"))).train;
  std::vector<double> kept_labels;
  for (Index r : kept) kept_labels.push_back(labels[r]);
  X = datasets::take_rows(X, kept);
  labels = std::move(kept_labels);
}

void store_in_order(datasets::CsrMatrix& X, std::vector<double>& labels,
                    std::initializer_list<datasets::Partition*> parts, std::vector<Index>* tail) {
  std::vector<Index> order;
  const auto renumber = [&](std::vector<Index>& rows) {
    for (Index& r : rows) {
      order.push_back(r);
      r = static_cast<Index>(order.size()) - 1;
    }
  };
  for (auto* part : parts)
    for (auto& rows : *part) renumber(rows);
  if (tail) renumber(*tail);
  X = datasets::take_rows(X, order);
  std::vector<double> reordered;
  for (Index r : order) reordered.push_back(labels[r]);
  labels = std::move(reordered);
}

datasets::Partition spread_over_clients(const std::vector<Index>& rows, const std::vector<double>& labels,
                                        int clients, const datasets::PartitionScheme& scheme, std::uint64_t seed) {
  std::vector<double> set_labels;
  for (Index r : rows) set_labels.push_back(labels[r]);
  datasets::Partition parts = datasets::partition_rows(set_labels, clients, scheme, seed);
  for (auto& part : parts)
    for (Index& j : part) j = rows[j];
  return parts;
}

ClientSplit split_over_clients(const ClientSplitRequest& r) {
  const auto& info = datasets::dataset_info(r.dataset);
  if (info.classes < 2)
    throw UserError("problem " + r.owner + ": dataset " + r.dataset + " is not labelled; choose a classification set");
  auto data = datasets::load_data(r.dataset, r.file);
  ClientSplit out;
  out.classes = info.classes;
  out.images = info.format == "idx";
  keep_random_rows(data.X, data.labels, r.rows, r.seed, r.owner, r.dataset + " (" + r.file + ")");
  out.X = std::move(data.X);
  // Class ids 0..C-1 in the registry's encoding order (binary: -1 -> 0, +1 -> 1).
  std::vector<double> mapped = info.labels.mapped;
  std::sort(mapped.begin(), mapped.end());
  for (double l : data.labels)
    out.labels.push_back(static_cast<double>(std::lower_bound(mapped.begin(), mapped.end(), l) - mapped.begin()));
  const auto split = datasets::split_rows(out.X.rows, r.test_fraction, r.validation_fraction * (1 - r.test_fraction),
                                          r.seed);
  if (static_cast<Index>(split.train.size()) < r.clients || static_cast<Index>(split.validation.size()) < r.clients)
    throw UserError("problem " + r.owner + ": " + std::to_string(split.train.size()) + " training and " +
                    std::to_string(split.validation.size()) + " validation rows cannot give each of " +
                    std::to_string(r.clients) + " clients a row; lower clients or raise rows");
  const auto scheme = datasets::PartitionScheme::parse(r.partition);
  out.train = spread_over_clients(split.train, out.labels, r.clients, scheme, r.seed);
  out.validation = spread_over_clients(split.validation, out.labels, r.clients, scheme, r.seed + 1);
  out.test_rows = split.test;
  store_in_order(out.X, out.labels, {&out.train, &out.validation}, &out.test_rows);
  return out;
}

void write_client_split(InstanceWriter& out, const ClientSplit& data) {
  write_rows(out, "X", data.X, data.images,
             "every row a_j of the file kept: the clients' training rows, their validation rows, then the test rows");
  write_labels(out, "labels", data.labels, "class id b_j in 0..C-1 of every row of X (binary data: 0 = -1, 1 = +1)");
  write_client_rows(out, "train_rows", data.train, "the client's lower-level (training) rows of X");
  write_client_rows(out, "validation_rows", data.validation, "the client's upper-level (validation) rows of X");
  out.indices("test_rows", data.test_rows, "the test rows of X (held out from every client)");
}

}  // namespace fedbench::problems
