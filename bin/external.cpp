#include "external.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/error.hpp"
#include "core/shipped_files.hpp"

namespace fedbench::cli {

namespace fs = std::filesystem;

std::string find_script(const std::string& name) {
  // Not the working directory's scripts/: a script is code fedbench runs, chosen by the user only
  // through FEDBENCH_SCRIPTS.
  const auto places = shipped_places("scripts", "FEDBENCH_SCRIPTS", false);
  std::error_code ec;
  for (const auto& p : places)
    if (fs::is_regular_file(fs::path(p.dir) / name, ec)) return (fs::path(p.dir) / name).string();
  throw UserError("cannot find " + name + ": looked in " + describe_places(places) +
                  "; set FEDBENCH_SCRIPTS to the directory that holds it");
}

std::string python_program() {
  if (const char* env = std::getenv("FEDBENCH_PYTHON")) return env;
  std::error_code ec;
  return fs::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";  // Debian's h5py
}

int run_program(const std::vector<std::string>& args, bool quiet_stdout) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw UserError("cannot start " + args[0]);
  if (pid == 0) {
    // The script ends with fedbench, however fedbench ends (SIGKILL included): a report left
    // running would write into a directory nobody waits for. Set between fork and exec, so
    // that no moment of the script's life is uncovered (the parent may die before this line:
    // then it is gone already).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
    if (quiet_stdout && ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) _exit(127);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw UserError("cannot run " + args[0] + "; install python3 (scripts/install-deps.sh)");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace fedbench::cli
