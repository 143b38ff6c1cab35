// The message layer's accounting. A solver's Down (server -> client) and Up (client -> server)
// structs list their fields once, in `auto fields() const { return std::tie(a, b); }`; the
// engine counts every broadcast and upload through them. Reals count as floats (8 bytes each);
// integers and flags count bytes only (a coin or a step count is control, not payload).
#pragma once
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/types.hpp"

namespace fedbench {

struct MessageSize {
  std::int64_t floats = 0;
  std::int64_t bytes = 0;
  MessageSize& operator+=(const MessageSize& o) {
    floats += o.floats;
    bytes += o.bytes;
    return *this;
  }
};

//! A vector sent in some messages only (one stage of a two-stage method): counted only when
//! `sent`; the buffer is kept between messages, so switching costs no allocation.
struct OptionalVec {
  Vec value;
  bool sent = false;
};

namespace detail {
inline MessageSize field_size(const Vec& v) { return {v.size(), 8 * v.size()}; }
inline MessageSize field_size(double) { return {1, 8}; }
inline MessageSize field_size(bool) { return {0, 1}; }
template <class I>
  requires std::is_integral_v<I>
MessageSize field_size(I) {
  return {0, static_cast<std::int64_t>(sizeof(I))};
}
inline MessageSize field_size(const OptionalVec& v) {
  return v.sent ? field_size(v.value) : MessageSize{};
}
template <class T>
MessageSize field_size(const std::vector<T>& items) {
  MessageSize s;
  for (const auto& x : items) s += field_size(x);
  return s;
}
}  // namespace detail

//! Size of one message: the sum over the fields it lists.
template <class Message>
MessageSize message_size(const Message& m) {
  MessageSize total;
  std::apply([&](const auto&... f) { ((total += detail::field_size(f)), ...); }, m.fields());
  return total;
}

}  // namespace fedbench
