#include "problems/common/client_split.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "datasets/registry.hpp"
#include "datasets/train_test.hpp"
#include "problems/common/client_rows.hpp"
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

namespace {

//! Rows of another file of the dataset (a role such as "validation") or of a LIBSVM path.
datasets::LabeledData load_other_file(const datasets::DatasetInfo& info, const std::string& file,
                                      const std::string& owner) {
  std::error_code ec;
  const bool is_role = std::any_of(info.files.begin(), info.files.end(),
                                   [&](const datasets::DatasetFile& f) { return f.role == file; });
  if (is_role) return datasets::load_data(info.name, file);
  if (!std::filesystem::is_regular_file(file, ec))
    throw UserError("problem " + owner + ": '" + file + "' is neither a file of dataset " + info.name +
                    " (fedbench data list) nor a readable LIBSVM path");
  if (info.format != "libsvm")
    throw UserError("problem " + owner + ": a path for dataset " + info.name + " must be LIBSVM; " + info.name +
                    " is " + info.format);
  auto data = datasets::read_libsvm(file, info.features, info.labels);
  return {std::move(data.X), std::move(data.labels), info.classes};
}

//! Appends the rows of b to a (same columns) and returns their new indices.
std::vector<Index> append_rows(datasets::CsrMatrix& a, std::vector<double>& labels, const datasets::CsrMatrix& b,
                               const std::vector<double>& b_labels) {
  std::vector<Index> added(static_cast<std::size_t>(b.rows));
  std::iota(added.begin(), added.end(), a.rows);
  const auto base = static_cast<std::int32_t>(a.val.size());
  for (Index r = 1; r <= b.rows; ++r) a.row_start.push_back(base + b.row_start[r]);
  a.col.insert(a.col.end(), b.col.begin(), b.col.end());
  a.val.insert(a.val.end(), b.val.begin(), b.val.end());
  a.rows += b.rows;
  labels.insert(labels.end(), b_labels.begin(), b_labels.end());
  return added;
}

//! "train=0:3000,validation=3000:4000,test=4000:4435": each named set's rows, checked against
//! the file's row count and for overlaps.
std::map<std::string, std::vector<Index>> parse_ranges(const std::string& text, Index rows, const std::string& owner) {
  const std::string usage = "; write ranges as train=A:B,validation=C:D[,test=E:F] (0-based rows, end excluded)";
  std::map<std::string, std::vector<Index>> out;
  std::vector<int> owner_of(static_cast<std::size_t>(rows), 0);
  for (const std::string& item : split(text, ',')) {
    const auto eq = item.find('='), colon = item.find(':');
    long long a = 0, b = 0;
    if (eq == std::string::npos || colon == std::string::npos || colon < eq ||
        !parse_int(item.substr(eq + 1, colon - eq - 1), a) || !parse_int(item.substr(colon + 1), b))
      throw UserError("problem " + owner + ": ranges item '" + item + "' is not NAME=A:B" + usage);
    const std::string name = item.substr(0, eq);
    if (name != "train" && name != "validation" && name != "test")
      throw UserError("problem " + owner + ": ranges names '" + name + "'; use train, validation or test" + usage);
    if (out.count(name)) throw UserError("problem " + owner + ": ranges names " + name + " twice" + usage);
    if (a < 0 || b <= a || b > rows)
      throw UserError("problem " + owner + ": ranges " + item + " must satisfy 0 <= A < B <= " +
                      std::to_string(rows) + " (the file's rows)");
    auto& set = out[name];
    for (long long r = a; r < b; ++r) {
      if (owner_of[static_cast<std::size_t>(r)]++)
        throw UserError("problem " + owner + ": ranges overlap at row " + std::to_string(r) + usage);
      set.push_back(static_cast<Index>(r));
    }
  }
  return out;
}

}  // namespace

