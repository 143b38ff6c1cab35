#include "engine/environment.hpp"

#include <Eigen/Core>
#include <fstream>
#include <string>
#include <thread>

#include "core/build_info.hpp"

namespace fedbench {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

}  // namespace

RunEnvironment current_environment(int threads, int mpi_ranks) {
  static const std::string model = cpu_model();  // read once per process
  RunEnvironment env;
  env.cpu_model = model;
  env.cores = static_cast<std::int64_t>(std::thread::hardware_concurrency());
  env.threads = threads;
  env.mpi_ranks = mpi_ranks;
  env.eigen_version = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                      "." + std::to_string(EIGEN_MINOR_VERSION);
  env.compiler = compiler_id();
  env.isa = instruction_set();
  return env;
}

}  // namespace fedbench
