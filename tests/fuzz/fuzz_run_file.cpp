// Run files read back (io/trajectory_file.hpp), mutated byte by byte: what a damaged or
// crafted file does to `show`, `export`, `check`, `select` and the manifest
// (run_file_target.hpp). Nearly every mutation of HDF5 metadata fails a checksum, so this
// harness holds fedbench's own checks (superblock, global heaps, attribute and dataset
// checks) to account; fuzz_run_file_checksummed goes past the checksums into libhdf5.
#include "run_file_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fedbench::fuzz::read_run_file(data, size);
}
