#include "suite/suite_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "core/core_share.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "core/thread_pool.hpp"
#include "io/run_sinks.hpp"
#include "problem/evaluation_threads.hpp"
#include "problem/problem_registry.hpp"
#include "suite/isolated_run.hpp"
#include "suite/last_metric.hpp"
#include "suite/mpi_world.hpp"
#include "suite/progress.hpp"
#include "suite/run_queue.hpp"
#include "results/results_store.hpp"
#include "results/run_claim.hpp"

namespace fedbench::suite {

namespace {

// Problems are built once per distinct (name, parameters) and shared by the runs using them.
class ProblemCache {
 public:
  std::shared_ptr<const Problem> get(const RunRequest& r) {
    std::string key = r.problem;
    for (const auto& [k, v] : problem_registry().get(r.problem).resolved(r.problem_params))
      key += "\n" + k + "=" + v;
    std::shared_ptr<Slot> slot;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto& s = slots_[key];
      if (!s) s = std::make_shared<Slot>();
      slot = s;
    }
    std::call_once(slot->once, [&] {
      slot->problem = std::shared_ptr<const Problem>(make_problem(r.problem, r.problem_params));
    });
    return slot->problem;
  }

 private:
  struct Slot {
    std::once_flag once;
    std::shared_ptr<const Problem> problem;
  };
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Slot>> slots_;
};

// OpenMPI states how many ranks share this node; other launchers: assume all of them do.
int ranks_on_this_node(const MpiWorld& mpi) {
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) {
    long long n = 0;
    if (parse_int(local, n) && n >= 1) return static_cast<int>(n);
  }
  return mpi.size();
}

std::string describe(const SuiteRun& run) {
  std::string s = "run " + run.id + " (" + run.request.solver;
  for (const auto& [k, v] : run.request.solver_params) s += " " + k + "=" + v;
  s += " on " + run.request.problem + ", seed " + std::to_string(run.request.seed) + ")";
  return s;
}

// How a run ended: its status and, for anything but "ok", why.
struct RunOutcome {
  std::string status, message;
};


// Prepares every run (one per suite run, in order): all checks happen here, before any run.
std::vector<PreparedRun> prepare_all(const Suite& suite) {
  ProblemCache cache;
  std::vector<PreparedRun> prepared;
  prepared.reserve(suite.runs.size());
  for (const auto& run : suite.runs) {
    throw_if_interrupted();  // building thousands of instances takes a while: Ctrl-C ends it here
    std::shared_ptr<const Problem> problem;
    try {
      problem = cache.get(run.request);
    } catch (const UserError& e) {  // bad data, inconsistent parameters: the problem entry
      throw UserError(run.problem_where + "problem " + run.request.problem + ": " + e.what());
    }
    try {
      prepared.push_back(prepare_run(run.request, problem));
      prepared.back().identity = run.identity_text;
    } catch (const UserError& e) {  // compatibility, theory constants: the solver entry
      throw UserError(run.solver_where + describe(run) + ": " + e.what());
    }
  }
  return prepared;
}

// The shared instances' reference solutions and constants, on every core before the runs
// start (the first run to need them would otherwise compute them on its one thread while the
// others wait). Only instances with a run to do: a suite whose runs are all cached costs nothing.
void warm_up_instances(const std::vector<PreparedRun>& prepared, const std::vector<std::size_t>& mine,
                       int cores) {
  if (mine.empty()) return;  // everything cached: no instance is needed
  std::set<const Problem*> seen;
  ThreadPool pool(cores);
  const EvaluationThreads threads(&pool);
  for (std::size_t i : mine) {
    if (!seen.insert(prepared[i].problem.get()).second) continue;
    try {
      prepared[i].problem->warm_up();
    } catch (const std::exception&) {
      // left for the runs: each reports the failure as its outcome, as without the warm-up
    }
  }
}

// What runs that differ only in their seed share: they cost about the same.
std::string configuration_key(const RunRequest& r) {
  std::string key = r.problem;
  for (const auto& [k, v] : r.problem_params) key += "\n" + k + "=" + v;
  key += "\n" + r.solver;
  for (const auto& [k, v] : r.solver_params) key += "\n" + k + "=" + v;
  return key + "\n" + r.participation.to_text() + "\n" + std::to_string(r.budget.rounds);
}

