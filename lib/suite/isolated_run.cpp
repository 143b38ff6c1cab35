#include "suite/isolated_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "engine/engine.hpp"
#include "plugin/plugin_loader.hpp"
#include "problem/problem_registry.hpp"
#include "suite/last_metric.hpp"

namespace fedbench::suite {

namespace {

constexpr int kReportFd = 3;  // the child's end of the report pipe

std::string overlap_word(EvaluationOverlap o) {
  return o == EvaluationOverlap::always ? "on" : o == EvaluationOverlap::never ? "off" : "auto";
}
EvaluationOverlap overlap_of(const std::string& word) {
  return word == "on" ? EvaluationOverlap::always : word == "off" ? EvaluationOverlap::never : EvaluationOverlap::automatic;
}

// Tabs and newlines would break the report's lines.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  return text;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigdescr_np(sig);
    return "its process was killed by signal " + std::to_string(sig) + " (" + (name ? name : "unknown") + ")";
  }
  if (WIFEXITED(status))
    return "its process exited with code " + std::to_string(WEXITSTATUS(status)) + " before the run was written";
  return "its process ended before the run was written";
}

// The child's command line, built before fork (nothing is allocated between fork and exec).
std::vector<std::string> child_command(const SuiteRun& run, const ResultsStore& store, const ChildSettings& s) {
  std::vector<std::string> args{s.executable};
  for (const auto& origin : loaded_plugins()) {
    args.push_back("--plugin");
    args.push_back(origin->path);
  }
  args.insert(args.end(), {kRunOneSubcommand, store.dir(), run.id, std::to_string(s.threads),
                           overlap_word(s.overlap), s.run_timeout ? format_real(*s.run_timeout) : "-",
                           s.command_line, run.identity_text});
  return args;
}

// The report pipe's lines, read as they come.
class ReportReader {
 public:
  explicit ReportReader(int fd) : fd_(fd) {}
  //! Reads what is there; false at end of file.
  bool read_some(std::vector<std::string>& lines) {
    char buf[4096];
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    if (n == 0) return false;
    pending_.append(buf, static_cast<std::size_t>(n));
    for (std::size_t at; (at = pending_.find('\n')) != std::string::npos; pending_.erase(0, at + 1))
      lines.push_back(pending_.substr(0, at));
    return true;
  }

 private:
  int fd_;
  std::string pending_;
};

struct ChildEnd {
  int wait_status = 0;
  bool timed_out = false;
  double seconds = 0;
  std::optional<std::string> end_line, write_error;
  std::int64_t last_round = 0;
};

void kill_and_reap(pid_t pid, int sig, int& wait_status) {
  ::kill(pid, sig);
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
}

// Waits for the child: reads its reports, kills it past its deadline, and on SIGINT / SIGTERM
// stops it (it removes its unfinished file itself) and throws Interrupted.
ChildEnd wait_for(pid_t pid, int fd, const ChildSettings& s) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::optional<Clock::time_point> deadline =
      s.run_timeout ? std::optional(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(*s.run_timeout + kChildGraceSeconds)))
                    : std::nullopt;
  ChildEnd end;
  ReportReader reader(fd);
  std::vector<std::string> lines;
  for (bool open = true; open;) {
    if (interrupt_signal() != 0) {
      ::kill(pid, SIGTERM);
      const auto until = Clock::now() + std::chrono::seconds(5);
      int rc = 0;
      while ((rc = ::waitpid(pid, &end.wait_status, WNOHANG)) == 0 && Clock::now() < until) ::usleep(10000);
      if (rc == 0) kill_and_reap(pid, SIGKILL, end.wait_status);
      ::close(fd);
      throw Interrupted(std::string(interrupt_word()) + " while a run of a plug-in was going");
    }
    if (deadline && Clock::now() >= *deadline) {
      kill_and_reap(pid, SIGKILL, end.wait_status);
      end.timed_out = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;  // woken every 200 ms for the checks above
    open = reader.read_some(lines);
    for (const auto& line : lines) {
      if (line.rfind("row ", 0) == 0) {
        long long round = 0;
        if (parse_int(line.substr(4), round)) end.last_round = round;
        if (s.rounds_done) s.rounds_done->store(end.last_round, std::memory_order_relaxed);
      } else if (line.rfind("end ", 0) == 0) {
        end.end_line = line.substr(4);
      } else if (line.rfind("write-error ", 0) == 0) {
        end.write_error = line.substr(12);
      }
    }
    lines.clear();
  }
  ::close(fd);
  if (!end.timed_out)
    while (::waitpid(pid, &end.wait_status, 0) < 0 && errno == EINTR) {
    }
  end.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return end;
}

// The run's file when the child left none: its header and how it ended, no rows.
void record_without_child(const SuiteRun& run, PreparedRun& prepared, const ResultsStore& store,
                          const ChildSettings& s, StopReason reason, const std::string& message,
                          std::int64_t rounds) {
  RunMeta meta{s.command_line, prepared.identity, prepared.solver->constants_read(), prepared.setup_time,
               prepared.mpi_ranks, nullptr, nullptr, s.overlap, {}, s.run_timeout};
  const auto sink = store.run_sink(run.id);  // replaces the child's unfinished .part, if any
  sink->begin(detail::make_header(*prepared.problem, prepared.config, s.threads, meta));
  RunSummary summary;
  summary.reason = reason;
  summary.message = message;
  summary.rounds = rounds;
  summary.threads_at_end = s.threads;
  sink->end(summary);
}

