#include "core/data_provenance.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/text.hpp"

namespace fedbench {

namespace {

struct FileStamp {
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

struct Memo {
  std::mutex mutex;
  struct Entry {
    FileStamp stamp;
    std::string sha256;
    bool registry = false;
  };
  std::map<std::string, Entry> hashes;  // by absolute path
};

Memo& memo() {
  static Memo m;
  return m;
}

thread_local DataFileScope* current_scope = nullptr;

std::string absolute_of(const std::string& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

bool stamp_of(const std::string& path, FileStamp& stamp) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  stamp.size = static_cast<std::int64_t>(st.st_size);
  stamp.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

}  // namespace

DataFileRecord describe_data_file(const std::string& path) {
  DataFileRecord r;
  r.path = path;
  r.absolute = absolute_of(path);
  FileStamp stamp;
  if (!stamp_of(r.absolute, stamp)) throw UserError("data file " + path + " is not a readable regular file");
  r.size = stamp.size;
  {
    Memo& m = memo();
    const std::lock_guard<std::mutex> lock(m.mutex);
    const auto it = m.hashes.find(r.absolute);
    if (it != m.hashes.end() && it->second.stamp == stamp) {
      r.sha256 = it->second.sha256;
      r.registry = it->second.registry;
      return r;
    }
  }
  r.sha256 = sha256_file(r.absolute);  // outside the lock: other files hash meanwhile
  Memo& m = memo();
  const std::lock_guard<std::mutex> lock(m.mutex);
  m.hashes[r.absolute] = {stamp, r.sha256, false};
  return r;
}

void remember_registry_file(const std::string& path, const std::string& sha256) {
  const std::string abs = absolute_of(path);
  FileStamp stamp;
  if (!stamp_of(abs, stamp)) return;
  Memo& m = memo();
  const std::lock_guard<std::mutex> lock(m.mutex);
  m.hashes[abs] = {stamp, sha256, true};
}

void require_regular_data_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UserError("cannot read " + what + " " + path +
                    ": not a regular file (a FIFO, device or socket); give a file");
}

void note_data_file(const std::string& path) {
  if (!current_scope) return;
  DataFileRecord r;
  try {
    r = describe_data_file(path);
  } catch (const UserError&) {
    return;  // unreadable: the reader that called says so in its own words
  }
  for (DataFileScope* s = current_scope; s; s = s->outer_)
    if (std::find(s->files_.begin(), s->files_.end(), r) == s->files_.end()) s->files_.push_back(r);
}

DataFileScope::DataFileScope() : outer_(current_scope) { current_scope = this; }
DataFileScope::~DataFileScope() { current_scope = outer_; }

std::string data_files_text(const std::vector<DataFileRecord>& files) {
  std::string out;
  for (const auto& f : files)
    out += f.sha256 + "\t" + std::to_string(f.size) + "\t" + f.absolute + "\t" + f.path + "\t" +
           (f.registry ? "registry" : "file") + "\n";
  return out;
}

std::vector<DataFileRecord> parse_data_files(const std::string& text) {
  std::vector<DataFileRecord> out;
  for (const auto& line : split(text, '\n')) {
    const auto fields = split(line, '\t');
    if (fields.size() != 5) continue;
    DataFileRecord r;
    r.sha256 = fields[0];
    try {
      r.size = std::stoll(fields[1]);
    } catch (const std::exception&) {
      continue;
    }
    r.absolute = fields[2];
    r.path = fields[3];
    r.registry = fields[4] == "registry";
    out.push_back(std::move(r));
  }
  return out;
}

std::string data_change(const std::vector<DataFileRecord>& stored) {
  for (const auto& before : stored) {
    if (before.registry) continue;
    DataFileRecord now;
    try {
      now = describe_data_file(before.path);
    } catch (const UserError&) {
      return "data file " + before.path + " is gone (was " + before.absolute + ")";
    }
    if (now.absolute != before.absolute)
      return "data file " + before.path + " now means " + now.absolute + " (was " + before.absolute + ")";
    if (now.size != before.size || now.sha256 != before.sha256)
      return "data file " + before.absolute + " changed (sha256 " + before.sha256.substr(0, 12) + " -> " +
             now.sha256.substr(0, 12) + ")";
  }
  return "";
}

}  // namespace fedbench
