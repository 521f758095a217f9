#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shoal {

// LEB128 varints: 7 bits a byte, low bits first, the high bit set on every byte but the last. Small counts
// in serialized sketches and statistics take one byte instead of eight.

inline void appendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

/// Bytes appendVarint writes for `value`.
inline size_t varintBytes(uint64_t value) {
  size_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++bytes;
  }
  return bytes;
}

/// Reads a varint at `pos`, advancing it. False when the bytes end first or the value needs more than 64 bits.
inline bool decodeVarint(std::string_view bytes, size_t& pos, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= bytes.size()) return false;
    const auto byte = static_cast<uint8_t>(bytes[pos++]);
    if (shift == 63 && byte > 1) return false;
    value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace shoal
