#include "io/durable_rename.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/error.hpp"
#include "io/directory.hpp"
#include "io/new_file.hpp"

namespace fedbench::io {

std::string system_reason(int err) { return std::error_code(err, std::generic_category()).message(); }

void durable_rename(const std::string& temporary, const std::string& final_path) {
  namespace fs = std::filesystem;
  const fs::path from(temporary), to(final_path);
  if (from.parent_path() != to.parent_path())
    throw InternalError("durable_rename: " + temporary + " and " + final_path + " are in different directories");
  Directory::holding(final_path).publish(from.filename().string(), to.filename().string());
}

void write_text_file(const std::string& path, const std::string& text) {
  const auto dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    throw UserError("cannot write " + path + ": directory " + dir.string() +
                    " does not exist; create it first");
  // One directory handle from creation to rename: the file is published where it was written.
  write_text_file(Directory::holding(path), std::filesystem::path(path).filename().string(), text);
}

void write_text_file(const Directory& where, const std::string& name, const std::string& text) {
  const std::string part = name + ".part";
  where.check_output(name);
  NewFileStream out(where, part);
  errno = 0;
  out << text;
  out.close();
  if (!out) {
    const int err = errno;
    where.remove(part);
    throw WriteError("cannot write " + where.shown(part) + ": " + (err ? system_reason(err) : "the disk is full"));
  }
  where.publish(part, name);
}

}  // namespace fedbench::io
