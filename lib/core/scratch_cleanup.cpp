#include "core/scratch_cleanup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace fedbench {

namespace fs = std::filesystem;

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM};

// The write end of the pipe the handler writes to; -1 until the first registration. Read by
// the handler, so lock-free.
std::atomic<int> signal_pipe{-1};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void forward_signal(int sig) {
  const int saved = errno;
  const unsigned char byte = static_cast<unsigned char>(sig);
  const int fd = signal_pipe.load(std::memory_order_relaxed);
  if (fd >= 0) {
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);  // non-blocking: never waits
  }
  errno = saved;
}

struct Registry {
  std::mutex mutex;  // held while a directory is removed, by the owner or by the waiter
  std::vector<std::string> dirs;
  bool installed = false;
  struct sigaction previous[std::size(kSignals)] = {};
  bool caught[std::size(kSignals)] = {};
};

// Never destroyed: the waiter thread may use it while the process exits.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

bool gone(const std::string& dir) {
  std::error_code ec;
  return fs::symlink_status(dir, ec).type() == fs::file_type::not_found;
}

// Other threads may still be writing into the directory (an interrupted suite's runs): try
// until it is gone, for at most about a second.
void remove_hard(const std::string& dir) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (gone(dir)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void write_stderr(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(2, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void die_by(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // only if the signal did not end the process
}

// The dedicated thread: each byte read is a caught signal.
void wait_for_signals(int fd) {
  for (;;) {
    unsigned char sig = 0;
    const ssize_t n = ::read(fd, &sig, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return;
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);  // held until the process ends
    for (const auto& dir : r.dirs) {
      remove_hard(dir);
      write_stderr("fedbench: interrupted (" + std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") +
                   "); removed " + dir + "\n");
    }
    die_by(sig);
  }
}

// Once per process: the pipe and its reader.
void start_waiter() {
  if (signal_pipe.load() >= 0) return;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw WriteError(std::string("cannot create a pipe for the signal handler: ") + std::strerror(errno));
  ::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK);  // the handler never waits
  std::thread(wait_for_signals, fds[0]).detach();
  signal_pipe.store(fds[1]);
}

void install(Registry& r) {
  start_waiter();
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], nullptr, &r.previous[i]);
    r.caught[i] = r.previous[i].sa_handler != SIG_IGN;  // ignored when we started: stays so
    if (!r.caught[i]) continue;
    struct sigaction action {};
    action.sa_handler = forward_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(kSignals[i], &action, nullptr);
  }
  r.installed = true;
}

void uninstall(Registry& r) {
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (r.caught[i]) ::sigaction(kSignals[i], &r.previous[i], nullptr);
  r.installed = false;
}

void forget(Registry& r, const std::string& dir) {
  const auto it = std::find(r.dirs.begin(), r.dirs.end(), dir);
  if (it == r.dirs.end()) return;
  r.dirs.erase(it);
  if (r.dirs.empty() && r.installed) uninstall(r);
}

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  for (char* c = host; *c; ++c)
    if (*c == '/') *c = '_';
  return host;
}

// PREFIX-HOST-PID-XXXXXX directories of this host whose process is gone (killed with SIGKILL).
void remove_abandoned(const fs::path& parent, const std::string& start) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(start, 0) != 0) continue;
    const std::string rest = name.substr(start.size());  // PID-XXXXXX
    const auto dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.size() != dash + 7 ||
        rest.find_first_not_of("0123456789") != dash)
      continue;
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    std::error_code ignored;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH &&
        fs::is_directory(fs::symlink_status(entry.path(), ignored)))
      fs::remove_all(entry.path(), ignored);
  }
}

}  // namespace

void remove_on_interrupt(const std::string& dir) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.dirs.push_back(dir);
  if (!r.installed) install(r);
}

void keep_on_interrupt(const std::string& dir) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  forget(r, dir);
}

ScratchDirectory::ScratchDirectory(const std::string& parent, const std::string& prefix) {
  const std::string start = prefix + "-" + host_name() + "-";
  remove_abandoned(parent, start);
  std::string templ = (fs::path(parent) / (start + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data()))
    throw WriteError("cannot create a scratch directory in " + parent + ": " + std::strerror(errno));
  path_ = templ;
  try {
    remove_on_interrupt(path_);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    throw;
  }
}

ScratchDirectory::~ScratchDirectory() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);  // not while an interrupt removes it
  std::error_code ec;
  fs::remove_all(path_, ec);
  forget(r, path_);
}

}  // namespace fedbench
