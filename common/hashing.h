#pragma once

// Two hash families with different jobs:
//
// - crc32*: CRC-32C (Castagnoli). Decides which worker owns a row (hash
//   partitioning of tables) and which destination an exchange sends a row to.
//   Its values are part of the on-disk and placement contract: rows loaded
//   under one version must be found on the same worker by every later version,
//   so these functions must never change.
// - hash64*: a fast 64-bit mixing hash for in-memory hash tables and
//   HyperLogLog sketches. Its values may change between versions; never store
//   them or use them to place data.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

namespace shoal {

static_assert(std::endian::native == std::endian::little, "hash contracts are defined over little-endian bytes");

// ------------------------------------------------------------------------------------------------
// CRC-32C: the placement hash.
//
// Contract (never change it): crc32Hash(data, n, seed) is the standard CRC-32C of the n bytes, i.e.
// the reflected polynomial 0x82F63B78 with the register initialised to ~seed and the result
// complemented. With seed = 0 this is the textbook CRC-32C (iSCSI, RFC 3720; "123456789" gives
// 0xE3069283), with the chaining convention of Go's crc32.Update(crc, castagnoliTable, p): the
// seed is a previous result, so hashing in pieces equals hashing the concatenation:
// crc32Hash(b, nb, crc32Hash(a, na)) == crc32Hash(a || b).
//
// The typed helpers hash the value's little-endian bytes, so crc32Int64(v, seed) equals
// crc32Hash(&v, 8, seed). Multi-column keys combine by chaining: pass the previous column's hash
// as the next column's seed (the key's hash is then the CRC-32C of its columns' concatenated
// encodings). Both sides of a partitioned join must hash the same encoding: cast the keys to one
// type first. Recommended encodings: SQL integers (INTEGER, BIGINT, DATE, DECIMAL up to 18 digits)
// as crc32Int64 of the sign-extended value, so that INTEGER and BIGINT keys co-locate; strings as
// their bytes (CHAR without trailing spaces); DOUBLE through crc32Double.
//
// On x86-64 this uses the SSE4.2 CRC32 instruction (the build targets x86-64-v3); elsewhere a
// table-driven software loop gives bit-for-bit the same values.
// ------------------------------------------------------------------------------------------------

namespace hashing_detail {

inline constexpr uint32_t kCrc32cPolynomial = 0x82F63B78;  // Castagnoli, bit-reflected

struct Crc32cTable {
  uint32_t entries[256];
};

constexpr Crc32cTable makeCrc32cTable() {
  Crc32cTable table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) ? (crc >> 1) ^ kCrc32cPolynomial : crc >> 1;
    }
    table.entries[byte] = crc;
  }
  return table;
}

inline constexpr Crc32cTable kCrc32cTable = makeCrc32cTable();

/// Advances a raw (not complemented) CRC-32C register over `bytes` bytes, one byte at a time.
inline uint32_t crc32cUpdateSoftware(uint32_t crc, const unsigned char* data, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    crc = kCrc32cTable.entries[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  }
  return crc;
}

/// Advances a raw CRC-32C register over `bytes` bytes, with the CRC instruction where available.
inline uint32_t crc32cUpdate(uint32_t crc, const unsigned char* data, size_t bytes) {
#if defined(__SSE4_2__)
  uint64_t wide = crc;
  while (bytes >= 8) {
    uint64_t word;
    std::memcpy(&word, data, sizeof(word));
    wide = _mm_crc32_u64(wide, word);
    data += 8;
    bytes -= 8;
  }
  crc = static_cast<uint32_t>(wide);
  if (bytes >= 4) {
    uint32_t word;
    std::memcpy(&word, data, sizeof(word));
    crc = _mm_crc32_u32(crc, word);
    data += 4;
    bytes -= 4;
  }
  while (bytes > 0) {
    crc = _mm_crc32_u8(crc, *data);
    ++data;
    --bytes;
  }
  return crc;
#else
  return crc32cUpdateSoftware(crc, data, bytes);
#endif
}

}  // namespace hashing_detail

/// Returns the CRC-32C of `bytes` bytes at `data`, continuing from `seed` (a previous result, or 0).
inline uint32_t crc32Hash(const void* data, size_t bytes, uint32_t seed = 0) {
  return ~hashing_detail::crc32cUpdate(~seed, static_cast<const unsigned char*>(data), bytes);
}

