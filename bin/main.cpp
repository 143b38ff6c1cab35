// fedbench: reproducible benchmarks of federated minimax and bilevel optimization.
// Subcommands: list, describe, run, show, plan, export, check, select, report, reproduce,
// instance, data (each in bin/cmd_*.cpp).
// Exit codes: 0 success (a diverged run is a result), 1 a run ended in error or a result could
// not be written (disk full, read-only), 2 bad input, 130 / 143 interrupted by SIGINT / SIGTERM.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"
#include "interrupt_deadline.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/screen/run_file_screen.hpp"
#include "plugin/plugin_loader.hpp"
#include "suite/isolated_run.hpp"
#include "suite/mpi_world.hpp"

namespace {

// The configured plug-ins and `paths`; false (and one line) when one cannot be loaded.
bool load_plugins(const std::vector<std::string>& paths) {
  try {
    fedbench::load_configured_plugins();
    for (const auto& path : paths) fedbench::load_plugin(path);
    return true;
  } catch (const fedbench::UserError& e) {
    std::cerr << "fedbench: " << e.what() << "\n";
    return false;
  }
}

// A suite's run of a plug-in, in a process of its own (suite/isolated_run.hpp): `fedbench
// [--plugin PATH]... __run-one ARGS`, never under MPI (the suite's process is the rank). -1 when
// the command line is another.
int serve_run_one(int argc, char** argv) {
  std::vector<std::string> plugins;
  int i = 1;
  for (; i + 1 < argc && std::string(argv[i]) == "--plugin"; i += 2) plugins.push_back(argv[i + 1]);
  if (i >= argc || std::string(argv[i]) != fedbench::suite::kRunOneSubcommand) return -1;
  if (!load_plugins(plugins)) return 2;
  fedbench::install_interrupt_handlers();
  return fedbench::suite::serve_run_in_child(std::vector<std::string>(argv + i + 1, argv + argc));
}

}  // namespace

int main(int argc, char** argv) {
  // fedbench as the screen that reads run files from disk before this process trusts libhdf5
  // with them (before MPI: the screen is no rank).
  if (argc == 2 && std::string(argv[1]) == fedbench::io::kScreenSubcommand)
    return fedbench::io::serve_run_file_screen(0, 1);
  fedbench::io::screen_run_files_with({"/proc/self/exe", fedbench::io::kScreenSubcommand});
  if (const int code = serve_run_one(argc, argv); code >= 0) return code;
  fedbench::suite::MpiWorld mpi(&argc, &argv);  // a no-op unless started by mpirun
  fedbench::suite::set_world(&mpi);
  for (int i = 0; i < argc; ++i)
    fedbench::cli::command_line() += (i ? " " : "") + std::string(argv[i]);
  // Plug-ins register before the command line is parsed, so that every subcommand (and
  // completion, list, describe) sees their solvers and problems. `--plugin PATH` may stand
  // anywhere; it is taken out of the arguments here.
  std::vector<std::string> plugins;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      args.insert(args.end(), argv + i, argv + argc);
      break;
    }
    if (arg == "--plugin" && i + 1 < argc) {
      plugins.push_back(argv[++i]);
    } else if (arg.rfind("--plugin=", 0) == 0) {
      plugins.push_back(arg.substr(9));
    } else {
      args.push_back(argv[i]);
    }
  }
  if (!load_plugins(plugins)) return 2;

  argc = static_cast<int>(args.size());
  argv = args.data();
  CLI::App app{"fedbench: reproducible benchmarks of federated minimax and bilevel optimization"};
  app.set_version_flag("--version", "fedbench " + fedbench::fedbench_version() + " (" +
                                        fedbench::git_commit() + ")");
  app.require_subcommand(1);
  // Taken out of the arguments above; declared for --help and the man page.
  static std::vector<std::string> plugin_paths_for_help;
  app.add_option("--plugin", plugin_paths_for_help, "load a plug-in (a .so built against fedbench, or a Python solver "
                             "file); repeatable, anywhere on the line; see also FEDBENCH_PLUGINS")
      ->type_name("PATH");
  std::map<CLI::App*, std::function<int()>> commands;
  for (auto add : {fedbench::cli::add_list, fedbench::cli::add_describe, fedbench::cli::add_run,
                   fedbench::cli::add_show, fedbench::cli::add_plan, fedbench::cli::add_export,
                   fedbench::cli::add_check, fedbench::cli::add_select,
                   fedbench::cli::add_data, fedbench::cli::add_instance,
                   fedbench::cli::add_report, fedbench::cli::add_reproduce, fedbench::cli::add_prune,
                   fedbench::cli::add_conform, fedbench::cli::add_new_solver}) {
    auto action = add(app);
    commands[app.get_subcommands({}).back()] = std::move(action);
  }
  // Set after the subcommands are added: CLI11 copies a parent's footer into new subcommands.
  app.footer("Subcommands: list and describe (problems, solvers, their parameters), run (one run or "
             "a suite), show (a run file), plan (a suite's runs), export (CSV), check (against "
             "stored references), select (best configuration per solver), report (an HTML page of "
             "a results directory), reproduce (a paper experiment with its claims checked), instance (a problem's data for checks outside fedbench), data "
             "(datasets), prune (run files of older configurations), conform (check a solver, e.g. a "
             "plug-in's), new-solver (a plug-in project to start from). "
             "Details: fedbench SUBCOMMAND --help.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fedbench: " << e.what() << " (see fedbench --help)\n";
    return 2;
  }
  fedbench::install_interrupt_handlers();
  fedbench::cli::start_interrupt_deadline();
  try {
    for (auto* sub : app.get_subcommands()) return commands.at(sub)();
  } catch (const fedbench::Interrupted& e) {
    std::cout.flush();
    std::cerr << "fedbench: " << e.what() << "\n";
    return fedbench::interrupt_exit_code();
  } catch (const fedbench::UserError& e) {
    std::cerr << "fedbench: " << e.what() << "\n";
    return 2;
  } catch (const fedbench::WriteError& e) {
    std::cerr << "fedbench: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "fedbench: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
