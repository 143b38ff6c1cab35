#include "datasets/train_test.hpp"

#include <algorithm>

#include "datasets/partition.hpp"
#include "datasets/registry.hpp"

namespace fedbench::datasets {

CsrMatrix take_rows(const CsrMatrix& X, const std::vector<Index>& rows) {
  CsrMatrix out;
  out.cols = X.cols;
  for (Index r : rows) {
    out.col.insert(out.col.end(), X.col.begin() + X.row_start[r], X.col.begin() + X.row_start[r + 1]);
    out.val.insert(out.val.end(), X.val.begin() + X.row_start[r], X.val.begin() + X.row_start[r + 1]);
    out.row_start.push_back(static_cast<std::int32_t>(out.val.size()));
    ++out.rows;
  }
  return out;
}

TrainTest load_train_test(const std::string& name, double test_fraction, std::uint64_t seed) {
  const DatasetInfo& info = dataset_info(name);
  std::vector<double> mapped = info.labels.mapped;
  std::sort(mapped.begin(), mapped.end());
  auto class_ids = [&](std::vector<double>& labels) {
    for (double& l : labels)
      l = static_cast<double>(std::lower_bound(mapped.begin(), mapped.end(), l) - mapped.begin());
  };
  TrainTest out;
  out.classes = info.classes;
  LabeledData train = load_data(name, "train");
  const bool test_file = std::any_of(info.files.begin(), info.files.end(), [](const DatasetFile& f) {
    return (f.role == "test" || f.role == "test-images") && find_file(f);
  });
  if (test_file) {
    LabeledData test = load_data(name, "test");
    out.train_X = std::move(train.X);
    out.train_y = std::move(train.labels);
    out.test_X = std::move(test.X);
    out.test_y = std::move(test.labels);
  } else if (test_fraction > 0) {
    const Split split = split_rows(train.X.rows, test_fraction, 0, seed);
    out.train_X = take_rows(train.X, split.train);
    out.test_X = take_rows(train.X, split.test);
    for (Index r : split.train) out.train_y.push_back(train.labels[r]);
    for (Index r : split.test) out.test_y.push_back(train.labels[r]);
  } else {
    out.train_X = std::move(train.X);
    out.train_y = std::move(train.labels);
  }
  class_ids(out.train_y);
  class_ids(out.test_y);
  out.train_X.cols = out.test_X.cols = std::max(out.train_X.cols, out.test_X.cols);
  return out;
}

}  // namespace fedbench::datasets
