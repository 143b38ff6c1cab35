#include "io/iterate_trace.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "core/error.hpp"

namespace fedbench::io {

IterateTrace::IterateTrace(const std::string& path)
    : path_(path),
      name_(std::filesystem::path(path).filename().string()),
      part_(name_ + ".part"),
      dir_(Directory::holding(path)) {
  if (name_.empty() || name_ == "." || name_ == "..")
    throw UserError("--trace-iterates " + path + ": name a file, not a directory");
  dir_.check_output(name_);
  const int fd = dir_.create(part_);
  file_ = ::fdopen(fd, "w");
  if (!file_) {
    ::close(fd);
    dir_.remove(part_);
    throw WriteError("--trace-iterates: cannot write " + dir_.shown(part_) + ": " + std::strerror(errno));
  }
}

IterateTrace::~IterateTrace() {
  if (!file_) return;
  std::fclose(file_);  // the run died before its end: leave nothing that looks finished
  dir_.remove(part_);
}

void IterateTrace::begin(const RunHeader& header) {
  std::fprintf(file_, "# round, then z = (x, y): dim_x %lld, dim %lld\n",
               static_cast<long long>(header.dim_x), static_cast<long long>(header.dim));
  std::fputs("# state round name values (server) | state round c/name client values (a client)\n", file_);
}

void IterateTrace::iterate(std::int64_t round, const Vec& model) {
  std::fprintf(file_, "%lld", static_cast<long long>(round));
  for (Index k = 0; k < model.size(); ++k) std::fprintf(file_, " %.17g", model[k]);
  std::fputc('\n', file_);
}

void IterateTrace::states(std::int64_t round, const SolverStates& states) {
  round_ = round;
  states.visit_states(*this);
}

void IterateTrace::state(std::string_view name, int client, std::span<const double> value) {
  std::fprintf(file_, "state %lld %.*s", static_cast<long long>(round_), static_cast<int>(name.size()), name.data());
  if (client != kServer) std::fprintf(file_, " %d", client);
  for (const double v : value) std::fprintf(file_, " %.17g", v);
  std::fputc('\n', file_);
}

void IterateTrace::end(const RunSummary&) {
  const bool failed = std::ferror(file_) != 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed || !closed) {
    dir_.remove(part_);
    throw WriteError("--trace-iterates: writing " + dir_.shown(part_) + " failed; nothing was written to " + path_);
  }
  dir_.publish(part_, name_);
}

}  // namespace fedbench::io
