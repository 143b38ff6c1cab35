// Clients that hold rows of a shared data matrix: the split of the rows over the clients
// (every row kept), iteration over a minibatch (the full local batch when `samples` is empty,
// else the listed positions, repeats allowed) and the label histograms stored with every run.
#pragma once
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "datasets/partition.hpp"
#include "problem/minimax_problem.hpp"

namespace fedbench::problems {

//! Calls fn(row) for every row of the batch; returns the batch size.
template <class Fn>
Index for_each_row(const std::vector<Index>& client_rows, std::span<const Index> samples, Fn&& fn) {
  if (samples.empty()) {
    for (Index row : client_rows) fn(row);
    return static_cast<Index>(client_rows.size());
  }
  for (Index j : samples) fn(client_rows[j]);
  return static_cast<Index>(samples.size());
}

//! sum / n in place: a minibatch mean from its sum. x / 1 is x to the bit, so one sample
//! skips the division pass over the dense vector (at batch 1 it cost more than the row).
inline void sum_to_mean(Vec& sum, Index n) {
  if (n != 1) sum /= static_cast<double>(n);
}

//! The label histogram of every client of a partition, as stored in run files.
inline ClientLabels client_label_histograms(const datasets::Partition& clients,
                                            const std::vector<double>& labels) {
  ClientLabels out;
  for (const auto& row : datasets::label_histograms(clients, labels, out.classes))
    out.counts.emplace_back(row.begin(), row.end());
  return out;
}

}  // namespace fedbench::problems
