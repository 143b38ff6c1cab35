#include "results/results_store.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/provenance.hpp"
#include "io/durable_rename.hpp"
#include "io/new_file.hpp"
#include "io/screen/run_file_screen.hpp"
#include "io/trajectory_file.hpp"
#include "results/run_claim.hpp"

namespace fedbench::suite {

namespace fs = std::filesystem;

std::string to_string(RunState s) {
  switch (s) {
    case RunState::fresh: return "new";
    case RunState::partial: return "partial";
    case RunState::done: return "done";
    case RunState::stale: return "stale";
    case RunState::corrupt: return "corrupt";
  }
  return "?";
}

namespace {

// Reads a run file whole; UserError unless it is a finished run.
io::StoredRun read_finished_run(const std::string& path) {
  io::StoredRun run = io::read_trajectory_screened(path);
  const auto status = run.text.find("status");
  if (status == run.text.end() || status->second == "running")
    throw UserError(path + ": the run's end was never written");
  return run;
}

// What a run file's configuration must share with the identity text its name stands for:
// the problem block, the solver's name and the seed (solver parameters given as presets are
// resolved to numbers when the run starts, so they differ in form).
std::string configuration_key(const std::string& text) {
  std::string key;
  bool in_problem = true, solver_name_next = false;
  for (const auto& line : split(text, '\n')) {
    if (line == "solver:") {
      in_problem = false;
      solver_name_next = true;
      continue;
    }
    if (in_problem || solver_name_next || line.rfind("seed:", 0) == 0) key += line + "\n";
    solver_name_next = false;
  }
  return key;
}

}  // namespace

namespace {

std::string verdict_problem(const std::string& path, const io::ScreenVerdict& verdict,
                            const std::string& identity_text) {
  if (!verdict.problem.empty()) return verdict.problem;
  if (verdict.status.empty() || verdict.status == "running") return path + ": the run's end was never written";
  if (!identity_text.empty() && configuration_key(verdict.config) != configuration_key(identity_text))
    return path + ": holds another run (its problem, solver or seed is not the one this name "
                  "stands for)";
  return "";
}

}  // namespace

std::string run_file_problem(const std::string& path, const std::string& identity_text) {
  return verdict_problem(path, io::screen_run_file(path), identity_text);
}

std::optional<io::StoredRun> read_complete_run(const std::string& file) {
  try {
    return read_finished_run(file);
  } catch (const UserError& e) {
    std::fprintf(stderr, "fedbench: skipped: %s\n", naming(file, e.what()).c_str());
    return std::nullopt;
  }
}

std::vector<io::StoredRun> read_complete_runs(const std::vector<std::string>& files) {
  std::vector<io::StoredRun> runs;
  runs.reserve(files.size());
  for (const auto& file : files)
    if (auto run = read_complete_run(file)) runs.push_back(std::move(*run));
  return runs;
}

std::vector<double> counter_axis(const io::StoredRun& run, const std::string& axis) {
  if (axis != "bytes") return run.column(axis);
  std::vector<double> x = run.column("bytes_up");
  const auto& down = run.column("bytes_down");
  for (std::size_t r = 0; r < x.size(); ++r) x[r] += down[r];
  return x;
}

RunState ResultsStore::state(const SuiteRun& run, std::string* why) const {
  const std::string file = run_file(run.id);
  std::error_code ec;
  if (fs::exists(file, ec)) {
    const io::ScreenVerdict verdict = io::screen_run_file(file);
    std::string reason = verdict_problem(file, verdict, run.identity_text);
    RunState state = RunState::corrupt;
    if (reason.empty()) {
      reason = staleness(verdict.provenance, run.request.problem, run.request.solver);
      state = reason.empty() ? RunState::done : RunState::stale;
    }
    if (why) *why = reason;
    return state;
  }
  if (fs::exists(file + ".part", ec)) return RunState::partial;
  return RunState::fresh;
}

std::string ResultsStore::set_aside(const SuiteRun& run) const {
  const std::string& id = run.id;
  const std::string why = run_file_problem(run_file(id), run.identity_text);
  std::error_code ec;
  fs::rename(run_file(id), run_file(id) + ".corrupt", ec);
  if (ec) throw WriteError("cannot move " + run_file(id) + " aside: " + ec.message());
  return why;
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

namespace {

// "current", or "stale: why" for a run made by other code or from other data (kept by
// --reuse-stale, or left from an older configuration).
std::string provenance_column(const io::StoredRun& r) {
  const std::string why = staleness(provenance_from_attributes(r.text), r.text.at("problem"), r.text.at("solver"));
  std::string cell = why.empty() ? "current" : "stale: " + why;
  std::replace(cell.begin(), cell.end(), '\t', ' ');
  return cell;
}

}  // namespace

namespace {

// dir/suite.tsv: per suite file (absolute path) that ran here, the ids of its runs at its last
// run. Several suites may share a directory (reproduce's winners and baselines do).
constexpr const char* kSuiteHeader = "suite\tid\tproblem\tsolver\tseed";

std::optional<std::vector<std::vector<std::string>>> recorded_suites(const std::string& dir) {
  std::ifstream in(dir + "/suite.tsv");
  if (!in) return std::nullopt;
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    auto fields = split(line, '\t');
    if (fields.size() == 5 && fields[1].size() == 16) rows.push_back(std::move(fields));
  }
  return rows;
}

std::optional<std::set<std::string>> recorded_ids(const std::string& dir) {
  const auto rows = recorded_suites(dir);
  if (!rows) return std::nullopt;
  std::set<std::string> ids;
  for (const auto& r : *rows) ids.insert(r[1]);
  return ids;
}

std::string id_of_file(const std::string& file) { return fs::path(file).stem().string(); }

}  // namespace

void ResultsStore::record_suite(const Suite& suite) const {
  if (suite.partial) return;
  std::error_code ec;
  const std::string key = fs::absolute(suite.path, ec).lexically_normal().string();
  const DirectoryLock lock(dir_);
  std::string text = std::string(kSuiteHeader) + "\n";
  if (const auto rows = recorded_suites(dir_))
    for (const auto& r : *rows)
      if (r[0] != key) text += join(r, "\t") + "\n";  // other suites sharing the directory
  for (const auto& run : suite.runs)
    text += key + "\t" + run.id + "\t" + run.request.problem + "\t" + run.request.solver + "\t" +
            std::to_string(run.request.seed) + "\n";
  io::write_text_file(dir_ + "/suite.tsv", text);
}

std::vector<std::string> ResultsStore::suite_files(bool all, bool quiet) const {
  std::vector<std::string> files = finished_files();
  const auto ids = recorded_ids(dir_);
  if (all || !ids) return files;
  std::vector<std::string> in;
  for (const auto& f : files)
    if (ids->count(id_of_file(f))) in.push_back(f);
  const std::size_t outside = files.size() - in.size();
  if (outside > 0 && !quiet)
    std::fprintf(stderr,
                 "fedbench: %s: %zu run file%s not in the runs of the suites last run here (older "
                 "configurations, suite.tsv): left out; --all includes them, `fedbench prune %s` "
                 "deletes them\n",
                 dir_.c_str(), outside, outside == 1 ? " is" : "s are", dir_.c_str());
  return in;
}

std::vector<std::string> ResultsStore::files_outside_suite() const {
  const auto ids = recorded_ids(dir_);
  std::vector<std::string> out;
  if (!ids) return out;
  for (const auto& f : finished_files())
    if (!ids->count(id_of_file(f))) out.push_back(f);
  return out;
}

void ResultsStore::write_manifest() const {
  const DirectoryLock lock(dir_);  // one writer at a time; the last one sees every run
  const std::string path = dir_ + "/manifest.tsv", tmp = path + ".tmp";
  {
    io::NewFileStream out(tmp);
    out << "id\tstatus\tstop_reason\trounds\tproblem\tproblem_params\tsolver\tsolver_params\tseed"
           "\tprovenance\tfile\n";
    for (const auto& file : finished_files()) {
      const auto run = read_complete_run(file);
      if (!run) continue;
      const io::StoredRun& r = *run;
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
          << '\t' << provenance_column(r) << '\t' << "runs/" << id << ".h5\n";
    }
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw WriteError("cannot write " + tmp + ": the disk is full or not writable");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw WriteError("cannot write " + path + ": " + ec.message());
}

void StaleTally::add(const io::StoredRun& run) {
  const auto problem = run.text.find("problem"), solver = run.text.find("solver");
  if (problem == run.text.end() || solver == run.text.end()) return;
  const std::string why = staleness(provenance_from_attributes(run.text), problem->second, solver->second);
  if (why.empty()) return;
  if (count_++ == 0) first_ = fs::path(run.path).stem().string() + ": " + why;
}

void StaleTally::report() const {
  if (count_ == 0) return;
  std::fprintf(stderr,
               "fedbench: %lld of the runs shown %s stale (e.g. %s); `fedbench run SUITE` reruns them\n",
               count_, count_ == 1 ? "is" : "are", first_.c_str());
}

std::string participation_of(const std::string& config_text) {
  const std::string key = "\nfederation:\n  participation: ";
  const auto at = config_text.find(key);
  if (at == std::string::npos) return "";
  const auto begin = at + key.size();
  return config_text.substr(begin, config_text.find('\n', begin) - begin);
}

}  // namespace fedbench::suite
