// `fedbench show FILE.h5`: the configuration and a summary of a stored trajectory.
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "engine/provenance.hpp"
#include "io/screen/run_file_screen.hpp"
#include "io/run_sinks.hpp"
#include "io/trajectory_file.hpp"

namespace fedbench::cli {

std::function<int()> add_show(CLI::App& app) {
  auto* sub = app.add_subcommand("show", "print the configuration and trajectory summary of a run file");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub->add_option("file", *path, "a trajectory file written by fedbench run -o")->required();
  sub->add_flag("--json", *json, "print the whole run (header, rows, summary) as JSON");
  return [path, json] {
    const io::StoredRun run = io::read_trajectory_screened(*path);
    if (!*json) {
      std::cout << io::summarize_trajectory(run);
      const auto problem = run.text.find("problem"), solver = run.text.find("solver");
      if (problem != run.text.end() && solver != run.text.end()) {
        const std::string why = staleness(provenance_from_attributes(run.text), problem->second, solver->second);
        std::cout << "\nprovenance: " << (why.empty() ? "current (this build's code, the same data)" : "stale: " + why)
                  << "\n";
      }
      return 0;
    }
    io::JsonSink sink(std::cout, false);
    sink.set_id(std::filesystem::path(*path).stem().string());
    replay(run.record, sink);
    return 0;
  };
}

}  // namespace fedbench::cli
