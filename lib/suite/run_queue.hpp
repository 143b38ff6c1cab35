// The order in which a rank starts its runs: longest first, by an estimate that finished runs
// refine. Runs of one configuration that differ only in their seed cost about the same, so
// once one of them has finished, the others are expected to take its seconds; runs of
// configurations not seen yet keep their static estimate, scaled to seconds by the ratio of
// seconds to estimate over the runs finished so far. Which run starts when never changes a
// result, only how well the cores are used.
#pragma once
#include <cstddef>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fedbench::suite {

class RunQueue {
 public:
  //! Runs `index`es with a static cost estimate and a configuration key each (runs of one key
  //! differ only in their seed).
  struct Entry {
    std::size_t index;
    double estimate;
    std::string key;
  };
  explicit RunQueue(std::vector<Entry> runs);

  //! The run expected to take longest among those not started; none when all have started.
  std::optional<std::size_t> take();
  //! A run taken from here finished after `seconds`.
  void finished(std::size_t index, double seconds);

 private:
  struct Config {  // the runs of one key
    std::vector<std::size_t> waiting;  // positions in runs_ not started, in estimate order
    std::size_t next = 0;              // first of them that may not have started
    double seconds = 0;                // mean seconds of its finished runs
    int finished = 0;
    int version = 0;                   // of its entry in by_seconds_
  };
  //! The configuration's next run not started (positions), or none.
  std::optional<std::size_t> next_waiting(Config& config);

  struct Run {
    std::size_t index;
    double estimate;
  };
  std::mutex mutex_;
  std::vector<Run> runs_;                        // by decreasing estimate (keys are not kept)
  std::vector<std::size_t> config_of_;           // per position: its configuration
  std::vector<char> started_;                    // per position
  std::size_t next_unknown_ = 0;                 // positions before it: started, or of a known configuration
  std::unordered_map<std::size_t, std::size_t> position_;  // suite index -> position in runs_
  std::vector<Config> configs_;
  // (expected seconds, (configuration, version)) of configurations with a finished run
  std::priority_queue<std::pair<double, std::pair<std::size_t, int>>> by_seconds_;
  double seconds_sum_ = 0, estimate_sum_ = 0;    // over finished runs: seconds per unit of estimate
};

}  // namespace fedbench::suite
