// `fedbench export RESULTS --csv [-o FILE]`: one long CSV table of every finished run.
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "suite/export_csv.hpp"

namespace fedbench::cli {

std::function<int()> add_export(CLI::App& app) {
  auto* sub = app.add_subcommand("export", "write every finished run of a results directory as CSV");
  struct Options {
    std::string results, output;
    bool csv = false;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("results", o->results, "results directory of a suite")->required();
  sub->add_flag("--csv", o->csv, "CSV, one row per recorded round (the only format so far)");
  sub->add_option("-o,--output", o->output, "output file (default: standard output)");
  return [o] {
    if (!o->csv) throw UserError("export needs a format: --csv");
    if (o->output.empty()) {
      suite::export_csv(o->results, std::cout);
      return 0;
    }
    const std::string tmp = o->output + ".part";
    {
      std::ofstream out(tmp);
      if (!out) throw UserError("cannot write " + o->output + ": check the directory");
      suite::export_csv(o->results, out);
    }
    std::rename(tmp.c_str(), o->output.c_str());
    return 0;
  };
}

}  // namespace fedbench::cli
