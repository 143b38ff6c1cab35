// The labelled data a classification problem trains and tests on: the dataset's train file,
// and its test file when one is present, else a seeded held-out fraction of the train rows.
// Labels are class ids 0..C-1 in the order of the registry's encoding (binary data: 0 is the
// negative class, 1 the positive one).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/libsvm.hpp"

namespace fedbench::datasets {

struct TrainTest {
  CsrMatrix train_X, test_X;  //!< same column count; test_X has 0 rows without a test set
  std::vector<double> train_y, test_y;
  int classes = 0;
};

//! test_fraction is used only when the dataset has no test file present (0: no test set).
TrainTest load_train_test(const std::string& name, double test_fraction, std::uint64_t seed);

//! Moves a seeded `test_fraction` of the train rows into the (empty) test set.
void hold_out(TrainTest& data, double test_fraction, std::uint64_t seed);

//! The listed rows of a CSR matrix, in order.
CsrMatrix take_rows(const CsrMatrix& X, const std::vector<Index>& rows);

}  // namespace fedbench::datasets