/// Returns crc32Hash computed without the CRC instruction: the reference that defines the
/// contract, for tests and for CPUs without SSE4.2. Slow (one table lookup per byte).
inline uint32_t crc32HashSoftware(const void* data, size_t bytes, uint32_t seed = 0) {
  return ~hashing_detail::crc32cUpdateSoftware(~seed, static_cast<const unsigned char*>(data), bytes);
}

/// Returns the CRC-32C of a string's bytes, continuing from `seed`.
inline uint32_t crc32String(std::string_view text, uint32_t seed = 0) {
  return crc32Hash(text.data(), text.size(), seed);
}

/// Returns the CRC-32C of one byte (a BOOLEAN is 0 or 1), continuing from `seed`.
inline uint32_t crc32Int8(uint8_t value, uint32_t seed = 0) {
#if defined(__SSE4_2__)
  return ~_mm_crc32_u8(~seed, value);
#else
  return crc32Hash(&value, sizeof(value), seed);
#endif
}

/// Returns the CRC-32C of the 4 little-endian bytes of `value`, continuing from `seed`.
inline uint32_t crc32Int32(uint32_t value, uint32_t seed = 0) {
#if defined(__SSE4_2__)
  return ~_mm_crc32_u32(~seed, value);
#else
  return crc32Hash(&value, sizeof(value), seed);
#endif
}

/// Returns the CRC-32C of the 8 little-endian bytes of `value`, continuing from `seed`.
inline uint32_t crc32Int64(uint64_t value, uint32_t seed = 0) {
#if defined(__SSE4_2__)
  return ~static_cast<uint32_t>(_mm_crc32_u64(~seed, value));
#else
  return crc32Hash(&value, sizeof(value), seed);
#endif
}

/// Returns the CRC-32C of the 16 little-endian bytes of `value` (low half first), continuing from `seed`.
inline uint32_t crc32Int128(unsigned __int128 value, uint32_t seed = 0) {
  return crc32Int64(static_cast<uint64_t>(value >> 64), crc32Int64(static_cast<uint64_t>(value), seed));
}

/// Returns a double's bits with -0.0 folded into +0.0 and every NaN into one quiet NaN, so that
/// values SQL calls equal hash equally.
inline uint64_t canonicalDoubleBits(double value) {
  if (value == 0.0) {
    return 0;
  }
  if (value != value) {
    return 0x7FF8000000000000ULL;
  }
  return std::bit_cast<uint64_t>(value);
}

/// Returns the CRC-32C of a double's canonical 8 bytes (see canonicalDoubleBits), continuing from `seed`.
inline uint32_t crc32Double(double value, uint32_t seed = 0) {
  return crc32Int64(canonicalDoubleBits(value), seed);
}

// ------------------------------------------------------------------------------------------------
// hash64: the in-memory hash, for hash tables and HyperLogLog. All 64 bits are well mixed (high
// bits for HyperLogLog's register index, low bits for a table's bucket). Not a stable contract.
// ------------------------------------------------------------------------------------------------

namespace hashing_detail {

// Odd constants with well-spread bits: the golden ratio and the multipliers of splitmix64's
// finalizer (Stafford's "Mix13"), and two more from wyhash's secret set.
inline constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
inline constexpr uint64_t kMix1 = 0xBF58476D1CE4E5B9ULL;
inline constexpr uint64_t kMix2 = 0x94D049BB133111EBULL;
inline constexpr uint64_t kSecret0 = 0xA0761D6478BD642FULL;
inline constexpr uint64_t kSecret1 = 0xE7037ED1A0B428DBULL;
inline constexpr uint64_t kSecret2 = 0x8EBC6AF09C88C6E3ULL;

/// A bijective 64-bit finalizer with full avalanche (every input bit flips each output bit with
/// probability close to 1/2).
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= kMix1;
  x ^= x >> 27;
  x *= kMix2;
  x ^= x >> 31;
  return x;
}

