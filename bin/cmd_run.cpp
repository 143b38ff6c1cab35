// `fedbench run`: one run of a solver on a problem, validated before any work, optionally
// written to HDF5.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <thread>

#include "checked_options.hpp"
#include "stuck_run_watch.hpp"
#include "commands.hpp"
#include "core/text.hpp"
#include "engine/runner.hpp"
#include "io/iterate_trace.hpp"
#include "core/interrupt.hpp"
#include "io/run_sinks.hpp"
#include "suite/progress.hpp"
#include "suite/mpi_world.hpp"
#include "suite/suite_runner.hpp"
#include "suite/suite_search.hpp"

namespace fedbench::cli {

std::string& command_line() {
  static std::string text;
  return text;
}

namespace {

EvaluationOverlap overlap_mode(const std::string& text) {
  if (text == "on") return EvaluationOverlap::always;
  if (text == "off") return EvaluationOverlap::never;
  return EvaluationOverlap::automatic;
}

struct RunOptions {
  std::string participation = "full", target;
  std::vector<std::string> problems, solvers;  // one each for a single run; filters for a suite
  std::vector<std::string> problem_params, solver_params, outputs;
  std::string trace_iterates;
  std::string eval_overlap = "auto";
  long long rounds = 100, seed = 0, eval_every = 1, max_samples = -1, max_bytes = -1;
  int eval_log = 0, clients = -1, threads = 0;
  double time_limit = -1, divergence_factor = 1e10, run_timeout = -1;
  bool quiet = false;
  // suite mode
  std::string suite, results;
  std::vector<std::string> share_runs;
  int jobs = 0;
  bool force = false;
  bool reuse_stale = false;
};

// What the terminal summary needs of a run, and no more: the metric names, the first and last
// rows and the outcome (a long run or one with many clients is not kept in memory for it).
class RunDigest : public TrajectorySink {
 public:
  void begin(const RunHeader& h) override { metric_names_ = h.metric_names; }
  void row(const TrajectoryRow& r) override {
    if (!first_) first_ = r;
    last_ = r;
  }
  void end(const RunSummary& s) override {
    std::printf("status: %s (%s)%s%s\n", s.status().c_str(), to_string(s.reason).c_str(),
                s.message.empty() ? "" : ": ", s.message.c_str());
    if (!first_) return;
    std::printf("rounds: %lld  samples: %lld  floats up/down: %lld/%lld  solver time: %.3f s\n",
                static_cast<long long>(last_.round), static_cast<long long>(last_.oracle.samples),
                static_cast<long long>(last_.comm.floats_up),
                static_cast<long long>(last_.comm.floats_down), last_.wall_time);
    for (std::size_t k = 0; k < metric_names_.size(); ++k)
      std::printf("%s: %.6e -> %.6e\n", metric_names_[k].c_str(), first_->metrics[k], last_.metrics[k]);
  }

 private:
  std::vector<std::string> metric_names_;
  std::optional<TrajectoryRow> first_;
  TrajectoryRow last_;
};

int run_suite_file(const RunOptions& o, const CLI::App& sub) {
  for (const char* opt : {"--rounds", "--clients", "--participation",
                          "--seed", "--eval-every", "--eval-log", "--target", "--max-samples",
                          "--max-bytes", "--time-limit", "--divergence-factor", "--output",
                          "--trace-iterates"})
    if (sub.count(opt))
      throw UserError(std::string(opt) + " cannot be combined with a suite file; set it in " +
                      o.suite);
  suite::SuiteOverrides overrides;
  overrides.solver_params = o.solver_params;
  overrides.problem_params = o.problem_params;
  overrides.results_dir = o.results;
  overrides.only_problems = o.problems;
  overrides.only_solvers = o.solvers;
  const suite::Suite s = suite::load_suite(suite::resolve_suite_path(o.suite), overrides);
  suite::SuiteOptions options;
  options.jobs = o.jobs;
  options.threads = o.threads;
  options.overlap = overlap_mode(o.eval_overlap);
  if (o.run_timeout > 0) options.run_timeout = o.run_timeout;
  options.force = o.force;
  options.reuse_stale = o.reuse_stale;
  for (const auto& dir : o.share_runs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir + "/runs", ec))
      throw UserError("--share-runs " + dir + ": not a results directory (no runs/ in it); name one a suite wrote");
  }
  options.share_from = o.share_runs;
  options.quiet = o.quiet;
  options.command_line = command_line();
  const suite::SuiteTotals t = suite::run_suite(s, options);
  if (!t.write_error.empty())
    throw WriteError(t.write_error + "; finished runs are kept, rerun to resume");
  if (t.write_failures > 0) return 1;  // another rank could not write (it said why)
  if (suite::world().rank() == 0 && !o.quiet)
    std::printf("suite %s: %lld runs: %lld finished now%s, %lld already done%s, %lld diverged, "
                "%lld failed; results in %s\n",
                s.name.c_str(), t.total, t.finished,
                t.stale_rerun ? (" (" + std::to_string(t.stale_rerun) + " of them stale before)").c_str() : "",
                t.cached,
                t.shared ? (" (" + std::to_string(t.shared) + " copied from --share-runs)").c_str()
                : t.stale_kept ? (" (" + std::to_string(t.stale_kept) + " stale, kept)").c_str() : "",
                t.diverged, t.failed, s.results_dir.c_str());
  return t.failed > 0 ? 1 : 0;
}

}  // namespace

