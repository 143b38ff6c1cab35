// `fedbench instance PROBLEM [-p key=value ...] [--clients M] -o FILE.h5`: the generated instance of a
// problem (its data, constants, start point and exact solution) for checks outside fedbench.
#include <iostream>
#include <limits>
#include <memory>

#include "checked_options.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "io/instance_file.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::cli {

std::function<int()> add_instance(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "instance", "write a problem's generated instance (data, constants, z0, exact solution) to HDF5");
  struct Options {
    std::string problem, output;
    std::vector<std::string> params;
    int clients = -1;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("problem", o->problem, "problem name (fedbench list problems)")->required();
  sub->add_option("-p,--param", o->params, "problem parameter key=value")->allow_extra_args(false);
  add_whole_number(sub, "--clients", o->clients, "shortcut for -p clients=M (as in run)", 1,
                   std::numeric_limits<int>::max());
  sub->add_option("-o,--output", o->output, "instance file to write (.h5)")->required();
  return [o] {
    ParamMap given = parse_assignments(o->params, "problem " + o->problem);
    if (o->clients >= 0) given["clients"] = std::to_string(o->clients);
    const ParamMap canonical = resolve_problem_params(o->problem, given);  // validates first
    const auto problem = make_problem(o->problem, given);
    io::write_instance_file(*problem, o->problem, canonical, o->output);
    std::cout << "written: " << o->output << "\n";
    return 0;
  };
}

}  // namespace fedbench::cli
