#include "io/screen/run_file_screen.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <memory>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <variant>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/screen/run_file_contents.hpp"

extern char** environ;

namespace fedbench::io {

namespace {

// The screen's answer: 'o' and the encoded contents, or 'b' and why the file does not read.
constexpr char kContents = 'o', kProblem = 'b';

// The file read in this process: the contents, or why not.
std::variant<RunFileContents, std::string> read_here(const std::string& path) {
  try {
    return read_run_file_contents(path);
  } catch (const UserError& e) {
    return naming(path, e.what());
  } catch (const std::exception& e) {  // e.g. bad_alloc from sizes libhdf5 believed
    return path + ": cannot be read (" + std::string(e.what()) + ")";
  }
}

bool send_all(int fd, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Why a screening process ended, as the end of "reading it ...".
std::string describe_end(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigdescr_np(sig);
    return "crashed the HDF5 library (signal " + std::to_string(sig) + ": " +
           (name ? name : "unknown") + ")";
  }
  if (WIFEXITED(status))
    return "made the HDF5 library fail (the screening process ended with code " +
           std::to_string(WEXITSTATUS(status)) + ")";
  return "ended the screening process";
}

// Signals from outside (a user's Ctrl-C, a kill of the job, the OOM killer): the file is not
// to blame the first time.
bool external_signal(int status) {
  if (!WIFSIGNALED(status)) return false;
  const int sig = WTERMSIG(status);
  return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

class Screen {
 public:
  Screen(std::vector<std::string> command, double timeout) : command_(std::move(command)), timeout_(timeout) {}
  ~Screen() { stop(); }
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

  //! The contents of `path` as the screen read them, or why it could not.
  std::variant<RunFileContents, std::string> read(const std::string& path) {
    if (path.find('\n') != std::string::npos)
      return path + ": the file name has a line break; rename the file";
    for (int attempt = 0;; ++attempt) {
      char kind = 0;
      std::string payload;
      const Ended ended = ask(path, kind, payload);
      if (ended == Ended::answered) {
        if (kind == kProblem) return payload;
        try {
          return decode_run_file_contents(payload, path);
        } catch (const UserError& e) {
          return std::string(e.what());
        }
      }
      if (ended == Ended::stalled)
        return path + ": reading it did not finish within " + format_real(timeout_) +
               " s; the file is damaged or crafted";
      if (ended == Ended::nonsense)
        return path + ": the run-file screen " + command_[0] + " gave no answer fedbench understands";
      if (attempt == 0 && external_signal(end_status_)) continue;
      return path + ": reading it " + describe_end(end_status_) + "; the file is damaged or crafted";
    }
  }

 private:
  enum class Ended { answered, died, stalled, nonsense };

  void start() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw WriteError(std::string("cannot start the run-file screen: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);  // libhdf5's noise
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // no lock or file of ours
    std::vector<char*> argv;
    for (auto& a : command_) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fds[0]);
      throw WriteError("cannot start the run-file screen " + command_[0] + ": " + std::strerror(rc));
    }
    pid_ = pid;
    fd_ = fds[0];
  }

  void stop() {
    if (pid_ <= 0) return;
    ::close(fd_);  // end of input: the screen exits
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    fd_ = -1;
  }

  // One request. On anything but an answer the screen is killed (if still alive), its wait
  // status kept in end_status_, and the next request starts a new one.
  Ended ask(const std::string& path, char& kind, std::string& payload) {
    if (pid_ <= 0) start();
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_));
    const std::string request = path + "\n";
    Ended ended = Ended::died;
    std::uint64_t size = 0;
    if (send_all(fd_, request.data(), request.size()) && receive(&kind, 1, deadline, ended) &&
        receive(reinterpret_cast<char*>(&size), sizeof size, deadline, ended)) {
      if ((kind == kContents || kind == kProblem) && size < (std::uint64_t{1} << 40)) {
        payload.resize(static_cast<std::size_t>(size));
        if (receive(payload.data(), payload.size(), deadline, ended)) return Ended::answered;
      } else {
        ended = Ended::nonsense;
      }
    }
    // A screen that closed the channel is exiting: give it a moment to report how.
    reap(ended == Ended::died ? std::chrono::milliseconds(2000) : std::chrono::milliseconds(0));
    return ended;
  }

