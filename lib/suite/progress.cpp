#include "suite/progress.hpp"

#include <unistd.h>

#include <cmath>

namespace fedbench::suite {

Progress::Progress(int total, int cached, bool quiet, int rank)
    : total_(total), cached_(cached), quiet_(quiet), tty_(isatty(fileno(stderr)) != 0),
      rank_(rank), start_(std::chrono::steady_clock::now()), last_print_(start_) {}

void Progress::started() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++running_;
  print_locked(false);
}

void Progress::finished(const std::string& status, const std::string& metric_name, double metric,
                        Direction direction) {
  std::lock_guard<std::mutex> lock(mutex_);
  --running_;
  ++done_;
  if (status == "error") ++failed_;
  if (status == "diverged") ++diverged_;
  if (status == "ok" && std::isfinite(metric) &&
      (!has_best_ || better(direction, metric, best_))) {
    best_ = metric;
    best_name_ = metric_name;
    has_best_ = true;
  }
  print_locked(done_ + cached_ == total_);
}

void Progress::finished_elsewhere() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++cached_;
  print_locked(done_ + cached_ == total_);
}

void Progress::message(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tty_ && !quiet_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "%s\n", line.c_str());
  print_locked(true);
}

void Progress::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (quiet_) return;
  if (tty_) std::fputs("\n", stderr);
  std::fflush(stderr);
}

void Progress::print_locked(bool force) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since_print = std::chrono::duration<double>(now - last_print_).count();
  if (!tty_ && !force && since_print < 5.0) return;  // piped: a plain line every 5 s
  if (tty_ && !force && since_print < 0.1) return;
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const int remaining = total_ - cached_ - done_;
  char eta[32] = "?";
  if (done_ > 0) {
    const int s = static_cast<int>(elapsed / done_ * remaining);
    std::snprintf(eta, sizeof eta, "%d:%02d", s / 60, s % 60);
  }
  char line[256];
  std::snprintf(line, sizeof line, "[%d/%d] %d done, %d cached, %d running, %d failed, %d diverged, ETA %s",
                done_ + cached_, total_, done_, cached_, running_, failed_, diverged_, eta);
  std::string text = (rank_ > 0 ? "rank " + std::to_string(rank_) + " " : std::string()) + line;
  if (has_best_) {
    char best[64];
    std::snprintf(best, sizeof best, ", best %s %.3g", best_name_.c_str(), best_);
    text += best;
  }
  if (tty_) std::fprintf(stderr, "\r\033[K%s", text.c_str());
  else std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

RunProgress::RunProgress(std::int64_t rounds, bool quiet)
    : rounds_(rounds), quiet_(quiet), tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()), last_print_(start_) {}

void RunProgress::begin(const RunHeader& header) {
  start_ = last_print_ = std::chrono::steady_clock::now();
  primary_name_ = header.primary_metric;
  for (std::size_t k = 0; k < header.metric_names.size(); ++k)
    if (header.metric_names[k] == header.primary_metric) primary_ = k;
}

void RunProgress::row(const TrajectoryRow& r) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if (since < (tty_ ? 0.1 : 5.0)) return;  // piped: a plain line every 5 s
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  char eta[32] = "?";
  if (r.round > 0 && rounds_ > r.round) {
    const int s = static_cast<int>(elapsed / static_cast<double>(r.round) *
                                   static_cast<double>(rounds_ - r.round));
    std::snprintf(eta, sizeof eta, "%d:%02d", s / 60, s % 60);
  } else if (rounds_ <= r.round) {
    std::snprintf(eta, sizeof eta, "0:00");
  }
  const double value = primary_ < r.metrics.size() ? r.metrics[primary_] : NAN;
  const double share = elapsed > 0 ? 100.0 * r.eval_time / elapsed : 0.0;
  std::fprintf(stderr, tty_ ? "\r\033[Kround %lld/%lld  %s %.4g  ETA %s  evaluating %.0f%%"
                            : "round %lld/%lld  %s %.4g  ETA %s  evaluating %.0f%%\n",
               static_cast<long long>(r.round), static_cast<long long>(rounds_),
               primary_name_.c_str(), value, eta, share);
  std::fflush(stderr);
  printed_ = true;
}

void RunProgress::end(const RunSummary& s) {
  if (quiet_) return;
  if (printed_ && tty_) std::fputs("\r\033[K", stderr);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (total > 1.0 && s.eval_time > 0.5 * total)
    std::fprintf(stderr,
                 "hint: evaluating metrics took %.0f%% of the %.1f s; record fewer rows with "
                 "--eval-every K or --eval-log N\n",
                 100.0 * s.eval_time / total, total);
  std::fflush(stderr);
}

}  // namespace fedbench::suite
