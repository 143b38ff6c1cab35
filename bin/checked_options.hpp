// Command-line values with the limits of the suite files: an integer option is a whole number in
// a stated range (names that become file names: core/safe_name.hpp). A value outside is refused while the command line is parsed (one line naming the option and
// what it takes, exit 2), before any work.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace fedbench::cli {

//! The most rounds, sample gradients, bytes or rounds between evaluations (as in suite files).
inline constexpr std::int64_t kMaxWholeNumber = 9'000'000'000'000'000'000;

//! `text` as a whole number from `min` to `max` by fedbench's one rule (parse_whole_number:
//! digits with an optional sign, or real notation that is whole, 1e6). Otherwise
//! CLI::ValidationError "OPTION = 'TEXT' is not a whole number from MIN to MAX" (then "; HINT").
std::int64_t whole_number_value(const std::string& option, const std::string& text, std::int64_t min,
                                std::int64_t max, const std::string& hint = "");

//! Adds the option `names` ("--rounds", "-j,--jobs") storing into `target` a whole number from
//! `min` to `max` (both within T's range); `target` keeps its value when the option is not given.
template <class T>
CLI::Option* add_whole_number(CLI::App* app, const std::string& names, T& target, const std::string& help,
                              std::int64_t min, std::int64_t max, const std::string& hint = "") {
  static_assert(std::is_integral_v<T> && std::is_signed_v<T>, "a signed integer option");
  if (min > max || min < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
      max > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
    throw std::logic_error("add_whole_number: the range of " + names + " does not fit its type");
  const std::string option = names.substr(names.find_last_of(',') + 1);  // the long name
  return app
      ->add_option_function<std::string>(
          names,
          [&target, option, min, max, hint](const std::string& text) {
            target = static_cast<T>(whole_number_value(option, text, min, max, hint));
          },
          help)
      ->type_name("INT");
}

//! `text` as a finite number > 0 (seconds, factors): nan, inf, an empty value, 0 and negative
//! numbers are refused with CLI::ValidationError "OPTION = 'TEXT' is not a number > 0 (WHAT)".
double positive_real_value(const std::string& option, const std::string& text, const std::string& what);

//! Adds the option `names` storing into `target` a finite number > 0; `target` keeps its value
//! when the option is not given.
inline CLI::Option* add_positive_real(CLI::App* app, const std::string& names, double& target,
                                      const std::string& help, const std::string& what) {
  const std::string option = names.substr(names.find_last_of(',') + 1);
  return app
      ->add_option_function<std::string>(
          names, [&target, option, what](const std::string& text) { target = positive_real_value(option, text, what); },
          help)
      ->type_name("REAL");
}

}  // namespace fedbench::cli
