// Oracle call counters. They are incremented only inside the problem layer's public,
// non-virtual oracle methods (problem/minimax_problem.hpp), where each call is served, so no
// solver can under-report. One OracleCounts per client per run; the engine owns the ledger
// and hands solvers a ClientOracle that can call oracles but never touch counts.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace fedbench {

enum class OracleKind : int {
  grad_x = 0,  //!< gradient in the min variable x (an operator call counts one of each)
  grad_y,      //!< gradient in the max variable y
  value,       //!< objective value
  hvp,         //!< Hessian-vector product (bilevel problems)
  jvp,         //!< mixed second-derivative (Jacobian-vector) product (bilevel problems)
};
inline constexpr int kOracleKinds = 5;
inline constexpr std::array<std::string_view, kOracleKinds> kOracleKindNames = {
    "grad_x_calls", "grad_y_calls", "value_calls", "hvp_calls", "jvp_calls"};

struct alignas(64) OracleCounts {  // one cache line each: clients run on different threads
  std::array<std::int64_t, kOracleKinds> calls{};
  std::int64_t samples = 0;  //!< component functions evaluated (a full local pass counts m_i)

  std::int64_t operator[](OracleKind k) const { return calls[static_cast<int>(k)]; }
  void add(OracleKind k, std::int64_t n_samples) {
    ++calls[static_cast<int>(k)];
    samples += n_samples;
  }
  OracleCounts& operator+=(const OracleCounts& o) {
    for (int k = 0; k < kOracleKinds; ++k) calls[k] += o.calls[k];
    samples += o.samples;
    return *this;
  }
  OracleCounts& operator-=(const OracleCounts& o) {
    for (int k = 0; k < kOracleKinds; ++k) calls[k] -= o.calls[k];
    samples -= o.samples;
    return *this;
  }
};

//! Per-client counters of one run.
class OracleLedger {
 public:
  explicit OracleLedger(int num_clients = 0) : per_client_(num_clients) {}
  OracleCounts& client(int i) { return per_client_[i]; }
  const OracleCounts& client(int i) const { return per_client_[i]; }
  int num_clients() const { return static_cast<int>(per_client_.size()); }
  OracleCounts total() const {
    OracleCounts t;
    for (const auto& c : per_client_) t += c;
    return t;
  }
  const std::vector<OracleCounts>& per_client() const { return per_client_; }
  //! The per-client counts, handed over without a copy (the ledger is empty after).
  std::vector<OracleCounts> release() && { return std::move(per_client_); }

 private:
  std::vector<OracleCounts> per_client_;
};

}  // namespace fedbench
