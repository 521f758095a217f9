#pragma once

#include <cstdint>

#include "engine/vector/vector.h"

namespace shoal::engine {

/// A 64-bit mix of one integer (murmur3's finalizer): every input bit reaches
/// every output bit, so hash tables may take partitions from the high bits
/// and slots from the low ones.
inline uint64_t mixHash(uint64_t value) {
  value ^= value >> 33;
  value *= 0xff51afd7ed558ccdULL;
  value ^= value >> 33;
  value *= 0xc4ceb9fe1a85ec53ULL;
  value ^= value >> 33;
  return value;
}

/// Hashes rows [firstRow, firstRow + numRows) of `vector` column-wise into
/// `hashes` (hashes[i] for row firstRow + i): the first
/// key column sets them (`combine` false), each further one is folded in.
/// Equal SQL values hash alike, as in key_bytes.h: -0.0 as 0.0, every NaN
/// alike; NULL has a hash of its own.
void hashVector(const Vector& vector, size_t firstRow, size_t numRows, uint64_t* hashes, bool combine);

/// The hash of one string's bytes.
uint64_t hashBytes(const char* data, size_t size);

}  // namespace shoal::engine