// A finished run that is not run again: done, or stale and kept by --reuse-stale.
bool kept(RunState state, const SuiteOptions& options) {
  return !options.force && (state == RunState::done || (state == RunState::stale && options.reuse_stale));
}

struct WorkPlan {
  std::vector<std::size_t> mine;
  long long cached = 0;      // of this rank's runs: finished already
  long long stale = 0;       // of this rank's runs: finished by other code or from other data
  std::string stale_reason;  // the first one's
  long long shared = 0;      // of the cached: copied from another results directory
  std::set<std::string> shared_from;
};

// Copies the run from the first results directory of `donors` that finished it; false if none did.
bool adopt_from(const ResultsStore& store, const std::vector<ResultsStore>& donors, const SuiteRun& run,
                WorkPlan& plan) {
  for (const auto& donor : donors)
    if (store.adopt(donor, run)) {
      ++plan.shared;
      plan.shared_from.insert(donor.dir());
      return true;
    }
  return false;
}

// The runs this rank will run (not finished yet, or all with --force). The runs are dealt
// round-robin over the ranks from the whole suite in estimated-cost order (each rank gets a
// share of the long ones), before any state is read: ranks
// that look at a shared directory at different moments (other processes finishing runs in
// between) still deal every run to exactly one rank, and each rank counts only its own.
WorkPlan plan_work(const Suite& suite, const ResultsStore& store, const SuiteOptions& options,
                   const MpiWorld& mpi) {
  std::vector<std::size_t> order(suite.runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return suite.runs[a].cost > suite.runs[b].cost;  // longest first
  });
  std::vector<ResultsStore> donors;
  if (!options.force)
    for (const auto& dir : options.share_from) {
      std::error_code ec;
      if (std::filesystem::is_directory(dir + "/runs", ec)) donors.emplace_back(dir);
    }
  WorkPlan plan;
  for (std::size_t k = static_cast<std::size_t>(mpi.rank()); k < order.size();
       k += static_cast<std::size_t>(mpi.size())) {
    const std::size_t i = order[k];
    std::string why;
    const RunState state = options.force ? RunState::fresh : store.state(suite.runs[i], &why);
    // A partial run resumes and a corrupt one is set aside and rerun, as without donors.
    const bool shareable = state == RunState::fresh || (state == RunState::stale && !options.reuse_stale);
    const bool adopted = shareable && adopt_from(store, donors, suite.runs[i], plan);
    if (state == RunState::stale && !adopted && plan.stale++ == 0) plan.stale_reason = why;
    if (adopted || kept(state, options)) {
      ++plan.cached;
      RunClaim::remove_stale(store.runs(), suite.runs[i].id);
    } else {
      plan.mine.push_back(i);
    }
  }
  return plan;
}

// Parallel runs and threads per run on this rank: the cores of this node are shared by the
// ranks on it (mpirun puts them on one node unless told otherwise); oversubscribed pool threads
// would spin against each other. Results do not depend on either.
struct Parallelism {
  int cores, jobs, threads_per_run;
  bool threads_grow;  // runs take the cores of jobs with nothing left to start (not with --threads)
};
Parallelism parallelism(const SuiteOptions& options, std::size_t runs, const MpiWorld& mpi) {
  const int cores = std::max(1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) /
                                    ranks_on_this_node(mpi));
  const int jobs = std::max(1, std::min<int>(options.jobs > 0 ? options.jobs : cores,
                                             static_cast<int>(std::max<std::size_t>(runs, 1))));
  if (options.threads > 0) return {cores, jobs, options.threads, false};
  return {cores, jobs, std::max(1, cores / jobs), true};
}

}  // namespace

void validate_suite(const Suite& suite) { prepare_all(suite); }

