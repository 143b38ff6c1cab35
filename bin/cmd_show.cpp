// `fedbench show FILE.h5`: the configuration and a summary of a stored trajectory.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "io/trajectory_file.hpp"

namespace fedbench::cli {

std::function<int()> add_show(CLI::App& app) {
  auto* sub = app.add_subcommand("show", "print the configuration and trajectory summary of a run file");
  auto path = std::make_shared<std::string>();
  sub->add_option("file", *path, "a trajectory file written by fedbench run -o")->required();
  return [path] {
    std::cout << io::summarize_trajectory(io::read_trajectory(*path));
    return 0;
  };
}

}  // namespace fedbench::cli
