#include "results/results_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ext/stdio_filebuf.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
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
#include "results/run_identity.hpp"

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

// Why the file at `path`, finished, is not the run its name stands for ("" when it is).
std::string not_its_run(const std::string& path, const std::string& identity, const std::string& config,
                        double seed) {
  const std::string why = identity_mismatch(fs::path(path).stem().string(), identity, config, seed);
  return why.empty() ? why : path + ": not a run of this results directory: " + why;
}

// Reads a run file whole; UserError unless it is a finished run (and, from a results
// directory, the run its name stands for).
io::StoredRun read_finished_run(const std::string& path, RunOrigin origin) {
  io::StoredRun run = io::read_trajectory_screened(path);
  const auto status = run.text.find("status");
  if (status == run.text.end() || status->second == "running")
    throw UserError(path + ": the run's end was never written");
  if (origin == RunOrigin::results_directory) {
    const auto text = [&](const char* key) {
      const auto it = run.text.find(key);
      return it == run.text.end() ? std::string() : it->second;
    };
    const auto seed = run.numbers.find("seed");
    const std::string why =
        not_its_run(path, text("identity"), text("config"), seed == run.numbers.end() ? -1.0 : seed->second);
    if (!why.empty()) throw UserError(why);
  }
  return run;
}

std::string verdict_problem(const std::string& path, const io::ScreenVerdict& verdict) {
  if (!verdict.problem.empty()) return verdict.problem;
  if (verdict.status.empty() || verdict.status == "running") return path + ": the run's end was never written";
  return not_its_run(path, verdict.identity, verdict.config, verdict.seed);
}

}  // namespace

std::string run_file_problem(const std::string& path) {
  return verdict_problem(path, io::screen_run_file(path));
}

std::optional<io::StoredRun> read_complete_run(const std::string& file, RunOrigin origin) {
  try {
    return read_finished_run(file, origin);
  } catch (const UserError& e) {
    std::fprintf(stderr, "fedbench: skipped: %s\n", naming(file, e.what()).c_str());
    return std::nullopt;
  }
}

std::vector<io::StoredRun> read_complete_runs(const std::vector<std::string>& files, RunOrigin origin) {
  std::vector<io::StoredRun> runs;
  runs.reserve(files.size());
  for (const auto& file : files)
    if (auto run = read_complete_run(file, origin)) runs.push_back(std::move(*run));
  return runs;
}

std::vector<double> counter_axis(const io::StoredRun& run, const std::string& axis) {
  if (axis != "bytes") return run.column(axis);
  std::vector<double> x = run.column("bytes_up");
  const auto& down = run.column("bytes_down");
  for (std::size_t r = 0; r < x.size(); ++r) x[r] += down[r];
  return x;
}

RunState ResultsStore::state(const SuiteRun& run, std::string* why, std::string* identity) const {
  const std::string file = run_file(run.id);
  std::error_code ec;
  if (fs::exists(file, ec)) {
    const io::ScreenVerdict verdict = io::screen_run_file(file);
    if (identity) *identity = verdict.identity;
    std::string reason = verdict_problem(file, verdict);
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
  const std::string why = run_file_problem(run_file(id));
  runs().move_here(runs(), id + ".h5", id + ".h5.corrupt");
  return why;
}

bool ResultsStore::adopt(const ResultsStore& donor, const SuiteRun& run) const {
  std::error_code ec;
  if (fs::equivalent(donor.dir_, dir_, ec)) return false;
  // The id is a hash of the identity text: the text itself must agree too (one screening).
  std::string identity;
  if (donor.state(run, nullptr, &identity) != RunState::done) return false;
  if (!run.identity_text.empty() && identity != run.identity_text) return false;
  copy_in(donor.runs(), run.id);
  return true;
}

void ResultsStore::copy_in(const io::Directory& from, const std::string& id) const {
  // Copied under a name no reader takes for a run, then renamed: a crash leaves no half run.
  const std::string name = id + ".h5", temporary = name + ".adopting";
  std::ifstream in(from.via_handle(name), std::ios::binary);
  {
    io::NewFileStream out(runs(), temporary);
    errno = 0;
    out << in.rdbuf();
    out.close();
    if (!in.good() && !in.eof()) out.setstate(std::ios::failbit);
    if (!out) {
      const int err = errno;
      runs().remove(temporary);
      throw WriteError("cannot copy " + from.shown(name) + " to " + runs().shown(temporary) + ": " +
                       (err ? io::system_reason(err) : "the disk is full"));
    }
  }
  runs().publish(temporary, name);
}

// A directory the file system refuses to make (read-only, no permission, full, over quota) is a
// refused write (exit 1); one that cannot be made because a file is in the way is bad input.
void ResultsStore::ensure_exists() const {
  std::error_code ec;
  fs::create_directories(dir_ + "/runs", ec);
  if (!ec) {
    runs();  // pinned from here on
    return;
  }
  const int err = ec.value();
  const bool refused = ec.category() == std::generic_category() || ec.category() == std::system_category();
  if (refused && (err == EROFS || err == EACCES || err == EPERM || err == ENOSPC || err == EDQUOT))
    throw WriteError("cannot create results directory " + dir_ + "/runs: " + ec.message());
  throw UserError("cannot create results directory " + dir_ + "/runs: " + ec.message());
}

const io::Directory& ResultsStore::root() const {
  if (!root_) root_ = std::make_shared<const io::Directory>(dir_);  // the user's path: links followed
  return *root_;
}

const io::Directory& ResultsStore::runs() const {
  if (!runs_) runs_ = std::make_shared<const io::Directory>(root().child("runs"));  // never a link
  return *runs_;
}

std::unique_ptr<TrajectorySink> ResultsStore::run_sink(const std::string& id) const {
  return std::make_unique<io::Hdf5TrajectoryWriter>(runs().duplicate(), id + ".h5");
}

namespace {

// The *.h5 files under dir/runs, sorted: those named by a run id (runs) and the others (not
// runs: backups, copies, foreign files), in one pass over the directory.
struct H5Files {
  std::vector<std::string> runs, others;
};
H5Files h5_files(const std::string& dir) {
  H5Files out;
  std::error_code ec;
  if (!fs::is_directory(dir + "/runs", ec)) return out;
  for (const auto& e : fs::directory_iterator(dir + "/runs"))
    if (e.path().extension() == ".h5")
      (is_run_id(e.path().stem().string()) ? out.runs : out.others).push_back(e.path().string());
  std::sort(out.runs.begin(), out.runs.end());
  std::sort(out.others.begin(), out.others.end());
  return out;
}

}  // namespace

std::vector<std::string> ResultsStore::finished_files() const { return h5_files(dir_).runs; }

std::vector<std::string> ResultsStore::foreign_files() const { return h5_files(dir_).others; }

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

// suite.tsv is read only as a regular file (never through a link, never waiting on a FIFO) of at
// most kMaxSuiteTsvBytes (10^6 runs take about 120 MB): anything else is one line, exit 2.
constexpr long long kMaxSuiteTsvBytes = 512LL << 20;
std::optional<std::vector<std::vector<std::string>>> recorded_suites(const io::Directory& dir) {
  const int fd = ::openat(dir.fd(), "suite.tsv", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxSuiteTsvBytes) {
    const bool regular = fd >= 0 && S_ISREG(st.st_mode);
    if (fd >= 0) ::close(fd);
    throw UserError(dir.shown("suite.tsv") + (regular ? " is larger than 512 MiB" : " is not a regular file (a link, FIFO or device)") +
                    ": not one fedbench wrote; delete it (the next run of the suite writes it again)");
  }
  __gnu_cxx::stdio_filebuf<char> buffer(fd, std::ios::in);  // closes fd
  std::istream in(&buffer);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    auto fields = split(line, '\t');
    if (fields.size() == 5 && fields[1].size() == 16) rows.push_back(std::move(fields));
  }
  return rows;
}

