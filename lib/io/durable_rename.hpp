// Publishing a finished file under its final name: fsync the temporary file, rename it over
// the final name (atomic on POSIX file systems), fsync the directory. After a crash of the
// machine the final name then points at the whole file or at the previous one, never at a
// file whose data was still in the page cache.
#pragma once
#include <string>

namespace fedbench::io {

//! Throws WriteError with the system's reason when the data cannot be made durable.
void durable_rename(const std::string& temporary, const std::string& final_path);

//! Writes `text` to PATH.part, then durable_rename to PATH: PATH is the old file or the whole
//! new one. UserError if PATH's directory does not exist, WriteError if the system refuses.
void write_text_file(const std::string& path, const std::string& text);
class Directory;
//! The same in an open directory: NAME.part created there, renamed to NAME there.
void write_text_file(const Directory& where, const std::string& name, const std::string& text);

//! errno as text ("No space left on device").
std::string system_reason(int err);

}  // namespace fedbench::io
