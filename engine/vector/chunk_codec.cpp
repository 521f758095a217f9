#include "engine/vector/chunk_codec.h"

#include <cstring>
#include <vector>

#include "common/byte_reader.h"
#include "common/check.h"
#include "common/status.h"

namespace shoal::engine {
namespace {

/// Appends rows rowAt(0), ..., rowAt(numRows - 1) of `chunk`; `identity` says rowAt(i) == i, so that whole
/// columns can be copied at once. The message's size is worked out first, so that `out` grows once.
template <class RowAt>
void encodeRows(const Chunk& chunk, uint32_t numRows, bool identity, RowAt rowAt, std::string& out) {
  const size_t numColumns = chunk.numColumns();
  const size_t bitmapBytes = (size_t{numRows} + 63) / 64 * sizeof(uint64_t);
  std::vector<uint8_t> hasNulls(numColumns, 0);
  size_t total = 2 * sizeof(uint32_t);
  for (size_t c = 0; c < numColumns; ++c) {
    const Vector& column = chunk.column(c);
    if (identity) {
      hasNulls[c] = !column.validity().allValid(numRows);
    } else if (!column.validity().allValid(column.size())) {
      for (uint32_t i = 0; i < numRows && !hasNulls[c]; ++i) hasNulls[c] = column.isNull(rowAt(i));
    }
    total += 2 + (hasNulls[c] ? bitmapBytes : 0);
    if (column.type().physicalType() != PhysicalType::kString) {
      total += numRows * physicalTypeWidth(column.type().physicalType());
    } else {
      const StringRef* strings = column.data<StringRef>();
      total += numRows * sizeof(uint32_t);
      for (uint32_t i = 0; i < numRows; ++i) total += strings[rowAt(i)].size();
    }
  }
  const size_t start = out.size();
  out.resize(start + total);
  char* cursor = out.data() + start;
  auto put = [&](const void* bytes, size_t count) {
    std::memcpy(cursor, bytes, count);
    cursor += count;
  };
  const auto numColumns32 = static_cast<uint32_t>(numColumns);
  put(&numRows, sizeof(numRows));
  put(&numColumns32, sizeof(numColumns32));
  for (size_t c = 0; c < numColumns; ++c) {
    const Vector& column = chunk.column(c);
    const auto typeId = static_cast<uint8_t>(column.type().id());
    put(&typeId, 1);
    put(&hasNulls[c], 1);
    if (hasNulls[c]) {
      ValidityMask selected(numRows);
      for (uint32_t i = 0; i < numRows; ++i) selected.setValid(i, !column.isNull(rowAt(i)));
      put(selected.words(), bitmapBytes);
    }
    if (column.type().physicalType() != PhysicalType::kString) {
      const size_t width = physicalTypeWidth(column.type().physicalType());
      const char* values = reinterpret_cast<const char*>(column.data<std::byte>());
      if (identity) {
        put(values, numRows * width);
      } else {
        gatherValues(cursor, values, width, numRows, rowAt);
        cursor += numRows * width;
      }
      continue;
    }
    const StringRef* strings = column.data<StringRef>();
    for (uint32_t i = 0; i < numRows; ++i) {
      const uint32_t length = strings[rowAt(i)].size();
      put(&length, sizeof(length));
    }
    for (uint32_t i = 0; i < numRows; ++i) {
      const std::string_view text = strings[rowAt(i)].view();
      put(text.data(), text.size());
    }
  }
  SHOAL_CHECK(cursor == out.data() + out.size(), "chunk message of {} bytes written as {}", total,
              cursor - (out.data() + start));
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

/// Decodes the chunk at `cursor`; with an `owner` of the bytes, long strings point into them instead of
/// being copied.
Chunk decodeNext(ByteReader& cursor, std::span<const LogicalType> types, const std::shared_ptr<const void>& owner) {
  const uint32_t numRows = cursor.read<uint32_t>();
  const uint32_t numColumns = cursor.read<uint32_t>();
  if (numColumns != types.size()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "malformed chunk message: {} columns, expected {}", numColumns,
                    types.size());
  }
  // Every row takes at least one byte per column, so a huge count in a short message is caught before allocating.
  if (numColumns > 0 && numRows > cursor.remaining()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "malformed chunk message: {} rows in {} bytes", numRows,
                    cursor.remaining());
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
  return chunk;
}

Chunk decodeWhole(std::string_view bytes, std::span<const LogicalType> types,
                  const std::shared_ptr<const void>& owner) {
  ByteReader cursor(bytes, "chunk message");
  Chunk chunk = decodeNext(cursor, types, owner);
  if (!cursor.atEnd()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "malformed chunk message: trailing bytes");
  }
  return chunk;
}

}  // namespace

Chunk decodeChunk(std::string_view bytes, std::span<const LogicalType> types) {
  return decodeWhole(bytes, types, nullptr);
}

Chunk decodeChunk(std::shared_ptr<const std::string> bytes, std::span<const LogicalType> types) {
  const std::string_view view = *bytes;
  return decodeWhole(view, types, std::move(bytes));
}

std::vector<Chunk> decodeChunks(std::shared_ptr<const std::string> bytes, std::span<const LogicalType> types) {
  ByteReader cursor(*bytes, "chunk message");
  std::vector<Chunk> chunks;
  while (!cursor.atEnd()) chunks.push_back(decodeNext(cursor, types, bytes));
  return chunks;
}

}  // namespace shoal::engine