std::optional<std::set<std::string>> recorded_ids(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  const auto rows = recorded_suites(io::Directory(dir));
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
  const DirectoryLock lock(root());
  std::string text = std::string(kSuiteHeader) + "\n";
  if (const auto rows = recorded_suites(root()))
    for (const auto& r : *rows)
      if (r[0] != key) text += join(r, "\t") + "\n";  // other suites sharing the directory
  for (const auto& run : suite.runs)
    text += key + "\t" + run.id + "\t" + run.request.problem + "\t" + run.request.solver + "\t" +
            std::to_string(run.request.seed) + "\n";
  io::write_text_file(root(), "suite.tsv", text);
}

std::vector<std::string> ResultsStore::suite_files(bool all, bool quiet) const {
  H5Files found = h5_files(dir_);
  if (const auto& foreign = found.others; !foreign.empty() && !quiet)
    std::fprintf(stderr,
                 "fedbench: %s: %zu file%s under runs/ %s not runs of this suite (the name is not a run id, "
                 "e.g. %s): left out\n",
                 dir_.c_str(), foreign.size(), foreign.size() == 1 ? "" : "s", foreign.size() == 1 ? "is" : "are",
                 foreign.front().c_str());
  std::vector<std::string> files = std::move(found.runs);
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

std::optional<std::set<std::string>> ResultsStore::suite_ids() const { return recorded_ids(dir_); }

std::set<std::string> ResultsStore::manifest_ids() const {
  std::set<std::string> ids;
  const io::Directory dir(dir_);
  if (dir.kind("manifest.tsv") != io::Directory::Kind::regular) return ids;  // a link or a FIFO: no list
  std::ifstream in(dir.via_handle("manifest.tsv"));
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    const std::string id = line.substr(0, line.find('\t'));
    if (is_run_id(id)) ids.insert(id);
  }
  return ids;
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
  const DirectoryLock lock(root());  // one writer at a time; the last one sees every run
  const std::string tmp = "manifest.tsv.tmp";
  {
    io::NewFileStream out(root(), tmp);
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
      root().remove(tmp);
      throw WriteError("cannot write " + root().shown(tmp) + ": the disk is full or not writable");
    }
  }
  root().publish(tmp, "manifest.tsv");
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

namespace {

// The number of the run id a file name starts with ("<id>.h5", "<id>.h5.part", ...; the id
// itself), if it does.
std::optional<std::uint64_t> leading_run_id(const std::string& name) {
  constexpr std::size_t kDigits = 16;
  if (name.size() < kDigits || (name.size() > kDigits && name[kDigits] != '.')) return std::nullopt;
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + kDigits, id, 16);
  if (ec != std::errc() || end != name.data() + kDigits) return std::nullopt;
  return id;
}

}  // namespace

RunStateLookup::RunStateLookup(const ResultsStore& store) : store_(store) {
  std::error_code ec;
  fs::directory_iterator it(store.dir() + "/runs", ec);
  if (ec) {  // no runs directory: every run is new
    complete_ = ec == std::errc::no_such_file_or_directory;
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (const auto id = leading_run_id(it->path().filename().string())) listed_.push_back(*id);
  }
  complete_ = !ec;
  std::sort(listed_.begin(), listed_.end());
}

RunState RunStateLookup::state(const SuiteRun& run, std::string* why) const {
  const auto id = leading_run_id(run.id);
  if (complete_ && id && !std::binary_search(listed_.begin(), listed_.end(), *id)) return RunState::fresh;
  return store_.state(run, why);
}

}  // namespace fedbench::suite
