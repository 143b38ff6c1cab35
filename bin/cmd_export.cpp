// `fedbench export RESULTS|FILE.h5... --format csv|json [-o FILE]`: runs read back and
// replayed into the same output sinks that `fedbench run -o` uses live.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "io/durable_rename.hpp"
#include "io/new_file.hpp"
#include "results/export_runs.hpp"

namespace fedbench::cli {

std::function<int()> add_export(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "export", "write runs (results directories or run files) as one CSV table or a JSON array");
  struct Options {
    std::vector<std::string> inputs;
    std::string output, format;
    bool csv = false, all = false;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("inputs", o->inputs, "results directories and/or run files (.h5)")->required();
  sub->add_option("--format", o->format, "csv (a row per recorded round) or json (an object per run)");
  sub->add_flag("--csv", o->csv, "same as --format csv");
  sub->add_option("-o,--output", o->output, "output file (default: standard output)");
  sub->add_flag("--all", o->all,
                "every run file of a results directory, also those of older configurations that the suites "
                "last run there no longer have");
  return [o] {
    if (o->csv && !o->format.empty() && o->format != "csv")
      throw UserError("give --csv or --format " + o->format + ", not both");
    if (o->csv) o->format = "csv";
    if (o->format.empty()) throw UserError("export needs a format: --format csv or --format json");
    const io::OutputFormat format = io::parse_output_format(o->format);
    const auto files = suite::collect_run_files(o->inputs, o->all);
    if (o->output.empty()) {
      suite::export_runs(files, format, std::cout);
      return 0;
    }
    // Streamed to OUTPUT.part (an export can be large), published whole or not at all.
    const std::string part = o->output + ".part";
    const auto parent = std::filesystem::path(o->output).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
      throw UserError("cannot write " + part + ": directory " + parent.string() + " does not exist; create it first");
    io::Directory::holding(o->output).check_output(std::filesystem::path(o->output).filename().string());
    io::NewFileStream out(part);
    suite::export_runs(files, format, out);
    out.close();
    if (!out) {
      std::remove(part.c_str());
      throw WriteError("cannot write " + part + ": the disk is full or not writable");
    }
    io::durable_rename(part, o->output);
    return 0;
  };
}

}  // namespace fedbench::cli
