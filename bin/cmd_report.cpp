// `fedbench report RESULTS [-o DIR]`: one self-contained HTML page of a results directory,
// drawn by scripts/report.py (python3 with h5py, numpy, pandas, matplotlib from Debian). The
// script is found installed beside the binary (PREFIX/share/fedbench/scripts) or in the
// source tree this binary was built from; FEDBENCH_SCRIPTS overrides both. No shell is run.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"

namespace fedbench::cli {
namespace {

namespace fs = std::filesystem;

std::string find_script(const std::string& name) {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("FEDBENCH_SCRIPTS")) dirs.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "fedbench" / "scripts");
#ifdef FEDBENCH_SOURCE_DIR
  dirs.push_back(fs::path(FEDBENCH_SOURCE_DIR) / "scripts");
#endif
  for (const auto& d : dirs)
    if (fs::is_regular_file(d / name, ec)) return (d / name).string();
  throw UserError("cannot find " + name + " (looked in the installed share/fedbench/scripts and "
                  "the source tree); set FEDBENCH_SCRIPTS to the directory that holds it");
}

std::string python() {
  if (const char* env = std::getenv("FEDBENCH_PYTHON")) return env;
  std::error_code ec;
  return fs::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";  // Debian's h5py
}

// Runs argv[0] with the arguments, without a shell; returns its exit status.
int run_program(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) throw UserError("cannot start " + args[0]);
  if (pid == 0) {
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw UserError("cannot run " + args[0] + "; install python3 (scripts/install-deps.sh)");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

std::function<int()> add_report(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "report", "write one self-contained HTML page of a results directory (curves, tables, "
                "diverged and failed runs, grid, environment)");
  struct Options {
    std::string results, output, metric;
    std::vector<std::string> targets;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("results", o->results, "results directory of a suite")->required();
  sub->add_option("-o,--output", o->output, "output directory (default RESULTS/report)");
  sub->add_option("--metric", o->metric, "metric to judge by (default: each run's primary metric)");
  sub->add_option("--target", o->targets, "target METRIC<=V or METRIC>=V for the cost tables; repeatable")
      ->allow_extra_args(false);
  return [o] {
    std::error_code ec;
    if (!fs::is_directory(fs::path(o->results) / "runs", ec))
      throw UserError(o->results + " is not a results directory (no runs/); run a suite into it first");
    const std::string out = o->output.empty() ? (fs::path(o->results) / "report").string() : o->output;
    std::vector<std::string> args{python(), find_script("report.py"), o->results, "-o", out};
    if (!o->metric.empty()) args.insert(args.end(), {"--metric", o->metric});
    for (const auto& t : o->targets) args.insert(args.end(), {"--target", t});
    const int status = run_program(args);
    if (status != 0) return 1;
    std::cout << "report: " << (fs::path(out) / "index.html").string() << "\n";
    return 0;
  };
}

}  // namespace fedbench::cli
