// A run file's contents as libhdf5 reads them (attributes, columns, per-client totals, metric
// descriptions, final iterates), checked for type and shape but not yet assembled into the
// typed record. Splitting the read this way lets the run-file screen read a file in its own
// process and send the contents over a socket: this process then never hands the file to
// libhdf5. The encoding is private to one fedbench binary talking to itself.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "io/trajectory_file.hpp"

namespace fedbench::io {

struct RunFileContents {
  StoredRun run;  //!< every field but the record, except record.summary.final_* (from /final)
  std::map<std::string, MetricMeta> meta;  //!< per metric column
};

//! The most bytes of values a run file may decompress to, per byte of the file. fedbench writes
//! its columns in deflated chunks of 256 doubles, which shrink at most about 80 times (all
//! zeros); a file that claims more is corrupt or a decompression bomb, and is refused before
//! anything is allocated or inflated.
inline constexpr std::uint64_t kMaxValueBytesPerFileByte = 128;

//! Reads PATH with libhdf5; UserError naming the file on any problem.
RunFileContents read_run_file_contents(const std::string& path);
//! The StoredRun with its typed record (no file access); UserError on an unknown stop reason.
StoredRun assemble_run(RunFileContents contents);

std::string encode_run_file_contents(const RunFileContents& contents);
//! UserError naming `path` when `bytes` is not a whole encoding.
RunFileContents decode_run_file_contents(const std::string& bytes, const std::string& path);

}  // namespace fedbench::io
