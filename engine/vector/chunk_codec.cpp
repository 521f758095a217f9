#include "engine/vector/chunk_codec.h"

#include <cstring>

#include "common/byte_reader.h"
#include "common/status.h"

namespace shoal::engine {
namespace {

template <class T>
void appendRaw(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

/// Appends rows rowAt(0), ..., rowAt(numRows - 1) of `chunk`; `identity` says rowAt(i) == i, so that whole
/// columns can be copied at once.
template <class RowAt>
void encodeRows(const Chunk& chunk, uint32_t numRows, bool identity, RowAt rowAt, std::string& out) {
  appendRaw(out, numRows);
  appendRaw(out, static_cast<uint32_t>(chunk.numColumns()));
  for (size_t c = 0; c < chunk.numColumns(); ++c) {
    const Vector& column = chunk.column(c);
    appendRaw(out, static_cast<uint8_t>(column.type().id()));
    bool hasNulls = false;
    if (identity) {
      hasNulls = !column.validity().allValid(numRows);
    } else {
      for (uint32_t i = 0; i < numRows && !hasNulls; ++i) hasNulls = column.isNull(rowAt(i));
    }
    appendRaw(out, static_cast<uint8_t>(hasNulls));
    if (hasNulls) {
      ValidityMask selected(numRows);
      for (uint32_t i = 0; i < numRows; ++i) selected.setValid(i, !column.isNull(rowAt(i)));
      out.append(reinterpret_cast<const char*>(selected.words()), (numRows + 63) / 64 * sizeof(uint64_t));
    }
    if (column.type().physicalType() != PhysicalType::kString) {
      const size_t width = physicalTypeWidth(column.type().physicalType());
      const char* values = reinterpret_cast<const char*>(column.data<std::byte>());
      if (identity) {
        out.append(values, numRows * width);
      } else {
        size_t offset = out.size();
        out.resize(offset + numRows * width);
        for (uint32_t i = 0; i < numRows; ++i)
          copyValue(out.data() + offset + i * width, values + rowAt(i) * width, width);
      }
      continue;
    }
    const StringRef* strings = column.data<StringRef>();
    size_t bytes = 0;
    for (uint32_t i = 0; i < numRows; ++i) {
      appendRaw(out, strings[rowAt(i)].size());
      bytes += strings[rowAt(i)].size();
    }
    out.reserve(out.size() + bytes);
    for (uint32_t i = 0; i < numRows; ++i) {
      out.append(strings[rowAt(i)].view());
    }
  }
}

}  // namespace

void encodeChunk(const Chunk& chunk, std::string& out) {
  encodeRows(
      chunk, static_cast<uint32_t>(chunk.size()), true, [](uint32_t i) { return i; }, out);
}

void encodeChunkRows(const Chunk& chunk, std::span<const uint32_t> rows, std::string& out) {
  encodeRows(
      chunk, static_cast<uint32_t>(rows.size()), false, [&](uint32_t i) { return rows[i]; }, out);
}

namespace {

/// Decodes `bytes`; with an `owner` of them, long strings point into them instead of being copied.
Chunk decode(std::string_view bytes, std::span<const LogicalType> types, const std::shared_ptr<const void>& owner) {
  ByteReader cursor(bytes, "chunk message");
  const uint32_t numRows = cursor.read<uint32_t>();
  const uint32_t numColumns = cursor.read<uint32_t>();
  if (numColumns != types.size()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "malformed chunk message: {} columns, expected {}", numColumns,
                    types.size());
  }
  // Every row takes at least one byte per column, so a huge count in a short message is caught before allocating.
  if (numColumns > 0 && numRows > bytes.size()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "malformed chunk message: {} rows in {} bytes", numRows, bytes.size());
  }
  Chunk chunk(numRows);
  for (const LogicalType& type : types) {
    if (cursor.read<uint8_t>() != static_cast<uint8_t>(type.id())) {
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "malformed chunk message: column type differs from {}",
                      type.toString());
    }
    Vector column(type, numRows);
    if (cursor.read<uint8_t>() != 0) {
      const size_t bitmapBytes = (numRows + 63) / 64 * sizeof(uint64_t);
      std::memcpy(column.validity().words(), cursor.take(bitmapBytes).data(), bitmapBytes);
    }
    if (type.physicalType() != PhysicalType::kString) {
      const size_t valueBytes = numRows * physicalTypeWidth(type.physicalType());
      std::memcpy(column.data<std::byte>(), cursor.take(valueBytes).data(), valueBytes);
    } else {
      const char* lengths = cursor.take(numRows * sizeof(uint32_t)).data();
      if (owner) column.keepAlive(owner);
      auto* strings = column.data<StringRef>();
      for (uint32_t row = 0; row < numRows; ++row) {
        uint32_t length;
        std::memcpy(&length, lengths + row * sizeof(uint32_t), sizeof(length));
        if (owner) {
          strings[row] = StringRef(cursor.take(length));
        } else {
          column.setString(row, cursor.take(length));
        }
      }
    }
    chunk.addColumn(std::move(column));
  }
  if (!cursor.atEnd()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "malformed chunk message: trailing bytes");
  }
  return chunk;
}

}  // namespace

Chunk decodeChunk(std::string_view bytes, std::span<const LogicalType> types) {
  return decode(bytes, types, nullptr);
}

Chunk decodeChunk(std::shared_ptr<const std::string> bytes, std::span<const LogicalType> types) {
  const std::string_view view = *bytes;
  return decode(view, types, std::move(bytes));
}

}  // namespace shoal::engine
