// The data of the bilevel classification problems: rows of one file, a seeded subsample,
// class ids, a seeded test / validation (upper level) / training (lower level) split, each
// set spread over the clients by the partitioner, and the rows stored client by client so
// that full local batches stream through memory.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "datasets/libsvm.hpp"
#include "datasets/partition.hpp"
#include "problem/instance_writer.hpp"
#include "problem/problem.hpp"

namespace fedbench::problems {

//! Keeps `rows` seeded random rows of (X, labels); 0 or all rows keeps everything. The
//! error names `owner` (a problem) and `what` (the file the rows come from).
void keep_random_rows(datasets::CsrMatrix& X, std::vector<double>& labels, std::int64_t rows,
                      std::uint64_t seed, const std::string& owner, const std::string& what);

//! Reorders X and labels as the rows of parts[0]'s clients in turn, then parts[1]'s, ..., then
//! `tail`, and renumbers those lists to the new positions (rows not listed are dropped).
void store_in_order(datasets::CsrMatrix& X, std::vector<double>& labels,
                    std::initializer_list<datasets::Partition*> parts, std::vector<Index>* tail = nullptr);

//! Spreads a set of rows over the clients by their labels (each part: rows of the set), every
//! row kept (`contiguous` blocks differ by at most one row).
datasets::Partition spread_over_clients(const std::vector<Index>& rows, const std::vector<double>& labels,
                                        int clients, const datasets::PartitionScheme& scheme, std::uint64_t seed);

struct ClientSplitRequest {
  std::string owner;  //!< the problem's name, for error messages
  std::string dataset, file, partition;
  std::int64_t rows = 0;  //!< 0: all rows of the file
  double test_fraction = 0, validation_fraction = 0;  //!< validation: of the non-test rows
  int clients = 1;
  std::uint64_t seed = 0;
  //! Explicit splits: upper-level / test rows from another file of the dataset (a role) or a
  //! LIBSVM path (then the main file's non-test rows are all training rows), and `ranges`
  //! "train=A:B,validation=C:D,test=E:F" naming rows of the main file in file order.
  std::string validation_file, test_file, ranges;
};

struct ClientSplit {
  datasets::CsrMatrix X;
  std::vector<double> labels;  //!< class id 0..C-1 of every row (registry encoding order)
  int classes = 0;
  datasets::Partition train, validation;  //!< per client: rows of X, stored contiguously
  std::vector<Index> test_rows;           //!< after all client rows
  bool images = false;                    //!< image data (IDX): `fedbench instance` writes X dense

  static std::vector<Index> sizes(const datasets::Partition& parts) {
    std::vector<Index> out;
    for (const auto& rows : parts) out.push_back(static_cast<Index>(rows.size()));
    return out;
  }
};

//! The request of a problem whose parameters carry the request's fields under their names.
template <class Params>
ClientSplitRequest split_request(const std::string& owner, const Params& p) {
  return {.owner = owner, .dataset = p.dataset, .file = p.file, .partition = p.partition, .rows = p.rows,
          .test_fraction = p.test_fraction, .validation_fraction = p.validation_fraction, .clients = p.clients,
          .seed = static_cast<std::uint64_t>(p.partition_seed), .validation_file = {}, .test_file = {}, .ranges = {}};
}

//! One file of a labelled dataset split as the header says; throws UserError naming the
//! owner for an unlabelled dataset or when a client would get no training or validation row.
ClientSplit split_over_clients(const ClientSplitRequest& request);

//! Rows of a set over all clients.
Index total_rows(const datasets::Partition& parts);
//! The constants that state how many rows an instance uses: train_rows (lower level),
//! validation_rows (upper level) and test_rows.
void set_row_constants(Constants& k, const datasets::Partition& train, const datasets::Partition& validation,
                       Index test_rows);

//! Writes X, the class ids, test_rows and every client's train_rows and validation_rows.
void write_client_split(InstanceWriter& out, const ClientSplit& data);

}  // namespace fedbench::problems