SuiteTotals run_suite(const Suite& suite, const SuiteOptions& options) {
  const MpiWorld& mpi = world();
  ResultsStore store(suite.results_dir);
  store.ensure_exists();

  // Validate and prepare everything first (every rank, deterministically).
  std::vector<PreparedRun> prepared = prepare_all(suite);

  const WorkPlan plan = plan_work(suite, store, options, mpi);
  const long long stale = mpi.sum(plan.stale), cached = mpi.sum(plan.cached);  // over all ranks
  const long long shared = mpi.sum(plan.shared);
  if (plan.shared > 0 && !options.quiet) {
    std::string from;
    for (const auto& dir : plan.shared_from) from += (from.empty() ? "" : ", ") + dir;
    std::fprintf(stderr, "fedbench: %lld finished run%s of the same configuration and code copied from %s\n",
                 plan.shared, plan.shared == 1 ? "" : "s", from.c_str());
  }
  // The reason shown is rank 0's first; a stale run on another rank only is counted.
  if (stale > 0 && mpi.rank() == 0 && !options.quiet)
    std::fprintf(stderr, "fedbench: %s %lld stale run%s (%s%s)%s\n",
                 options.reuse_stale ? "keeping" : "rerunning", stale, stale == 1 ? "" : "s",
                 plan.stale_reason.empty() ? "on other ranks" : plan.stale_reason.c_str(),
                 stale > 1 ? "; `fedbench plan` lists each" : "",
                 options.reuse_stale ? " as --reuse-stale asks; the manifest marks them" : "");
  const std::vector<std::size_t>& mine = plan.mine;
  const Parallelism parallel = parallelism(options, mine.size(), mpi);
  const int jobs = parallel.jobs, threads_per_run = parallel.threads_per_run;  // lambdas capture these
  CoreShare cores(parallel.cores, jobs * threads_per_run);
  warm_up_instances(prepared, mine, parallel.cores);
  CoreShare* const share = parallel.threads_grow ? &cores : nullptr;

  const int shown_cached = mpi.rank() == 0 ? static_cast<int>(cached) : 0;  // counted once
  Progress progress(static_cast<int>(mine.size()) + shown_cached, shown_cached, options.quiet,
                    mpi.rank());
  std::atomic<long long> diverged{0}, failed{0}, finished{0}, finished_elsewhere{0};
  std::mutex write_error_mutex;
  std::string write_error;  // the first refused write: no run is started after it
  std::atomic<bool> stop{false};
  const std::optional<double> run_timeout = options.run_timeout ? options.run_timeout : suite.run_timeout;

  // A run in this process, written to its file through `last` too.
  auto run_here = [&](std::size_t index, Progress::Running* running, LastMetric& last) {
    const auto writer = store.run_sink(suite.runs[index].id);  // in the runs/ opened when the suite began
    TeeSink tee({&last, writer.get()});
    PreparedRun& run = prepared[index];
    run.mpi_ranks = mpi.size();
    run.core_share = share;
    run.rounds_done = &running->done;
    run.overlap = options.overlap;
    run.run_timeout = run_timeout;
    const RunSummary s = execute(run, threads_per_run, tee, options.command_line);
    return RunOutcome{s.status(), s.message};
  };
  // A plug-in's run, in a child process: its crash or hang costs this run only.
  auto run_child = [&](std::size_t index, Progress::Running* running, LastMetric& last) {
    ChildSettings child;
    child.threads = threads_per_run;
    child.overlap = options.overlap;
    child.run_timeout = run_timeout;
    child.command_line = options.command_line;
    child.rounds_done = &running->done;
    prepared[index].mpi_ranks = mpi.size();
    const ChildOutcome outcome = run_in_child(suite.runs[index], prepared[index], store, child);
    last.name = outcome.metric;
    last.value = outcome.value;
    last.direction = outcome.direction;
    return RunOutcome{outcome.status, outcome.message};
  };
  // One run under its claim: skipped if another process finished it meanwhile (false), a
  // corrupt file set aside, then run and written (true).
  auto run_claimed = [&](std::size_t index, RunClaim& claim) {
    const SuiteRun& run = suite.runs[index];
    const RunState state = store.state(run);
    if (kept(state, options)) {
      claim.finished();
      ++finished_elsewhere;
      progress.finished_elsewhere();
      return false;
    }
    if (state == RunState::corrupt) {
      const std::string file = store.run_file(run.id), why = store.set_aside(run);
      progress.message("fedbench: not a complete run: " + naming(file, why) + "; moved to " +
                       file + ".corrupt, running it again");
    }
    Progress::Running* const running = progress.started(run.request.budget.rounds);
    std::string status = "error";
    LastMetric last;
    try {
      const RunOutcome outcome = runs_in_child(run.request.problem, run.request.solver) ? run_child(index, running, last) : run_here(index, running, last);
      status = outcome.status;
      if (failed_status(status))
        progress.message("fedbench: " + describe(run) + ": " + (status == "error" ? "" : status + ": ") + outcome.message);
    } catch (const WriteError&) {
      progress.abandoned(running);
      throw;
    } catch (const Interrupted&) {
      // The run's .part went with its writer; its claim goes too, lock file included, so that
      // nothing of it is left and the next invocation runs it again.
      progress.abandoned(running);
      claim.finished();
      return false;
    } catch (const std::exception& e) {
      progress.message("fedbench: " + describe(run) + ": " + e.what());
    }
    claim.finished();
    if (status == "diverged") ++diverged;
    if (failed_status(status)) ++failed;
    ++finished;
    progress.finished(running, status, last.name, last.value, last.direction);
    return true;
  };
  auto guarded = [&](auto&& body) {
    try {
      body();
    } catch (const WriteError& e) {  // the disk refuses: stop starting runs, report once
      std::lock_guard<std::mutex> lock(write_error_mutex);
      if (write_error.empty()) write_error = e.what();
      stop = true;
    }
  };
  // Runs another process holds are taken last, waiting for it: if it dies, they run here.
  std::mutex held_mutex;
  std::vector<std::size_t> held_elsewhere;
  std::vector<RunQueue::Entry> entries;
  entries.reserve(mine.size());
  for (std::size_t i : mine) entries.push_back({i, suite.runs[i].cost, configuration_key(suite.runs[i].request)});
  RunQueue queue(std::move(entries));  // longest first, refined by the runs that finish
  auto worker = [&] {
    for (auto index = queue.take(); index && !stop && !interrupt_signal(); index = queue.take())
      guarded([&] {
        RunClaim claim(store.runs(), suite.runs[*index].id, RunClaim::Wait::no);
        if (claim.held()) {
          const auto start = std::chrono::steady_clock::now();
          if (run_claimed(*index, claim))
            queue.finished(*index, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          return;
        }
        std::lock_guard<std::mutex> lock(held_mutex);
        held_elsewhere.push_back(*index);
      });
    cores.job_finished(threads_per_run);  // nothing left to start: the runs going take them
  };
  std::vector<std::thread> pool;
  for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (std::size_t index : held_elsewhere)
    if (!stop && !interrupt_signal())
      guarded([&] {
        RunClaim claim(store.runs(), suite.runs[index].id, RunClaim::Wait::yes);
        run_claimed(index, claim);
      });
  const int finished_here = progress.finished_count();
  progress.close();

  mpi.barrier();
  const long long write_failures = mpi.sum(static_cast<long long>(!write_error.empty()));
  if (mpi.rank() == 0)
    guarded([&] {
      store.write_manifest();
      store.record_suite(suite);  // what select, report and export show from now on
    });
  mpi.barrier();
  if (interrupt_signal())
    throw Interrupted(std::string(interrupt_word()) + "; rerun the same command to resume (" +
                      std::to_string(finished_here) + " of " + std::to_string(progress.total()) + " runs done)");
  SuiteTotals totals;
  totals.total = static_cast<long long>(suite.runs.size());
  totals.cached = cached + mpi.sum(finished_elsewhere);
  totals.shared = shared;
  totals.finished = mpi.sum(finished);
  totals.write_error = write_error;
  totals.write_failures = write_failures;
  totals.diverged = mpi.sum(diverged);
  totals.failed = mpi.sum(failed);
  (options.reuse_stale ? totals.stale_kept : totals.stale_rerun) = stale;
  return totals;
}

}  // namespace fedbench::suite
