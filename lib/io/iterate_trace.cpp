#include "io/iterate_trace.hpp"

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace fedbench::io {

IterateTrace::IterateTrace(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_)
    throw UserError("--trace-iterates: cannot write " + path + " (" + std::strerror(errno) +
                    "); give a writable path");
}

IterateTrace::~IterateTrace() {
  if (file_) std::fclose(file_);
}

void IterateTrace::begin(const RunHeader& header) {
  std::fprintf(file_, "# round, then z = (x, y): dim_x %lld, dim %lld\n",
               static_cast<long long>(header.dim_x), static_cast<long long>(header.dim));
}

void IterateTrace::iterate(std::int64_t round, const Vec& model) {
  std::fprintf(file_, "%lld", static_cast<long long>(round));
  for (Index k = 0; k < model.size(); ++k) std::fprintf(file_, " %.17g", model[k]);
  std::fputc('\n', file_);
}

void IterateTrace::end(const RunSummary&) {
  const bool failed = std::ferror(file_) != 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed || !closed) throw WriteError("--trace-iterates: writing " + path_ + " failed");
}

}  // namespace fedbench::io
