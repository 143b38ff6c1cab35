// Run files read back, with every mutation's HDF5 checksums made right again
// (hdf5_checksums.hpp): crafted metadata that libhdf5 accepts reaches its decoders. This
// probes libhdf5 1.10 itself, which still crashes on some such files (docs/fuzzing.md), so
// scripts/fuzz.sh runs it only when named.
#include "hdf5_checksums.hpp"
#include "run_file_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fedbench::fuzz::read_run_file(data, size);
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned seed) {
  static fedbench::fuzz::Hdf5ChecksumMutator mutator;
  return mutator.mutate(data, size, max_size, seed);
}
