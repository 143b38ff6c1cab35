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

void hold_out(TrainTest& data, double test_fraction, std::uint64_t seed) {
  const Split split = split_rows(data.train_X.rows, test_fraction, 0, seed);
  data.test_X = take_rows(data.train_X, split.test);
  data.test_y.clear();
  for (Index r : split.test) data.test_y.push_back(data.train_y[r]);
  CsrMatrix train_X = take_rows(data.train_X, split.train);
  std::vector<double> train_y;
  for (Index r : split.train) train_y.push_back(data.train_y[r]);
  data.train_X = std::move(train_X);
  data.train_y = std::move(train_y);
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
  } else {
    out.train_X = std::move(train.X);
    out.train_y = std::move(train.labels);
    if (test_fraction > 0) hold_out(out, test_fraction, seed);
  }
  class_ids(out.train_y);
  class_ids(out.test_y);
  out.train_X.cols = out.test_X.cols = std::max(out.train_X.cols, out.test_X.cols);
  return out;
}

}  // namespace fedbench::datasets