std::function<int()> add_run(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "run", "run one solver on one problem, or every run of a suite file (SUITE.yaml)");
  auto o = std::make_shared<RunOptions>();
  sub->add_option("suite", o->suite,
                  "suite file (YAML), or the name of a shipped suite (fedbench list suites); -s/-p then give "
                  "grids key=v1,v2");
  sub->add_option("--problem", o->problems,
                  "problem name (fedbench list problems); with a suite: run only its entries of "
                  "this problem (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--solver", o->solvers,
                  "solver name (fedbench list solvers); with a suite: run only its entries of "
                  "this solver (repeatable)")
      ->allow_extra_args(false);
  add_whole_number(sub, "--jobs", o->jobs, "suite: runs in parallel (default: all cores)", 1, kMaxThreads);
  sub->add_flag("--force", o->force, "suite: rerun finished runs too");
  sub->add_flag("--reuse-stale", o->reuse_stale,
                "suite: keep finished runs made by other code or from other data instead of rerunning "
                "them (the manifest marks them stale)");
  sub->add_option("--results", o->results, "suite: results directory (default from the file)");
  sub->add_option("--share-runs", o->share_runs,
                  "suite: another results directory; a run it finished with the same configuration and this "
                  "code is copied instead of run again (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("-p,--problem-param", o->problem_params, "problem parameter key=value")
      ->allow_extra_args(false);
  sub->add_option("-s,--solver-param", o->solver_params, "solver parameter key=value")
      ->allow_extra_args(false);
  add_whole_number(sub, "--rounds", o->rounds, "communication rounds (default 100)", 0, kMaxWholeNumber);
  add_whole_number(sub, "--clients", o->clients, "shortcut for -p clients=M", 1, std::numeric_limits<int>::max());
  sub->add_option("--participation", o->participation, "full | uniform:M | bernoulli:Q | iid:M | dropout:M:R (M candidates, up to floor(R M) drop out)");
  add_whole_number(sub, "--seed", o->seed, "seed of every random stream of the run (default 0)", 0, kMaxSeed);
  add_whole_number(sub, "--eval-every", o->eval_every,
                   "record metrics every k rounds (default 1; problems with expensive exact metrics, "
                   "such as the bilevel ones, default to --eval-log 10)",
                   1, kMaxWholeNumber);
  add_whole_number(sub, "--eval-log", o->eval_log, "record at log-spaced rounds, N points per decade", 1,
                   std::numeric_limits<int>::max());
  sub->add_option("--target", o->target, "stop when METRIC<=VALUE or METRIC>=VALUE is reached, e.g. rel_error<=1e-12, test_accuracy>=0.9");
  add_whole_number(sub, "--max-samples", o->max_samples, "stop after this many sample gradients", 0, kMaxWholeNumber);
  add_whole_number(sub, "--max-bytes", o->max_bytes, "stop after this many bytes up + down", 0, kMaxWholeNumber);
  add_positive_real(sub, "--time-limit", o->time_limit,
                    "stop after this many seconds of the run's wall clock (rounds, evaluations and writing); the run ends \"ok\" with what it reached", "seconds");
  add_positive_real(sub, "--run-timeout", o->run_timeout,
                    "end a run still going after this many seconds with status \"timeout\" (not a result; a "
                    "suite goes on with its other runs; also `run_timeout:` in a suite file); checked between "
                    "rounds, and a plug-in's run that does not get there is killed 5 s later",
                    "seconds");
  add_positive_real(sub, "--divergence-factor", o->divergence_factor,
                    "diverged when the primary metric exceeds this times its start value", "a factor");
  add_whole_number(sub, "--threads", o->threads,
                   "threads of a run, for its clients and its evaluations (default: all cores; in a suite, cores / jobs, and runs take the cores of jobs with nothing left to start; given, it stays fixed); results do not depend on it",
                   1, kMaxThreads, "use at most the machine's cores (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " here)");
  sub->add_option("--eval-overlap", o->eval_overlap,
                  "evaluate recorded rows beside the next rounds: auto (when the rounds leave threads idle and "
                  "an evaluation costs a millisecond or more), on (always, a thread of its own at least), off; "
                  "results do not depend on it")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  sub->add_option("-o,--output", o->outputs,
                  "write the run to FILE.h5 (the run file), FILE.csv or FILE.json; repeatable")
      ->allow_extra_args(false);
  sub->add_option("--trace-iterates", o->trace_iterates,
                  "write the server iterate z = (x, y) at every recorded row to FILE (text, "
                  "\"round z_1 ... z_d\", exact doubles), each followed by the solver's lasting states "
                  "(\"state round NAME v_1 ...\", \"state round c/NAME CLIENT v_1 ...\"); with "
                  "--eval-every 1, every round");
  sub->add_flag("-q,--quiet", o->quiet, "print nothing but errors");

  return [o, sub] {
    if (!o->suite.empty()) return run_suite_file(*o, *sub);
    if (o->problems.size() != 1 || o->solvers.size() != 1)
      throw UserError("run needs one --problem NAME and one --solver NAME, or a suite file");
    for (const char* opt : {"--jobs", "--force", "--reuse-stale", "--results", "--share-runs"})
      if (sub->count(opt)) throw UserError(std::string(opt) + " applies to suite files only");
    RunRequest req;
    req.problem = o->problems.front();
    req.solver = o->solvers.front();
    req.solver_params = parse_assignments(o->solver_params, "solver " + req.solver);
    req.problem_params = parse_assignments(o->problem_params, "problem " + req.problem);
    if (o->clients >= 0) req.problem_params["clients"] = std::to_string(o->clients);
    req.participation = Participation::parse(o->participation);
    req.seed = static_cast<std::uint64_t>(o->seed);
    req.budget.rounds = o->rounds;
    if (o->max_samples >= 0) req.budget.max_samples = o->max_samples;
    if (o->max_bytes >= 0) req.budget.max_bytes = o->max_bytes;
    if (o->time_limit >= 0) req.budget.time_limit = o->time_limit;
    if (!o->target.empty()) req.budget.target = Target::parse(o->target);
    req.budget.divergence_factor = o->divergence_factor;
    req.eval.every = o->eval_every;
    req.eval.log_points_per_decade = o->eval_log;
    if (!sub->count("--eval-every") && !sub->count("--eval-log"))
      req.eval = default_eval_schedule(req.problem);
    const int threads =
        o->threads > 0 ? o->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

    std::vector<io::OutputFormat> formats;
    for (const auto& path : o->outputs) formats.push_back(io::output_format_of(path));
    PreparedRun run = prepare_run(req);
    suite::RunProgress progress(req.budget.rounds, o->quiet);
    run.rounds_done = progress.rounds_done();
    run.overlap = overlap_mode(o->eval_overlap);
    if (o->run_timeout > 0) run.run_timeout = o->run_timeout;
    const StuckRunWatch watch(run);  // a plug-in that never returns from a hook
    std::vector<std::unique_ptr<TrajectorySink>> files;
    std::vector<TrajectorySink*> sinks{&progress};
    for (std::size_t k = 0; k < o->outputs.size(); ++k) {
      files.push_back(io::make_file_sink(formats[k], o->outputs[k]));
      sinks.push_back(files.back().get());
    }
    std::unique_ptr<io::IterateTrace> trace;
    if (!o->trace_iterates.empty()) {
      trace = std::make_unique<io::IterateTrace>(o->trace_iterates);
      sinks.push_back(trace.get());
    }
    RunDigest digest;  // last: it prints when the files are complete
    if (!o->quiet) sinks.push_back(&digest);
    TeeSink tee(sinks);
    RunSummary summary;
    try {
      summary = execute(run, threads, tee, command_line());
    } catch (const Interrupted& e) {  // the output files' partial versions are gone already
      throw Interrupted(std::string(e.what()) + "; nothing was written: rerun the same command to start the run again");
    }
    if (!o->quiet)
      for (const auto& output : o->outputs) std::printf("written: %s\n", output.c_str());
    return failed_status(summary.status()) ? 1 : 0;
  };
}

}  // namespace fedbench::cli
