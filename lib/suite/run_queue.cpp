#include "suite/run_queue.hpp"

#include <algorithm>

namespace fedbench::suite {

RunQueue::RunQueue(std::vector<Entry> runs) : config_of_(runs.size()), started_(runs.size(), 0) {
  std::stable_sort(runs.begin(), runs.end(), [](const Entry& a, const Entry& b) { return a.estimate > b.estimate; });
  runs_.reserve(runs.size());
  std::unordered_map<std::string, std::size_t> config_id;
  for (std::size_t p = 0; p < runs.size(); ++p) {
    const auto [it, added] = config_id.emplace(std::move(runs[p].key), configs_.size());
    if (added) configs_.emplace_back();
    config_of_[p] = it->second;
    configs_[it->second].waiting.push_back(p);
    position_[runs[p].index] = p;
    runs_.push_back({runs[p].index, runs[p].estimate});
  }
}

std::optional<std::size_t> RunQueue::next_waiting(Config& config) {
  while (config.next < config.waiting.size() && started_[config.waiting[config.next]]) ++config.next;
  if (config.next == config.waiting.size()) return std::nullopt;
  return config.waiting[config.next];
}

std::optional<std::size_t> RunQueue::take() {
  std::lock_guard lock(mutex_);
  // The known configuration expected to take longest that still has a run to start.
  std::optional<std::size_t> known;
  double known_seconds = 0;
  while (!by_seconds_.empty()) {
    const auto [seconds, id] = by_seconds_.top();
    Config& config = configs_[id.first];
    if (id.second == config.version) {
      if (const auto p = next_waiting(config)) {
        known = p;
        known_seconds = seconds;
        break;
      }
    }
    by_seconds_.pop();  // superseded, or nothing left to start
  }
  // The longest-estimated run of a configuration with no finished run yet.
  while (next_unknown_ < runs_.size() &&
         (started_[next_unknown_] || configs_[config_of_[next_unknown_]].finished > 0))
    ++next_unknown_;
  const double per_estimate = estimate_sum_ > 0 ? seconds_sum_ / estimate_sum_ : 1.0;
  std::optional<std::size_t> pick;
  if (next_unknown_ < runs_.size()) pick = next_unknown_;
  if (known && (!pick || known_seconds > runs_[*pick].estimate * per_estimate)) pick = known;
  if (!pick) return std::nullopt;
  started_[*pick] = 1;
  return runs_[*pick].index;
}

void RunQueue::finished(std::size_t index, double seconds) {
  std::lock_guard lock(mutex_);
  const auto found = position_.find(index);
  if (found == position_.end()) return;
  seconds_sum_ += seconds;
  estimate_sum_ += runs_[found->second].estimate;
  Config& config = configs_[config_of_[found->second]];
  config.seconds = (config.seconds * config.finished + seconds) / (config.finished + 1);
  ++config.finished;
  by_seconds_.emplace(config.seconds, std::make_pair(config_of_[found->second], ++config.version));
}

}  // namespace fedbench::suite
