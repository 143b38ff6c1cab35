// A structure-aware mutation of run files. HDF5's version 2 format (superblock 2/3, as fedbench
// writes) puts a checksum on every metadata block, so a byte-level mutation is almost always
// refused at the first block libhdf5 reads. Here, after libFuzzer's mutation, the checksums of
// the blocks the input had (and the superblock's end-of-file address) are made right again,
// so that most mutated files reach libhdf5's decoders and fedbench's checks behind them; one
// mutation in eight is left as it is, to keep exercising the refusals.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <unordered_map>
#include <vector>

#include "io/hdf5.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace fedbench::fuzz {

class Hdf5ChecksumMutator {
 public:
  std::size_t mutate(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed) {
    std::vector<Block> blocks = blocks_of(data, size);
    const std::vector<std::uint8_t> before(data, data + size);
    const std::size_t new_size = LLVMFuzzerMutate(data, size, max_size);
    follow_the_edit(blocks, before, data, new_size);
    if (std::minstd_rand(seed)() % 8 != 0) repair(data, new_size, blocks);
    remember(data, new_size, std::move(blocks));
    return new_size;
  }

 private:
  struct Block {  // checksum of [start, start + length), stored right after it
    std::size_t start, length;
  };
  // Signed blocks whose length is not in a prefix we parse: continuation chunks, v2 B-trees,
  // fractal heaps, extensible and fixed arrays, free-space managers, shared message tables.
  static constexpr const char* kSigned[] = {"OCHK", "BTHD", "BTIN", "BTLF", "FRHP", "FHIB",
                                            "FHDB", "EAHD", "EAIB", "EASB", "EADB", "FAHD",
                                            "FADB", "FSHD", "FSSE", "SMTB", "SMLI"};
  static constexpr std::size_t kLongestBlock = 1024;  // fedbench's are at most a few hundred

  static std::uint32_t load32(const std::uint8_t* p) {
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
           std::uint32_t{p[3]} << 24;
  }
  static bool checksum_matches(const std::uint8_t* data, Block b) {
    return io::h5::metadata_checksum(data + b.start, b.length) == load32(data + b.start + b.length);
  }

  // A version 2 object header: flags say which optional fields precede chunk 0's size.
  static bool object_header(const std::uint8_t* data, std::size_t size, std::size_t s, Block& out) {
    if (s + 6 > size || data[s + 4] != 2) return false;
    const std::uint8_t flags = data[s + 5];
    const std::size_t field = s + 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
    const std::size_t width = std::size_t{1} << (flags & 3);
    if (field + width > size) return false;
    std::uint64_t chunk = 0;
    for (std::size_t i = width; i-- > 0;) chunk = chunk << 8 | data[field + i];
    if (chunk > size) return false;
    out = {s, field + width + static_cast<std::size_t>(chunk) - s};
    return out.start + out.length + 4 <= size && checksum_matches(data, out);
  }

  static std::vector<Block> find_blocks(const std::uint8_t* data, std::size_t size) {
    std::vector<Block> out;
    if (size >= 48 && std::memcmp(data, "\x89HDF\r\n\x1a\n", 8) == 0 && checksum_matches(data, {0, 44}))
      out.push_back({0, 44});
    for (std::size_t s = 8; s + 8 <= size; ++s) {
      Block b{};
      if (std::memcmp(data + s, "OHDR", 4) == 0) {
        if (object_header(data, size, s, b)) out.push_back(b);
        continue;
      }
      for (const char* signature : kSigned) {
        if (std::memcmp(data + s, signature, 4) != 0) continue;
        for (b = {s, 8}; b.length <= kLongestBlock && s + b.length + 4 <= size; ++b.length)
          if (checksum_matches(data, b)) {
            out.push_back(b);
            break;
          }
        break;
      }
    }
    return out;
  }

  static std::uint64_t hash(const std::uint8_t* data, std::size_t size) {  // FNV-1a
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
    return h ^ size;
  }

  // Corpus inputs are searched once; each mutation's result is remembered for the next step.
  std::vector<Block> blocks_of(const std::uint8_t* data, std::size_t size) {
    const auto it = known_.find(hash(data, size));
    if (it != known_.end()) return it->second;
    std::vector<Block> blocks = find_blocks(data, size);
    remember(data, size, blocks);
    return blocks;
  }
  void remember(const std::uint8_t* data, std::size_t size, std::vector<Block> blocks) {
    if (known_.size() > 20000) known_.clear();
    known_[hash(data, size)] = std::move(blocks);
  }

  // An insertion or erasure moves the blocks after it and resizes the one it falls in; blocks
  // it cut away are dropped.
  static void follow_the_edit(std::vector<Block>& blocks, const std::vector<std::uint8_t>& before,
                              const std::uint8_t* after, std::size_t new_size) {
    if (new_size == before.size()) return;
    std::size_t at = 0;
    while (at < before.size() && at < new_size && before[at] == after[at]) ++at;
    const auto delta = static_cast<std::ptrdiff_t>(new_size) - static_cast<std::ptrdiff_t>(before.size());
    std::vector<Block> moved;
    for (const auto& b : blocks) {
      auto start = static_cast<std::ptrdiff_t>(b.start), length = static_cast<std::ptrdiff_t>(b.length);
      if (b.start > at) start += delta;
      else if (b.start + b.length > at) length += delta;
      if (start >= 0 && length >= 4 && static_cast<std::size_t>(start + length) + 4 <= new_size)
        moved.push_back({static_cast<std::size_t>(start), static_cast<std::size_t>(length)});
    }
    blocks = std::move(moved);
  }

  static void store_checksum(std::uint8_t* data, std::size_t size, Block b) {
    if (b.start + b.length + 4 > size) return;
    const std::uint32_t sum = io::h5::metadata_checksum(data + b.start, b.length);
    for (int i = 0; i < 4; ++i) data[b.start + b.length + i] = static_cast<std::uint8_t>(sum >> (8 * i));
  }

  // Every checksum rewritten; the superblock's last, after its end-of-file address follows
  // the new size.
  static void repair(std::uint8_t* data, std::size_t size, const std::vector<Block>& blocks) {
    for (const Block& b : blocks)
      if (b.start != 0) store_checksum(data, size, b);
    if (blocks.empty() || blocks.front().start != 0 || size < 48) return;
    for (int i = 0; i < 8; ++i) data[28 + i] = static_cast<std::uint8_t>(std::uint64_t{size} >> (8 * i));
    store_checksum(data, size, blocks.front());
  }

  std::unordered_map<std::uint64_t, std::vector<Block>> known_;
};

}  // namespace fedbench::fuzz
