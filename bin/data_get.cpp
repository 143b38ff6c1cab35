#include "data_get.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/text.hpp"
#include "data_sources.hpp"
#include "datasets/idx.hpp"
#include "datasets/libsvm.hpp"
#include "datasets/registry.hpp"
#include "external.hpp"
#include "io/durable_rename.hpp"

namespace fedbench::cli {

namespace fs = std::filesystem;

namespace {

// What a file holds against what the registry says of it: empty when it is the registered
// file, otherwise why not. The rows are read with the dataset's own reader, so a file that
// would not load (bad line, label outside the encoding, truncated IDX) is refused here.
std::string mismatch(const datasets::DatasetInfo& d, const datasets::DatasetFile& f, const std::string& path) {
  if (!f.sha256.empty()) {
    const std::string sha = sha256_file(path);
    if (sha != f.sha256) return "its SHA-256 is " + sha + ", the registered file's " + f.sha256;
  }
  long long rows = 0;
  try {
    rows = d.format == "libsvm" ? static_cast<long long>(datasets::read_libsvm(path, d.features, d.labels).num_rows())
                                : static_cast<long long>(datasets::read_idx(path).count());
  } catch (const UserError& e) {
    return std::string("it does not read as ") + d.name + "'s " + d.format + " file: " + e.what();
  }
  if (rows != f.instances)
    return "it has " + std::to_string(rows) + " rows, the registered file " + std::to_string(f.instances);
  return "";
}

// The URLs to try: the mirror's copy in the data-directory layout (plain, then compressed),
// or the published ones.
std::vector<std::string> urls_of(const datasets::DatasetFile& f, const std::string& mirror) {
  if (mirror.empty()) return download_urls(f.relative);
  std::string base = mirror;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::vector<std::string> urls{base + "/" + f.relative};
  if (fs::path(f.relative).extension() == ".gz") return urls;  // stored compressed (MNIST)
  for (const char* suffix : {".bz2", ".xz", ".gz"}) urls.push_back(base + "/" + f.relative + suffix);
  return urls;
}

// A directory or file as one spelling, to compare places however they were written.
fs::path normal(const std::string& p) { return fs::absolute(p).lexically_normal(); }

// The search-path directory that holds `path`, if any comes before `dest` (it would shadow
// the file just fetched).
std::string shadowing_place(const std::string& path, const std::string& dest) {
  for (const auto& p : datasets::data_search_places()) {
    if (normal(p.dir) == normal(dest)) return "";
    const auto rel = normal(path).lexically_relative(normal(p.dir));
    if (!rel.empty() && *rel.begin() != "..") return p.dir;
  }
  return "";
}

// One file: 0 when it is (now) there and good, 1 when it could not be had; `stored` counts the
// files it wrote.
int get_file(const datasets::DatasetInfo& d, const datasets::DatasetFile& f, const std::string& dest,
             const DataGetOptions& o, int& stored) {
  const auto present = datasets::find_file(f);
  if (present && !o.force) {
    const std::string why = mismatch(d, f, *present);
    if (why.empty()) {
      std::printf("present  %s\n", present->c_str());
      return 0;
    }
    std::printf("bad      %s: %s; fetching a good copy\n", present->c_str(), why.c_str());
  }
  const auto urls = urls_of(f, o.mirror);
  if (urls.empty()) {
    std::fprintf(stderr, "fedbench: %s: no download source is known for %s; %s\n", d.name.c_str(),
                 f.relative.c_str(), d.obtain.c_str());
    return 1;
  }
  const fs::path final_path = fs::path(dest) / f.relative;
  std::error_code ec;
  fs::create_directories(final_path.parent_path(), ec);
  if (ec)
    throw WriteError("cannot create " + final_path.parent_path().string() + ": " + ec.message() +
                     "; choose another destination with --to DIR");
  const fs::path temporary =
      final_path.parent_path() / ("." + final_path.filename().string() + ".part-" + std::to_string(::getpid()));
  fs::remove(temporary, ec);
  std::vector<std::string> args{python_program(), find_script("fetch_data.py"), temporary.string(),
                                final_path.filename().string()};
  args.insert(args.end(), urls.begin(), urls.end());
  std::fflush(stdout);
  if (run_program(args, true) != 0) {
    fs::remove(temporary, ec);
    std::fprintf(stderr, "fedbench: %s: could not download %s (tried %s); check the network or use --mirror URL\n",
                 d.name.c_str(), f.relative.c_str(), join(urls, ", ").c_str());
    return 1;
  }
  std::string why = mismatch(d, f, temporary.string());
  if (!why.empty()) {
    for (auto at = why.find(temporary.string()); at != std::string::npos; at = why.find(temporary.string()))
      why.replace(at, temporary.string().size(), f.relative);  // the reader names the file it read
    fs::remove(temporary, ec);
    std::fprintf(stderr, "fedbench: %s: refused the download of %s: %s; nothing was kept (a corrupted or "
                 "truncated transfer: try again, or another --mirror)\n",
                 d.name.c_str(), f.relative.c_str(), why.c_str());
    return 1;
  }
  io::durable_rename(temporary.string(), final_path.string());
  ++stored;
  std::printf("got      %s (%lld rows, %s)\n", final_path.c_str(), static_cast<long long>(f.instances),
              f.sha256.empty() ? "no published SHA-256 to check" : "SHA-256 as registered");
  if (present && !o.force)
    if (const std::string place = shadowing_place(*present, dest); !place.empty())
      std::fprintf(stderr, "fedbench: note: the bad copy %s comes first on the search path (%s): delete it\n",
                   present->c_str(), place.c_str());
  return 0;
}

}  // namespace

std::string data_get_destination() {
  if (const char* env = std::getenv("FEDBENCH_DATA"); env && *env)
    for (const auto& d : split(env, ':'))
      if (!d.empty()) return d;
  for (const auto& p : datasets::data_search_places())
    if (p.origin == "per-user") return p.dir;
  throw UserError("data get: no destination (neither FEDBENCH_DATA nor HOME is set); give one with --to DIR");
}

int data_get(const std::vector<std::string>& names, const DataGetOptions& options) {
  for (const auto& n : names) datasets::dataset_info(n);  // an unknown name fails before any download
  const std::string dest = options.to.empty() ? data_get_destination() : options.to;
  int problems = 0, stored = 0;
  for (const auto& n : names) {
    const auto& d = datasets::dataset_info(n);
    for (const auto& f : d.files) problems += get_file(d, f, dest, options, stored);
  }
  if (stored == 0) return problems ? 1 : 0;
  bool on_path = false;
  for (const auto& p : datasets::data_search_places()) on_path = on_path || normal(p.dir) == normal(dest);
  if (!on_path)
    std::fprintf(stderr, "fedbench: note: %s is not on the data search path; set FEDBENCH_DATA=%s to use it\n",
                 dest.c_str(), dest.c_str());
  return problems ? 1 : 0;
}

}  // namespace fedbench::cli
