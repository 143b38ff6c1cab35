#include "results/run_identity.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "suite/suite.hpp"

namespace fedbench::suite {

bool is_run_id(std::string_view name) {
  if (name.size() != 16) return false;
  for (const char c : name)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

namespace {

// The identity text without its trailing implementation versions (which the configuration
// text does not carry), as lines.
std::vector<std::string> identity_config_lines(const std::string& identity) {
  std::string text = identity;
  const auto versions = text.rfind("\nversions:\n");
  if (versions != std::string::npos) text.erase(versions + 1);
  return split(text, '\n');
}

// "    key: value" inside the solver's parameters: where a preset may have become a number.
bool preset_resolved(const std::string& identity_line, const std::string& config_line) {
  const auto colon = identity_line.find(": ");
  if (identity_line.rfind("    ", 0) != 0 || colon == std::string::npos) return false;
  if (config_line.compare(0, colon + 2, identity_line, 0, colon + 2) != 0) return false;
  double as_asked = 0, resolved = 0;
  return !parse_real(identity_line.substr(colon + 2), as_asked) &&
         parse_real(config_line.substr(colon + 2), resolved);
}

// Why the stored configuration is not the identity's ("" when it agrees).
std::string config_disagreement(const std::string& identity, const std::string& config) {
  const auto expected = identity_config_lines(identity), stored = split(config, '\n');
  if (expected.size() != stored.size()) return "its stored configuration has another layout than its identity";
  bool in_solver_params = false;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == "solver:") in_solver_params = false;
    if (expected[i] == "  params:" && i > 0 && expected[i - 1].rfind("  name: ", 0) == 0 && i > 1 &&
        expected[i - 2] == "solver:")
      in_solver_params = true;
    if (expected[i] == "federation:") in_solver_params = false;
    if (expected[i] == stored[i]) continue;
    if (in_solver_params && preset_resolved(expected[i], stored[i])) continue;
    return "its stored configuration differs from its identity at line " + std::to_string(i + 1) + " ('" +
           stored[i] + "' where the identity has '" + expected[i] + "')";
  }
  return "";
}

// The seed the identity text records.
bool identity_seed(const std::string& identity, std::uint64_t& seed) {
  for (const auto& line : split(identity, '\n'))
    if (line.rfind("seed: ", 0) == 0) {
      try {
        std::size_t used = 0;
        seed = std::stoull(line.substr(6), &used);
        return used == line.size() - 6;
      } catch (const std::exception&) {
        return false;
      }
    }
  return false;
}

}  // namespace

std::string identity_mismatch(const std::string& id, const std::string& identity, const std::string& config,
                              double seed) {
  if (!is_run_id(id)) return "its name is not a run id (16 hexadecimal digits): a copy or a foreign file";
  if (identity.empty())
    return "it records no run identity (written by fedbench before run identities were stored); rerun its suite";
  if (run_id(identity) != id)
    return "its stored identity hashes to " + run_id(identity) + ", not to its name: a copy of another run, or "
           "a changed byte";
  std::uint64_t expected_seed = 0;
  if (!identity_seed(identity, expected_seed) || static_cast<double>(expected_seed) != seed)
    return "its root seed attribute is not the seed of its identity";
  return config_disagreement(identity, config);
}

}  // namespace fedbench::suite
