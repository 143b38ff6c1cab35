// Splits of a dataset's rows: seeded train/validation/test splits and partitioners over
// clients. A client holds a list of row indices into the one shared matrix, never a copy.
//   iid            shuffle, cut into near-equal parts
//   shards:S       sort by label, cut into M*S equal shards, deal S random shards per client
//                  (S = 1 with 500 clients is the one-class-per-client split of J. Xie et al.,
//                  arXiv 2105.14216, 2021, Section 5.1)
//   dirichlet:A    label skew: each class spread over clients by proportions ~ Dir(A)
//   quantity:A     quantity skew: client sizes ~ Dir(A) (labels iid)
// Every row lands in exactly one client; a client left empty takes one row from the largest.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace fedbench::datasets {

struct PartitionScheme {
  enum class Kind { iid, shards, dirichlet, quantity, contiguous } kind = Kind::iid;
  double value = 0;  //!< S for shards, alpha for dirichlet / quantity
  //! "iid", "shards:2", "dirichlet:0.5", "quantity:1", "contiguous" (blocks in file
  //! order, every row kept: the first n mod M clients hold one row more); throws UserError naming the forms.
  static PartitionScheme parse(const std::string& text);
  std::string to_text() const;
};

using Partition = std::vector<std::vector<Index>>;

Partition partition_rows(const std::vector<double>& labels, int clients,
                         const PartitionScheme& scheme, std::uint64_t seed);

//! Rows of a split: a seeded permutation cut by fractions (test, validation; rest = train).
struct Split {
  std::vector<Index> train, validation, test;
};
Split split_rows(Index rows, double test_fraction, double validation_fraction, std::uint64_t seed);

//! Label histogram of every client (classes = sorted distinct labels), for reports and files.
std::vector<std::vector<Index>> label_histograms(const Partition& p, const std::vector<double>& labels,
                                                 std::vector<double>& classes);

}  // namespace fedbench::datasets