  // Collects the screen's wait status into end_status_, killing it if it has not ended
  // within `grace`; the next request starts a new screen.
  void reap(std::chrono::milliseconds grace) {
    const auto until = std::chrono::steady_clock::now() + grace;
    int rc = 0;
    while ((rc = ::waitpid(pid_, &end_status_, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until)
      ::usleep(1000);
    if (rc == 0) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &end_status_, 0) < 0 && errno == EINTR) {
      }
    }
    ::close(fd_);
    pid_ = -1;
    fd_ = -1;
  }

  // Exactly `size` bytes before the deadline; false (with why in `ended`) otherwise.
  bool receive(char* out, std::size_t size, std::chrono::steady_clock::time_point deadline, Ended& ended) {
    std::size_t done = 0;
    while (done < size) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ended = Ended::stalled;
        return false;
      }
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready <= 0) continue;  // interrupted or timed out: the deadline decides
      const ssize_t n = ::recv(fd_, out + done, size - done, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ended = Ended::died;
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  std::vector<std::string> command_;
  double timeout_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int end_status_ = 0;
};

std::mutex screen_mutex;
std::unique_ptr<Screen>& the_screen() {
  static std::unique_ptr<Screen> screen;
  return screen;
}

// Behind the screen when one is configured, else in this process.
std::variant<RunFileContents, std::string> read_contents(const std::string& path) {
  // A FIFO, device or socket planted as a run file would block or stream forever: refused at
  // once, before any process reads it.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return path + ": not a regular file (a FIFO, device or socket); a run file is a regular file";
  {
    const std::lock_guard<std::mutex> lock(screen_mutex);
    if (the_screen()) return the_screen()->read(path);
  }
  return read_here(path);
}

}  // namespace

void screen_run_files_with(std::vector<std::string> command, double timeout_seconds) {
  if (command.empty()) throw InternalError("screen_run_files_with: empty command");
  const std::lock_guard<std::mutex> lock(screen_mutex);
  the_screen() = std::make_unique<Screen>(std::move(command), timeout_seconds);
}

void stop_screening() {
  const std::lock_guard<std::mutex> lock(screen_mutex);
  the_screen().reset();
}

StoredRun read_trajectory_screened(const std::string& path) {
  auto contents = read_contents(path);
  if (auto* why = std::get_if<std::string>(&contents)) throw UserError(*why);
  return assemble_run(std::move(std::get<RunFileContents>(contents)));
}

ScreenVerdict screen_run_file(const std::string& path) {
  try {
    const StoredRun run = read_trajectory_screened(path);
    const auto text = [&](const char* key) {
      const auto it = run.text.find(key);
      return it == run.text.end() ? std::string() : it->second;
    };
    return {"", text("status"), text("config"), provenance_from_attributes(run.text)};
  } catch (const UserError& e) {
    return {naming(path, e.what()), "", "", {}};
  }
}

int serve_run_file_screen(int in_fd, int out_fd) {
  // The parent decides when to stop (end of input); a Ctrl-C meant for it must not look like a
  // crash on the file being read.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  std::string buffer;
  char chunk[4096];
  for (;;) {
    const auto newline = buffer.find('\n');
    if (newline == std::string::npos) {
      const ssize_t n = ::read(in_fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;
      buffer.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    const std::string path = buffer.substr(0, newline);
    buffer.erase(0, newline + 1);
    const auto contents = read_here(path);
    const auto* why = std::get_if<std::string>(&contents);
    const std::string payload = why ? *why : encode_run_file_contents(std::get<RunFileContents>(contents));
    const char kind = why ? kProblem : kContents;
    const std::uint64_t size = payload.size();
    std::string answer(1, kind);
    answer.append(reinterpret_cast<const char*>(&size), sizeof size);
    answer += payload;
    std::size_t done = 0;
    while (done < answer.size()) {
      const ssize_t n = ::write(out_fd, answer.data() + done, answer.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;  // the parent is gone
      done += static_cast<std::size_t>(n);
    }
  }
}

}  // namespace fedbench::io
