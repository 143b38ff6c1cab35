#include "suite/results_store.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "io/trajectory_file.hpp"

namespace fedbench::suite {

namespace fs = std::filesystem;

std::string to_string(RunState s) {
  switch (s) {
    case RunState::fresh: return "new";
    case RunState::partial: return "partial";
    case RunState::done: return "done";
  }
  return "?";
}

RunState ResultsStore::state(const std::string& id) const {
  std::error_code ec;
  if (fs::exists(run_file(id), ec)) return RunState::done;
  if (fs::exists(run_file(id) + ".part", ec)) return RunState::partial;
  return RunState::fresh;
}

void ResultsStore::ensure_exists() const {
  std::error_code ec;
  fs::create_directories(dir_ + "/runs", ec);
  if (ec) throw UserError("cannot create results directory " + dir_ + "/runs: " + ec.message());
}

std::vector<std::string> ResultsStore::finished_files() const {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir_ + "/runs", ec)) return out;
  for (const auto& e : fs::directory_iterator(dir_ + "/runs"))
    if (e.path().extension() == ".h5") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

void ResultsStore::write_manifest() const {
  const std::string path = dir_ + "/manifest.tsv", tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << "id\tstatus\tstop_reason\trounds\tproblem\tproblem_params\tsolver\tsolver_params\tseed"
           "\tfile\n";
    for (const auto& file : finished_files()) {
      const io::StoredRun r = io::read_trajectory(file);
      auto params = [](const std::map<std::string, std::string>& m) {
        std::string s;
        for (const auto& [k, v] : m) s += (s.empty() ? "" : " ") + k + "=" + v;
        return s;
      };
      const std::string id = fs::path(file).stem().string();
      out << id << '\t' << r.text.at("status") << '\t' << r.text.at("stop_reason") << '\t'
          << static_cast<long long>(r.numbers.at("rounds")) << '\t' << r.text.at("problem") << '\t'
          << params(r.problem_params) << '\t' << r.text.at("solver") << '\t'
          << params(r.solver_params) << '\t' << static_cast<unsigned long long>(r.numbers.at("seed"))
          << '\t' << "runs/" << id << ".h5\n";
    }
    if (!out) throw UserError("cannot write " + tmp + " (disk full?)");
  }
  fs::rename(tmp, path);
}

}  // namespace fedbench::suite
