#pragma once

#include <cstring>
#include <string>

#include "common/byte_reader.h"
#include "engine/types/value.h"

namespace shoal::engine {

// One non-NULL value as bytes, for the encodings that store values one by one (array elements, the
// minimum and maximum of column statistics): fixed-width physical types as their raw little-endian
// bytes, strings as a varint length and their bytes. An array is written as its encoding, a string.

/// Appends the raw bytes of a fixed-width value.
template <class T>
void appendFixedBytes(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

/// Appends `value` (not NULL), a value of `type`.
void appendValueBytes(std::string& out, const LogicalType& type, const Value& value);

/// Reads a value of `type` that appendValueBytes wrote; fails through `reader` (XX001) on damaged bytes.
Value readValueBytes(ByteReader& reader, const LogicalType& type);

}  // namespace shoal::engine
