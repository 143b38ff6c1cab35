#include "io/screen/layout_checks.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "io/hdf5.hpp"

namespace fedbench::io::h5 {
namespace {

[[noreturn]] void fail(const std::string& message) { throw UserError(message); }

std::uint64_t little_endian(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// The whole file, for the checks below (run files are kilobytes to a few megabytes).
std::vector<unsigned char> file_bytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("cannot open " + path + ": " + std::strerror(errno));
  std::vector<unsigned char> bytes;
  unsigned char block[1 << 16];
  for (std::size_t got; (got = std::fread(block, 1, sizeof block, f)) > 0;)
    bytes.insert(bytes.end(), block, block + got);
  const int error = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (error) fail("cannot read " + path + ": " + std::strerror(error));
  return bytes;
}

// The superblock (version 2/3: signature, version, sizes of offsets and lengths, flags, base,
// extension, end-of-file and root addresses, checksum) must be what fedbench writes; libhdf5
// notices a truncated file only late.
void check_superblock(const std::string& path, const std::vector<unsigned char>& bytes) {
  static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kSignature, 8) != 0) {
    if (H5Fis_hdf5(path.c_str()) > 0)
      fail(path + ": not a fedbench run file (HDF5 data after a user block)");
    fail("cannot open " + path + ": not an HDF5 file");
  }
  const auto bad = [&](const std::string& why) { fail(path + ": not a fedbench run file (" + why + ")"); };
  const std::uint64_t size = bytes.size();
  if (size < 48) fail(path + ": truncated: " + std::to_string(size) + " bytes, less than an HDF5 superblock");
  const unsigned char* sb = bytes.data();
  if (sb[8] != 2 && sb[8] != 3)
    bad("HDF5 superblock version " + std::to_string(sb[8]) + "; fedbench writes version 3");
  if (little_endian(sb + 44, 4) != metadata_checksum(sb, 44))
    fail(path + ": corrupt: the checksum of its HDF5 superblock does not match");
  if (sb[9] != 8 || sb[10] != 8)
    bad(std::to_string(sb[9]) + "-byte HDF5 addresses and " + std::to_string(sb[10]) +
        "-byte lengths; fedbench writes 8-byte ones");
  const std::uint64_t base = little_endian(sb + 12, 8), extension = little_endian(sb + 20, 8),
                      end = little_endian(sb + 28, 8), root = little_endian(sb + 36, 8);
  if (base != 0) bad("HDF5 base address " + std::to_string(base) + "; fedbench writes 0");
  if (end > size)
    fail(path + ": truncated: " + std::to_string(size) + " of the " + std::to_string(end) +
         " bytes its HDF5 superblock announces");
  if (end < size)
    bad(std::to_string(size) + " bytes, " + std::to_string(size - end) +
        " more than its HDF5 superblock announces");
  constexpr std::uint64_t kUndefined = ~std::uint64_t{0};
  if (root < 48 || root >= end || (extension != kUndefined && (extension < 48 || extension >= end)))
    fail(path + ": corrupt: its HDF5 superblock points past the end of the file");
}

// Global heap collections hold the text of every string attribute and carry no checksum.
// libhdf5 1.10 sizes its buffer by a collection's length before it reads (a length past the
// file asks for up to 2^64 bytes), then walks the objects by their sizes: one that does not
// advance the walk (free space of size 0) hangs it, one larger than what is left runs it off
// the collection. Every collection it could load begins "GCOL", version 1 (what libhdf5
// checks); each is checked here first. Those five bytes by chance in compressed data would
// be refused too: about once in 10^12 bytes.
void check_global_heaps(const std::string& path, const std::vector<unsigned char>& bytes) {
  static const unsigned char kCollection[5] = {'G', 'C', 'O', 'L', 1};
  const unsigned char* const end = bytes.data() + bytes.size();
  for (const unsigned char* at = bytes.data();
       (at = std::search(at, end, std::begin(kCollection), std::end(kCollection))) != end; ++at) {
    const std::size_t start = static_cast<std::size_t>(at - bytes.data());
    if (end - at < 16)
      fail(path + ": corrupt: the HDF5 global heap at byte " + std::to_string(start) +
           " is cut off by the end of the file");
    const std::uint64_t length = little_endian(at + 8, 8);
    const auto corrupt = [&](const std::string& why) {
      fail(path + ": corrupt: the HDF5 global heap at byte " + std::to_string(start) + " " + why);
    };
    if (length > static_cast<std::uint64_t>(end - at))
      corrupt("claims " + std::to_string(length) + " bytes, past the end of the file");
    if (length < 4096) corrupt("is " + std::to_string(length) + " bytes, less than libhdf5's 4096");
    for (std::uint64_t p = 16; p + 16 <= length;) {
      const std::uint64_t index = little_endian(at + p, 2), object = little_endian(at + p + 8, 8);
      if (object > length - p)
        corrupt("holds an object of " + std::to_string(object) + " bytes at its byte " +
                std::to_string(p) + ", past its end (" + std::to_string(length) + " bytes)");
      const std::uint64_t need = index > 0 ? 16 + (object + 7) / 8 * 8 : object;
      if (need == 0 || need > length - p)
        corrupt("holds an object of " + std::to_string(object) + " bytes at its byte " +
                std::to_string(p) + " that " + (need == 0 ? "ends nowhere" : "runs past its end"));
      p += need;
    }
  }
}

// Crafted HDF5 files crash or hang libhdf5 1.10, so a run file is checked before libhdf5
// sees it; every metadata block libhdf5 then reads carries a checksum it verifies, except the
// global heaps, checked here too.
}  // namespace

void check_layout(const std::string& path) {
  const std::vector<unsigned char> bytes = file_bytes(path);
  check_superblock(path, bytes);
  check_global_heaps(path, bytes);
}


}  // namespace fedbench::io::h5
