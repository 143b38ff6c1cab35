// Small text helpers shared by parameter parsing, registries and messages.
#pragma once
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace fedbench {

//! Shortest text that parses back to exactly the same double (canonical configs, hashing).
std::string format_real(double v);
//! `message` if it names `file`, else "FILE: message".
std::string naming(const std::string& file, const std::string& message);
//! Parses a whole string as a double; false if anything is left over or it is not a number.
bool parse_real(std::string_view text, double& out);
bool parse_int(std::string_view text, long long& out);
//! A whole number as fedbench reads it everywhere (options, suite and experiment files, -p/-s
//! values, seeds, participation counts): digits with an optional sign (5, +5, -3, 007), or a
//! decimal or exponent form whose value is whole (1e5, 2.0, 1.5e3), below 2^63 in magnitude.
//! Not hexadecimal, not with spaces. False for anything else.
bool parse_whole_number(std::string_view text, long long& out);
//! The largest seed a file or option may give.
inline constexpr long long kMaxSeed = std::numeric_limits<long long>::max();
//! The one refusal of a whole number: "WHAT = 'TEXT' is not a whole number from MIN to MAX"
//! (bounds as 9e18 where they are round), the text printable.
std::string not_a_whole_number(const std::string& what, std::string_view text, long long min, long long max);
std::string join(const std::vector<std::string>& items, std::string_view sep);
std::vector<std::string> split(std::string_view text, char sep);
std::size_t edit_distance(std::string_view a, std::string_view b);
//! " (did you mean 'x'?)" for the closest candidate within a small edit distance, else "".
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

//! `text` on one line for a message: at most `max` bytes, every byte that is not printable ASCII
//! (and the backslash) as \xNN, "..." when cut.
std::string printable(std::string_view text, std::size_t max = 40);
//! `text` double-quoted on one line for a message, as a JSON string literal: quotes, backslashes
//! and control characters escaped, bytes that are not UTF-8 as U+FFFD (docs/usage.md).
std::string json_literal(const std::string& text);

}  // namespace fedbench
