// `fedbench report RESULTS [-o DIR]`: one self-contained HTML page of a results directory,
// drawn by scripts/report.py (python3 with h5py, numpy, pandas, matplotlib from Debian) from
// screened copies of the run files (screened_copies.hpp).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "engine/run_config.hpp"
#include "external.hpp"
#include "io/directory.hpp"
#include "screened_copies.hpp"

namespace fedbench::cli {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::function<int()> add_report(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "report", "write one self-contained HTML page of a results directory (curves, tables, "
                "diverged and failed runs, grid, environment)");
  struct Options {
    std::string results, output, metric;
    std::vector<std::string> targets;
    bool all = false;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("results", o->results, "results directory of a suite")->required();
  sub->add_option("-o,--output", o->output, "output directory (default RESULTS/report)");
  sub->add_option("--metric", o->metric, "metric to judge by (default: each run's primary metric)");
  sub->add_option("--target", o->targets, "target METRIC<=V or METRIC>=V for the cost tables; repeatable")
      ->allow_extra_args(false);
  sub->add_flag("--all", o->all,
                "every run file of the directory, also those of older configurations that the suites last "
                "run there no longer have");
  return [o] {
    // Read by the run's own parser before any work, so both commands take the same texts.
    std::vector<Target> targets;
    for (const auto& t : o->targets) targets.push_back(Target::parse(t));
    std::error_code ec;
    if (!fs::is_directory(fs::path(o->results) / "runs", ec))
      throw UserError(o->results + " is not a results directory (no runs/); run a suite into it first");
    // -o DIR is the user's path (links in it followed); the default RESULTS/report is fedbench's
    // own and never followed: a link there is refused, not written through.
    std::string out = o->output;
    std::optional<io::Directory> out_dir;
    if (out.empty()) {
      out = (fs::path(o->results) / "report").string();
      out_dir.emplace(io::Directory(o->results).child("report", io::Directory::Create::yes));
    } else {
      fs::create_directories(out, ec);
      if (ec) throw UserError("cannot create the report directory " + out + ": " + ec.message());
      out_dir.emplace(io::Directory(out));
    }
    out_dir->check_output("index.html");  // before any work
    const ScreenedRunCopies copies(o->results, *out_dir, o->all);
    // A metric no run records would rank by another one and label it as asked: refused.
    const auto& recorded = copies.metric_names();
    const auto check_metric = [&](const std::string& name, const std::string& what) {
      if (!recorded.empty() && !recorded.count(name))
        throw UserError(what + ": no run in " + o->results + " records metric '" + name + "'; valid: " +
                        join(std::vector<std::string>(recorded.begin(), recorded.end()), ", "));
    };
    if (!o->metric.empty()) check_metric(o->metric, "--metric " + o->metric);
    for (const auto& t : targets) check_metric(t.metric, "--target " + t.to_text());
    std::vector<std::string> args{python_program(), find_script("report.py"), copies.dir(), "-o", copies.output_dir(),
                                  "--shown-as", (fs::path(out) / "index.html").string()};
    for (auto& a : copies.report_arguments()) args.push_back(std::move(a));
    if (!o->metric.empty()) args.insert(args.end(), {"--metric", o->metric});
    for (const auto& t : targets) args.insert(args.end(), {"--target", t.to_text()});
    const int status = run_program(args);
    if (status != 0) return 1;
    copies.publish("index.html", *out_dir, "index.html");
    std::cout << "report: " << (fs::path(out) / "index.html").string() << "\n";
    return 0;
  };
}

}  // namespace fedbench::cli
