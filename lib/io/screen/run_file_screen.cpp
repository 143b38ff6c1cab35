#include "io/screen/run_file_screen.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "io/screen/run_file_contents.hpp"

extern char** environ;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FEDBENCH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define FEDBENCH_SANITIZED 1
#endif
#endif

namespace fedbench::io {

namespace {

// The screen's answer: 'o' and the encoded contents, or 'b' and why the file does not read.
// While it reads, it sends heartbeats: an ASCII ACK and the bytes it has read from disk for this
// request so far, with no payload.
constexpr char kContents = 'o', kProblem = 'b', kHeartbeat = '\x06';
constexpr auto kHeartbeatEvery = std::chrono::milliseconds(200);
// A reader making progress reads on; one that has read many times the file's bytes is looping.
constexpr std::uint64_t kRereadFactor = 16, kRereadSlack = std::uint64_t{256} << 20;
// Slow disks and loaded machines: the quiet window grows with the file (at 16 MB/s).
constexpr double kBytesPerSecond = 16e6;

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

// "0.3", "30.0": a duration as said to users.
std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", s);
  return text;
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
  std::variant<RunFileContents, std::string> read(const std::string& path, std::uint64_t file_bytes) {
    if (path.find('\n') != std::string::npos)
      return path + ": the file name has a line break; rename the file";
    for (int attempt = 0;; ++attempt) {
      char kind = 0;
      std::string payload;
      const Ended ended = ask(path, file_bytes, kind, payload);
      if (ended == Ended::answered) {
        if (kind == kProblem) return payload;
        try {
          return decode_run_file_contents(payload, path);
        } catch (const UserError& e) {
          return std::string(e.what());
        }
      }
      if (ended == Ended::stalled)
        return path + ": reading it made no progress for " + seconds(quiet_window(file_bytes)) +
               " s; the file is damaged or crafted";
      if (ended == Ended::looping)
        return path + ": reading it read over " + std::to_string(reread_limit(file_bytes) >> 20) +
               " MB from a file of " + std::to_string(file_bytes) + " bytes; the file is damaged or crafted";
      if (ended == Ended::oversized)
        return path + ": its contents take over " + std::to_string(answer_limit(file_bytes) >> 20) +
               " MB, more than a run file of " + std::to_string(file_bytes) +
               " bytes holds; the file is damaged or crafted";
      if (ended == Ended::nonsense)
        return path + ": the run-file screen " + command_[0] + " gave no answer fedbench understands";
      if (attempt == 0 && external_signal(end_status_)) continue;
      return path + ": reading it " + describe_end(end_status_) + "; the file is damaged or crafted";
    }
  }

 private:
  enum class Ended { answered, died, stalled, looping, oversized, nonsense };

  // How long the screen may go without reading anything new before it counts as stalled.
  double quiet_window(std::uint64_t file_bytes) const {
    return timeout_ + static_cast<double>(file_bytes) / kBytesPerSecond;
  }
  static std::uint64_t reread_limit(std::uint64_t file_bytes) {
    return kRereadFactor * file_bytes + kRereadSlack;
  }
  //! The largest answer this process accepts for a file: the values the screen may read from
  //! it (kMaxValueBytesPerFileByte per byte) and room for its text. The screen is held to that
  //! by its memory limit; this process, which has none, by refusing a larger answer before
  //! allocating it.
  static std::uint64_t answer_limit(std::uint64_t file_bytes) {
    return kMaxValueBytesPerFileByte * file_bytes + (std::uint64_t{64} << 20);
  }

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
  // status kept in end_status_, and the next request starts a new one. The deadline moves
  // whenever a heartbeat reports bytes read that the last one had not.
  Ended ask(const std::string& path, std::uint64_t file_bytes, char& kind, std::string& payload) {
    if (pid_ <= 0) start();
    const auto window = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(quiet_window(file_bytes)));
    auto deadline = std::chrono::steady_clock::now() + window;
    const std::string request = path + "\n";
    Ended ended = Ended::died;
    std::uint64_t size = 0, progress = 0;
    bool framed = send_all(fd_, request.data(), request.size());
    while (framed && (framed = receive(&kind, 1, deadline, ended) &&
                               receive(reinterpret_cast<char*>(&size), sizeof size, deadline, ended)) &&
           kind == kHeartbeat) {
      if (size > reread_limit(file_bytes)) {
        ended = Ended::looping;
        framed = false;
      } else if (size > progress) {
        progress = size;
        deadline = std::chrono::steady_clock::now() + window;
      }
    }
    if (framed) {
      if ((kind == kContents || kind == kProblem) && size > answer_limit(file_bytes)) {
        ended = Ended::oversized;
      } else if (kind == kContents || kind == kProblem) {
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
      // Woken at least every 200 ms, so that a pending interrupt ends the wait at once.
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 200)));
      if (ready <= 0 && interrupt_signal() != 0) {  // Ctrl-C or SIGTERM: end the wait now
        reap(std::chrono::milliseconds(0));
        throw Interrupted(std::string(interrupt_word()) + " while reading a run file");
      }
      if (ready <= 0) continue;  // timed out: the deadline decides
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
  const bool found = ::stat(path.c_str(), &st) == 0;
  if (found && !S_ISREG(st.st_mode))
    return path + ": not a regular file (a FIFO, device or socket); a run file is a regular file";
  {
    const std::lock_guard<std::mutex> lock(screen_mutex);
    if (the_screen()) return the_screen()->read(path, found ? static_cast<std::uint64_t>(st.st_size) : 0);
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
    const auto seed = run.numbers.find("seed");
    return {"", text("status"), text("config"), text("identity"),
            seed == run.numbers.end() ? 0.0 : seed->second, provenance_from_attributes(run.text)};
  } catch (const UserError& e) {
    return {naming(path, e.what()), "", "", "", 0.0, {}};
  }
}