ChildOutcome parse_end(const std::string& line) {
  const std::vector<std::string> f = split(line, '\t');
  ChildOutcome out;
  out.status = f.size() > 0 ? f[0] : "error";
  out.metric = f.size() > 1 ? f[1] : "";
  out.value = NAN;
  if (f.size() > 2) parse_real(f[2], out.value);
  out.direction = f.size() > 3 && f[3] == "max" ? Direction::max : Direction::min;
  out.message = f.size() > 4 ? f[4] : "";
  return out;
}

}  // namespace

bool runs_in_child(const std::string& problem, const std::string& solver) {
  return solver_registry().get(solver).plugin != nullptr || problem_registry().get(problem).plugin != nullptr;
}

ChildOutcome run_in_child(const SuiteRun& run, PreparedRun& prepared, const ResultsStore& store,
                          const ChildSettings& settings) {
  const std::vector<std::string> command = child_command(run, store, settings);
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw WriteError(std::string("cannot start a run's process: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw WriteError(std::string("cannot start a run's process: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Only async-signal-safe calls here. The child dies with the suite, however the suite dies.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(2, 1) < 0 || ::dup2(fds[1], kReportFd) < 0) ::_exit(127);
    ::close_range(kReportFd + 1, ~0U, 0);  // no lock or file of ours
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  const ChildEnd end = wait_for(pid, fds[0], settings);
  if (end.write_error) throw WriteError(*end.write_error);
  if (end.timed_out) {
    const std::string why = "killed after " + format_real(std::round(end.seconds)) + " s: it ran past the limit of " +
                            format_real(*settings.run_timeout) + " s per run (--run-timeout) and did not stop within " +
                            format_real(kChildGraceSeconds) + " s";
    record_without_child(run, prepared, store, settings, StopReason::timeout, why, end.last_round);
    return {"timeout", why, "", NAN, Direction::min};
  }
  if (end.end_line && WIFEXITED(end.wait_status) && WEXITSTATUS(end.wait_status) == 0) return parse_end(*end.end_line);
  const std::string why = how_it_ended(end.wait_status) + " (after round " + std::to_string(end.last_round) + ")";
  record_without_child(run, prepared, store, settings, StopReason::crashed, why, end.last_round);
  return {"crashed", why, "", NAN, Direction::min};
}

namespace {

// The child's reports: a row's round as it is recorded, the outcome once the file is written.
class ReportSink : public LastMetric {
 public:
  void row(const TrajectoryRow& r) override {
    LastMetric::row(r);
    report("row " + std::to_string(r.round));
  }
  void finished(const RunSummary& s) {
    report("end " + s.status() + "\t" + name + "\t" + format_real(value) + "\t" +
           (direction == Direction::max ? "max" : "min") + "\t" + one_line(s.message));
  }
  static void report(const std::string& line) {
    const std::string text = line + "\n";
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(kReportFd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the suite is gone: PDEATHSIG ends this process
      done += static_cast<std::size_t>(n);
    }
  }

};

}  // namespace

int serve_run_in_child(const std::vector<std::string>& args) {
  // args: RESULTS_DIR ID THREADS OVERLAP TIMEOUT COMMAND_LINE IDENTITY
  if (args.size() != 7) {
    std::fprintf(stderr, "fedbench: %s is fedbench's own (a suite's run of a plug-in), not a command\n",
                 kRunOneSubcommand);
    return 2;
  }
  try {
    const RunRequest request = request_from_identity(args[6]);
    if (run_id(identity_text(request)) != args[1])
      throw InternalError("the run rebuilt from its identity has another id than " + args[1]);
    long long threads = 1;
    if (!parse_int(args[2], threads) || threads < 1) throw InternalError("bad thread count " + args[2]);
    PreparedRun prepared = prepare_run(request);
    prepared.identity = args[6];
    prepared.overlap = overlap_of(args[3]);
    double timeout = 0;
    if (args[4] != "-" && parse_real(args[4], timeout)) prepared.run_timeout = timeout;
    ResultsStore store(args[0]);
    const auto writer = store.run_sink(args[1]);
    ReportSink report;
    TeeSink tee({&report, writer.get()});
    const RunSummary summary = execute(prepared, static_cast<int>(threads), tee, args[5]);
    report.finished(summary);
    return 0;
  } catch (const WriteError& e) {
    ReportSink::report("write-error " + one_line(e.what()));
    return 1;
  } catch (const Interrupted&) {
    return interrupt_exit_code();
  } catch (const std::exception& e) {
    // Before the run began (it was validated in the suite's process): the suite records it as
    // crashed, with this line on its standard error.
    std::fprintf(stderr, "fedbench: run %s: %s\n", args[1].c_str(), e.what());
    return 1;
  }
}

}  // namespace fedbench::suite
