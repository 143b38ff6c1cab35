// Iteration over a minibatch of a client that holds rows of a shared data matrix: the full
// local batch when `samples` is empty, else the listed positions (repeats allowed).
#pragma once
#include <span>
#include <vector>

#include "core/types.hpp"

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

}  // namespace fedbench::problems