ClientSplit split_over_clients(const ClientSplitRequest& r) {
  const auto& info = datasets::dataset_info(r.dataset);
  if (info.classes < 2)
    throw UserError("problem " + r.owner + ": dataset " + r.dataset + " is not labelled; choose a classification set");
  auto data = datasets::load_data(r.dataset, r.file);
  ClientSplit out;
  out.classes = info.classes;
  out.images = info.format == "idx";
  if (!r.ranges.empty() && r.rows != 0)
    throw UserError("problem " + r.owner + ": ranges name rows of the file in order; drop rows (or ranges)");
  keep_random_rows(data.X, data.labels, r.rows, r.seed, r.owner, r.dataset + " (" + r.file + ")");
  out.X = std::move(data.X);
  // Class ids 0..C-1 in the registry's encoding order (binary: -1 -> 0, +1 -> 1).
  std::vector<double> mapped = info.labels.mapped;
  std::sort(mapped.begin(), mapped.end());
  const auto class_ids = [&](const std::vector<double>& labels) {
    std::vector<double> ids;
    for (double l : labels)
      ids.push_back(static_cast<double>(std::lower_bound(mapped.begin(), mapped.end(), l) - mapped.begin()));
    return ids;
  };
  out.labels = class_ids(data.labels);

  std::vector<Index> train, validation, test;
  if (!r.ranges.empty()) {
    auto sets = parse_ranges(r.ranges, out.X.rows, r.owner);
    if (!sets.count("train") || (!sets.count("validation") && r.validation_file.empty()))
      throw UserError("problem " + r.owner + ": ranges need train=A:B and validation=C:D (or validation_file)");
    if (sets.count("validation") && !r.validation_file.empty())
      throw UserError("problem " + r.owner + ": validation rows come from ranges or validation_file, not both");
    if (sets.count("test") && !r.test_file.empty())
      throw UserError("problem " + r.owner + ": test rows come from ranges or test_file, not both");
    train = sets["train"], validation = sets["validation"], test = sets["test"];
  } else {
    // Seeded fractions of the main file; a set taken from another file takes none of them.
    const double test_fraction = r.test_file.empty() ? r.test_fraction : 0.0;
    const double validation_fraction = r.validation_file.empty() ? r.validation_fraction * (1 - test_fraction) : 0.0;
    auto split = datasets::split_rows(out.X.rows, test_fraction, validation_fraction, r.seed);
    train = std::move(split.train), validation = std::move(split.validation), test = std::move(split.test);
  }
  if (!r.validation_file.empty()) {
    auto other = load_other_file(info, r.validation_file, r.owner);
    validation = append_rows(out.X, out.labels, other.X, class_ids(other.labels));
  }
  if (!r.test_file.empty()) {
    auto other = load_other_file(info, r.test_file, r.owner);
    test = append_rows(out.X, out.labels, other.X, class_ids(other.labels));
  }
  if (static_cast<Index>(train.size()) < r.clients || static_cast<Index>(validation.size()) < r.clients)
    throw UserError("problem " + r.owner + ": " + std::to_string(train.size()) + " training and " +
                    std::to_string(validation.size()) + " validation rows cannot give each of " +
                    std::to_string(r.clients) + " clients a row; lower clients or raise rows");
  const auto scheme = datasets::PartitionScheme::parse(r.partition);
  out.train = spread_over_clients(train, out.labels, r.clients, scheme, r.seed);
  out.validation = spread_over_clients(validation, out.labels, r.clients, scheme, r.seed + 1);
  out.test_rows = test;
  store_in_order(out.X, out.labels, {&out.train, &out.validation}, &out.test_rows);
  return out;
}

Index total_rows(const datasets::Partition& parts) {
  Index n = 0;
  for (const auto& rows : parts) n += static_cast<Index>(rows.size());
  return n;
}

void set_row_constants(Constants& k, const datasets::Partition& train, const datasets::Partition& validation,
                       Index test_rows) {
  k.set(Constant::train_rows, static_cast<double>(total_rows(train)), "lower-level rows over all clients");
  k.set(Constant::validation_rows, static_cast<double>(total_rows(validation)), "upper-level rows over all clients");
  k.set(Constant::test_rows, static_cast<double>(test_rows), "held-out test rows");
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
