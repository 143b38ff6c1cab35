// SHA-256 (FIPS 180-4), for verifying dataset files against their published checksums.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fedbench {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  //! Lowercase hex digest; the object is spent afterwards.
  std::string hex_digest();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes
};

//! Digest of a whole file (streamed); throws UserError naming the file if unreadable.
std::string sha256_file(const std::string& path);

}  // namespace fedbench