namespace {

// Bytes this process has read through read(2) and friends (/proc/self/io's rchar; 0 where the
// kernel does not account them, and the parent then falls back on its quiet window alone), less
// what reading /proc/self/io itself cost: the heartbeat's own reads are no progress, or a reader
// stuck on a FIFO would look busy for ever.
std::uint64_t bytes_read_so_far() {
  static std::atomic<std::uint64_t> own{0};  // bytes returned by the reads below, so far
  const int fd = ::open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[512];
  std::size_t got = 0;
  for (ssize_t n = 0; got < sizeof text - 1 && (n = ::read(fd, text + got, sizeof text - 1 - got)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text[got] = '\0';
  unsigned long long rchar = 0;
  if (std::sscanf(text, "rchar: %llu", &rchar) != 1) return 0;
  const std::uint64_t before = own.fetch_add(got);  // rchar counts the reads made before this one
  return rchar > before ? rchar - before : 0;
}

#ifndef FEDBENCH_SANITIZED
// Private writable memory of this process now (/proc/self/status VmData), in bytes.
std::uint64_t data_segment_bytes() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "VmData: %llu kB", &kb) == 1) break;
  std::fclose(status);
  return kb * 1024;
}
#endif

// A memory limit for reading one file of `file_bytes`: what the reader may hold (its values,
// bounded by the reader's value budget, once decoded and once encoded) and room for libhdf5.
// A crafted file that makes libhdf5 allocate beyond it fails the read instead of exhausting
// the machine. Not under AddressSanitizer, whose shadow memory a limit would break.
void limit_memory_for(std::uint64_t file_bytes) {
#ifdef FEDBENCH_SANITIZED
  (void)file_bytes;
#else
  const rlim_t limit = data_segment_bytes() + (rlim_t{512} << 20) + 2 * kMaxValueBytesPerFileByte * file_bytes;
  const rlimit r{limit, RLIM_INFINITY};
  ::setrlimit(RLIMIT_DATA, &r);
#endif
}

// Writes `frame` whole on `fd` (the answer channel, shared with the heartbeat thread).
bool write_frame(int fd, const std::string& frame) {
  std::size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = ::write(fd, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // the parent is gone
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string frame(char kind, std::uint64_t size, const std::string& payload = "") {
  std::string out(1, kind);
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out += payload;
  return out;
}

// While a request is being read, tells the parent every kHeartbeatEvery how many bytes the
// read has taken from disk, so that a slow valid file is told from a stalled reader.
class Heartbeat {
 public:
  explicit Heartbeat(int fd) : fd_(fd), thread_([this] { beat(); }) {}
  ~Heartbeat() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void begin() {
    const std::lock_guard<std::mutex> lock(mutex_);
    start_ = bytes_read_so_far();
    busy_ = true;
  }
  //! Ends the request with its answer (no heartbeat after it).
  bool answer(const std::string& frame_bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    busy_ = false;
    return write_frame(fd_, frame_bytes);
  }

 private:
  void beat() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, kHeartbeatEvery);
      if (busy_ && !stop_) write_frame(fd_, frame(kHeartbeat, bytes_read_so_far() - start_));
    }
  }
  int fd_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool busy_ = false, stop_ = false;
  std::uint64_t start_ = 0;
  std::thread thread_;
};

}  // namespace

int serve_run_file_screen(int in_fd, int out_fd) {
  // The parent decides when to stop (end of input); a Ctrl-C meant for it must not look like a
  // crash on the file being read.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  Heartbeat heartbeat(out_fd);
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
    struct stat st {};
    limit_memory_for(::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0);
    heartbeat.begin();
    const auto contents = read_here(path);
    const auto* why = std::get_if<std::string>(&contents);
    const std::string payload = why ? *why : encode_run_file_contents(std::get<RunFileContents>(contents));
    if (!heartbeat.answer(frame(why ? kProblem : kContents, payload.size(), payload))) return 0;
  }
}

}  // namespace fedbench::io