/// Multiplies to 128 bits and folds the halves together: one multiply that mixes both inputs.
inline uint64_t multiplyFold(uint64_t a, uint64_t b) {
  unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t read64(const unsigned char* p) {
  uint64_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

inline uint64_t read32(const unsigned char* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

}  // namespace hashing_detail

/// Returns a 64-bit hash of an integer. Bijective, so distinct integers never collide. Signed
/// values are hashed as their sign-extended 64-bit two's complement (pass them as int64_t), so an
/// INTEGER and a BIGINT holding the same number hash equally.
inline uint64_t hash64Int64(uint64_t value) {
  return hashing_detail::mix64(value + hashing_detail::kGolden);
}

/// Returns hash64Int64 of the sign-extended value: an INTEGER or DATE hashes like the same BIGINT.
inline uint64_t hash64Int32(int32_t value) {
  return hash64Int64(static_cast<uint64_t>(static_cast<int64_t>(value)));
}

/// Returns a 64-bit hash of a 128-bit integer. Values that fit in 64 bits hash like hash64Int64, so
/// a DECIMAL(30,2) and a DECIMAL(10,2) holding the same number hash equally.
inline uint64_t hash64Int128(__int128 value) {
  const auto low = static_cast<uint64_t>(value);
  const auto high = static_cast<uint64_t>(static_cast<unsigned __int128>(value) >> 64);
  const uint64_t signExtension = static_cast<uint64_t>(static_cast<int64_t>(low) >> 63);
  if (high == signExtension) [[likely]] {
    return hash64Int64(low);
  }
  return hashing_detail::mix64(
      hashing_detail::multiplyFold(low ^ hashing_detail::kSecret0, high ^ hashing_detail::kSecret1));
}

/// Returns a 64-bit hash of a double; -0.0 and +0.0 hash equally, and so do all NaNs.
inline uint64_t hash64Double(double value) {
  return hash64Int64(canonicalDoubleBits(value) ^ hashing_detail::kSecret2);
}

/// Returns a 64-bit hash of `bytes` bytes at `data` (a wyhash-style multiply-fold hash: one or two
/// multiplies for strings up to 16 bytes, three independent lanes over 48-byte blocks for longer
/// ones). Typed values and their bytes hash differently: hash one column consistently.
inline uint64_t hash64(const void* data, size_t bytes, uint64_t seed = 0) {
  namespace hd = hashing_detail;
  const auto* p = static_cast<const unsigned char*>(data);
  seed ^= hd::multiplyFold(seed ^ hd::kSecret0, hd::kSecret1);
  uint64_t a;
  uint64_t b;
  if (bytes <= 16) {
    if (bytes >= 4) {
      // Two overlapping reads from each end cover every byte of a 4..16-byte string.
      const size_t middle = (bytes >> 3) << 2;
      a = (hd::read32(p) << 32) | hd::read32(p + middle);
      b = (hd::read32(p + bytes - 4) << 32) | hd::read32(p + bytes - 4 - middle);
    } else if (bytes > 0) {
      a = (uint64_t{p[0]} << 16) | (uint64_t{p[bytes >> 1]} << 8) | p[bytes - 1];
      b = 0;
    } else {
      a = 0;
      b = 0;
    }
  } else {
    size_t remaining = bytes;
    if (remaining > 48) {
      uint64_t lane1 = seed;
      uint64_t lane2 = seed;
      do {
        seed = hd::multiplyFold(hd::read64(p) ^ hd::kSecret1, hd::read64(p + 8) ^ seed);
        lane1 = hd::multiplyFold(hd::read64(p + 16) ^ hd::kSecret2, hd::read64(p + 24) ^ lane1);
        lane2 = hd::multiplyFold(hd::read64(p + 32) ^ hd::kSecret0, hd::read64(p + 40) ^ lane2);
        p += 48;
        remaining -= 48;
      } while (remaining > 48);
      seed ^= lane1 ^ lane2;
    }
    while (remaining > 16) {
      seed = hd::multiplyFold(hd::read64(p) ^ hd::kSecret1, hd::read64(p + 8) ^ seed);
      p += 16;
      remaining -= 16;
    }
    // The last 16 bytes, overlapping the previous block when the length is not a multiple of 16.
    a = hd::read64(p + remaining - 16);
    b = hd::read64(p + remaining - 8);
  }
  a ^= hd::kSecret1;
  b ^= seed;
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  a = static_cast<uint64_t>(product);
  b = static_cast<uint64_t>(product >> 64);
  return hd::multiplyFold(a ^ hd::kSecret0 ^ bytes, b ^ hd::kSecret1);
}

/// Returns a 64-bit hash of a string's bytes.
inline uint64_t hash64(std::string_view text) {
  return hash64(text.data(), text.size());
}

/// Combines the hash of one more key column into the hash of the columns before it. Order matters:
/// hashCombine(hashCombine(h0, h1), h2) for columns 0, 1, 2. Bijective in each argument, so no
/// value of one side makes the other side irrelevant.
inline uint64_t hashCombine(uint64_t seed, uint64_t hash) {
  return hashing_detail::mix64(seed * hashing_detail::kMix1 + hash + hashing_detail::kGolden);
}

}  // namespace shoal
