#include "suite/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "core/text.hpp"

namespace fedbench::suite {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  return text;
}

// A line of progress on stderr: replaces the previous one on a terminal. Anything the command
// wrote to stdout comes first (headings stay before the lines that follow them when both go to
// one pipe).
void put_line(const std::string& text, bool terminal) {
  std::fflush(stdout);
  if (terminal) std::fprintf(stderr, "\r\033[K%s", text.c_str());
  else std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

}  // namespace

double progress_period(bool terminal) {
  if (terminal) return 0.25;
  if (const char* text = std::getenv("FEDBENCH_PROGRESS_INTERVAL")) {
    double seconds = 0;
    if (parse_real(text, seconds) && seconds > 0) return seconds;
  }
  return 5.0;
}

Ticker::Ticker(double period, std::function<void()> tick)
    : thread_([this, period, tick = std::move(tick)] {
        std::unique_lock lock(mutex_);
        const auto step = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(period));
        for (auto next = Clock::now() + step; !stopping_; next += step) {
          if (wake_.wait_until(lock, next, [this] { return stopping_; })) break;
          lock.unlock();
          tick();
          lock.lock();
        }
      }) {}

void Ticker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// ---- one run

RunProgress::RunProgress(std::int64_t rounds, bool quiet)
    : rounds_(rounds), quiet_(quiet), tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

RunProgress::~RunProgress() {
  ticker_.reset();
  if (printed_ && tty_) std::fputs("\n", stderr);  // an interrupted run: keep its last line
}

void RunProgress::begin(const RunHeader& header) {
  {
    std::lock_guard lock(mutex_);
    start_ = Clock::now();
    primary_name_ = header.primary_metric;
    for (std::size_t k = 0; k < header.metric_names.size(); ++k)
      if (header.metric_names[k] == header.primary_metric) primary_ = k;
  }
  if (!quiet_) ticker_ = std::make_unique<Ticker>(progress_period(tty_), [this] { print(); });
}

void RunProgress::row(const TrajectoryRow& r) {
  std::lock_guard lock(mutex_);
  if (primary_ < r.metrics.size()) primary_value_ = r.metrics[primary_];
  eval_time_ = r.eval_time;
}

void RunProgress::print() {
  std::lock_guard lock(mutex_);
  const std::int64_t done = rounds_done_.load(std::memory_order_relaxed);
  const double elapsed = seconds_since(start_);
  std::string eta = "?";
  if (done >= rounds_) eta = "0:00";
  else if (done > 0) eta = clock_text(elapsed / static_cast<double>(done) * static_cast<double>(rounds_ - done));
  char line[256];
  std::snprintf(line, sizeof line, "round %lld/%lld  %s %.4g  ETA %s  evaluating %.0f%%",
                static_cast<long long>(done), static_cast<long long>(rounds_), primary_name_.c_str(),
                primary_value_, eta.c_str(), elapsed > 0 ? 100.0 * eval_time_ / elapsed : 0.0);
  put_line(line, tty_);
  printed_ = true;
}

void RunProgress::end(const RunSummary& s) {
  ticker_.reset();
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  if (printed_ && tty_) std::fputs("\r\033[K", stderr);
  printed_ = false;
  const double total = seconds_since(start_);
  if (total > 1.0 && s.eval_time > 0.5 * total)
    std::fprintf(stderr,
                 "hint: evaluating metrics took %.0f%% of the %.1f s; record fewer rows with "
                 "--eval-every K or --eval-log N\n",
                 100.0 * s.eval_time / total, total);
  std::fflush(stderr);
}

// ---- a suite

Progress::Progress(int total, int cached, bool quiet, int rank)
    : total_(total), cached_(cached), quiet_(quiet), tty_(isatty(fileno(stderr)) != 0),
      rank_(rank), start_(Clock::now()) {
  if (!quiet_)
    ticker_ = std::make_unique<Ticker>(progress_period(tty_), [this] {
      std::lock_guard lock(mutex_);
      if (!closed_) print_locked();
    });
}

Progress::~Progress() { close(); }

Progress::Running* Progress::started(std::int64_t rounds) {
  std::lock_guard lock(mutex_);
  Running& run = running_.emplace_back();
  run.rounds = rounds;
  return &run;
}

void Progress::abandoned(Running* run) {
  std::lock_guard lock(mutex_);
  running_.remove_if([run](const Running& r) { return &r == run; });
}

void Progress::finished(Running* run, const std::string& status, const std::string& metric_name, double metric,
                        Direction direction) {
  std::lock_guard lock(mutex_);
  running_.remove_if([run](const Running& r) { return &r == run; });
  ++done_;
  if (failed_status(status)) ++failed_;
  if (status == "diverged") ++diverged_;
  if (status == "ok" && std::isfinite(metric) && (!has_best_ || better(direction, metric, best_))) {
    best_ = metric;
    best_name_ = metric_name;
    has_best_ = true;
  }
  if (done_ + cached_ == total_) print_locked();  // the last one: its line is the summary
}

void Progress::finished_elsewhere() {
  std::lock_guard lock(mutex_);
  ++cached_;
  if (done_ + cached_ == total_) print_locked();
}

int Progress::finished_count() {
  std::lock_guard lock(mutex_);
  return done_ + cached_;
}

void Progress::message(const std::string& line) {
  std::lock_guard lock(mutex_);
  std::fflush(stdout);
  if (tty_ && !quiet_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "%s\n", line.c_str());
  if (!quiet_ && tty_) print_locked(true);  // the live line again, below the message
  std::fflush(stderr);
}

void Progress::close() {
  ticker_.reset();  // outside the lock: its last tick takes it
  std::lock_guard lock(mutex_);
  if (closed_) return;
  closed_ = true;
  if (quiet_) return;
  print_locked();  // the final counts
  if (tty_) std::fputs("\n", stderr);
  std::fflush(stderr);
}

void Progress::print_locked(bool again) {
  if (quiet_) return;
  // Runs going count for the share of their rounds done: the ETA moves while they run.
  double fraction_running = 0;
  std::string shares;
  int shown = 0;
  for (const Running& r : running_) {
    const double f = r.rounds > 0 ? std::min(1.0, static_cast<double>(r.done.load(std::memory_order_relaxed)) /
                                                      static_cast<double>(r.rounds))
                                  : 0.0;
    fraction_running += f;
    if (shown++ < 4)
      shares += std::string(shares.empty() ? " (" : " ") + std::to_string(static_cast<int>(100 * f)) + "%";
  }
  if (shown > 4) shares += " ...";
  if (!shares.empty()) shares += ")";
  const double units_done = done_ + fraction_running;
  const double units_left = total_ - cached_ - done_ - fraction_running;
  const double elapsed = seconds_since(start_);
  const std::string eta = units_left <= 0    ? "0:00"
                          : units_done > 0.01 ? clock_text(elapsed / units_done * units_left)
                                              : "?";
  char line[256];
  std::snprintf(line, sizeof line, "[%d/%d] %d done, %d cached, %d running%s, %d failed, %d diverged, ETA %s",
                done_ + cached_, total_, done_, cached_, static_cast<int>(running_.size()), shares.c_str(),
                failed_, diverged_, eta.c_str());
  std::string text = (rank_ > 0 ? "rank " + std::to_string(rank_) + " " : std::string()) + line;
  if (has_best_) {
    char best[96];
    std::snprintf(best, sizeof best, ", best %s %.3g", best_name_.c_str(), best_);
    text += best;
  }
  if (text == last_line_ && !again) return;  // e.g. the last run's line, then close()
  last_line_ = text;
  put_line(text, tty_);
}

}  // namespace fedbench::suite
