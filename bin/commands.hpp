// The fedbench subcommands. bin/ holds command-line plumbing only: every number is computed
// in lib/, problems/ and datasets/.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace fedbench::cli {

//! Each adds its subcommand to `app` and returns the function that runs it (exit code).
//! The command line as typed (stored in output files).
std::string& command_line();

std::function<int()> add_list(CLI::App& app);
std::function<int()> add_describe(CLI::App& app);
std::function<int()> add_run(CLI::App& app);
std::function<int()> add_show(CLI::App& app);
std::function<int()> add_plan(CLI::App& app);
std::function<int()> add_export(CLI::App& app);
std::function<int()> add_check(CLI::App& app);
std::function<int()> add_select(CLI::App& app);
std::function<int()> add_data(CLI::App& app);
std::function<int()> add_instance(CLI::App& app);
std::function<int()> add_report(CLI::App& app);
std::function<int()> add_reproduce(CLI::App& app);
std::function<int()> add_prune(CLI::App& app);
std::function<int()> add_conform(CLI::App& app);
std::function<int()> add_new_solver(CLI::App& app);

}  // namespace fedbench::cli
