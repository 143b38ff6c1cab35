#include "suite/export_csv.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/trajectory_file.hpp"
#include "suite/results_store.hpp"

namespace fedbench::suite {

namespace {
// RFC 4180 quoting, only where needed.
std::string cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

long long export_csv(const std::string& results_dir, std::ostream& out) {
  const ResultsStore store(results_dir);
  const auto files = store.finished_files();
  if (files.empty())
    throw UserError("no finished runs under " + results_dir + "/runs; run a suite into it first");
  std::vector<io::StoredRun> runs;
  std::set<std::string> problem_keys, solver_keys;
  std::vector<std::string> columns;  // trajectory columns, first-seen order
  for (const auto& f : files) {
    runs.push_back(io::read_trajectory(f));
    for (const auto& [k, v] : runs.back().problem_params) problem_keys.insert(k);
    for (const auto& [k, v] : runs.back().solver_params) solver_keys.insert(k);
    for (const auto& c : runs.back().column_names)
      if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
  }
  out << "id,status,problem";
  for (const auto& k : problem_keys) out << ",problem." << k;
  out << ",solver";
  for (const auto& k : solver_keys) out << ",solver." << k;
  out << ",seed";
  for (const auto& c : columns) out << "," << c;
  out << "\n";
  long long rows = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    std::string prefix = std::filesystem::path(files[i]).stem().string() + "," +
                         cell(r.text.at("status")) + "," + cell(r.text.at("problem"));
    for (const auto& k : problem_keys) {
      auto it = r.problem_params.find(k);
      prefix += "," + (it == r.problem_params.end() ? std::string() : cell(it->second));
    }
    prefix += "," + cell(r.text.at("solver"));
    for (const auto& k : solver_keys) {
      auto it = r.solver_params.find(k);
      prefix += "," + (it == r.solver_params.end() ? std::string() : cell(it->second));
    }
    prefix += "," + std::to_string(static_cast<unsigned long long>(r.numbers.at("seed")));
    for (std::size_t row = 0; row < r.num_rows(); ++row) {
      out << prefix;
      for (const auto& c : columns) {
        auto it = r.columns.find(c);
        out << ",";
        if (it != r.columns.end()) out << format_real(it->second[row]);
      }
      out << "\n";
      ++rows;
    }
  }
  return rows;
}

}  // namespace fedbench::suite
