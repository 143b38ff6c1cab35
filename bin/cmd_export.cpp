// `fedbench export RESULTS|FILE.h5... --format csv|json [-o FILE]`: runs read back and
// replayed into the same output sinks that `fedbench run -o` uses live.
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "suite/export_runs.hpp"

namespace fedbench::cli {

std::function<int()> add_export(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "export", "write runs (results directories or run files) as one CSV table or a JSON array");
  struct Options {
    std::vector<std::string> inputs;
    std::string output, format;
    bool csv = false;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("inputs", o->inputs, "results directories and/or run files (.h5)")->required();
  sub->add_option("--format", o->format, "csv (a row per recorded round) or json (an object per run)");
  sub->add_flag("--csv", o->csv, "same as --format csv");
  sub->add_option("-o,--output", o->output, "output file (default: standard output)");
  return [o] {
    if (o->csv && !o->format.empty() && o->format != "csv")
      throw UserError("give --csv or --format " + o->format + ", not both");
    if (o->csv) o->format = "csv";
    if (o->format.empty()) throw UserError("export needs a format: --format csv or --format json");
    const io::OutputFormat format = io::parse_output_format(o->format);
    const auto files = suite::collect_run_files(o->inputs);
    if (o->output.empty()) {
      suite::export_runs(files, format, std::cout);
      return 0;
    }
    const std::string tmp = o->output + ".part";
    {
      std::ofstream out(tmp);
      if (!out) throw UserError("cannot write " + o->output + ": check the directory");
      suite::export_runs(files, format, out);
      out.close();
      if (!out) throw UserError("cannot write " + tmp + " (disk full?)");
    }
    std::rename(tmp.c_str(), o->output.c_str());
    return 0;
  };
}

}  // namespace fedbench::cli
