#pragma once

#include <functional>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::exchange {

/// Which columns an exchange carries and how its rows are laid out in a message.
///
/// A message payload is a 4-byte row count, then the rows back to back, each:
///   1. the fixed-width NOT NULL columns, at their physical widths, in column order;
///   2. a NULL indicator bitmap, one bit per nullable column (set: NULL), when there are any;
///   3. the fixed-width nullable columns that are not NULL, in column order;
///   4. the variable-length data: for each string column that is not NULL, a 4-byte
///      length and the bytes.
/// Only the columns later operators need are listed, and only the used bytes of a message
/// are sent. Integers are little-endian, as on every machine Shoal targets.
class RowLayout {
 public:
  RowLayout(std::vector<engine::LogicalType> types, std::vector<bool> nullable);

  const std::vector<engine::LogicalType>& types() const { return types_; }
  size_t numColumns() const { return types_.size(); }
  /// Bytes of part 1 (every row has them).
  size_t fixedBytes() const { return fixedBytes_; }
  /// Bytes of the NULL bitmap (part 2).
  size_t indicatorBytes() const { return (nullableColumns_.size() + 7) / 8; }

  bool isNullable(size_t column) const {
    return std::find(nullableColumns_.begin(), nullableColumns_.end(), column) != nullableColumns_.end();
  }
  /// The exact encoded size of row `row` of `chunk`.
  size_t rowBytes(const engine::Chunk& chunk, size_t row) const;

 private:
  friend class RowWriter;
  friend void decodeRows(const RowLayout& layout, std::span<const std::byte> payload,
                         const std::function<void(engine::Chunk&)>& consume);
  /// The same rows as chunks of at most kVectorSize rows, each passed to `consume` as it is decoded.
  void decodeRows(const RowLayout& layout, std::span<const std::byte> payload,
                  const std::function<void(engine::Chunk&)>& consume);

  std::vector<engine::LogicalType> types_;
  std::vector<size_t> widths_;  // physical width per column (16 for strings: unused)
  std::vector<size_t> notNullFixedColumns_;
  std::vector<size_t> nullableColumns_;  // in bitmap order
  std::vector<size_t> stringColumns_;
  size_t fixedBytes_ = 0;
};

/// Fills one message payload with rows. Not thread-safe: one per producing thread and destination.
class RowWriter {
 public:
  static constexpr size_t kHeaderBytes = sizeof(uint32_t);

  /// `payload` is the message's buffer; rows are written from its start.
  RowWriter(const RowLayout& layout, std::span<std::byte> payload);

  /// Appends row `row` of `chunk` (whose columns follow the layout); false, writing nothing,
  /// when the row does not fit in what is left. A row larger than an empty payload fails (54000).
  bool append(const engine::Chunk& chunk, size_t row);
  uint32_t rows() const { return rows_; }
  /// Bytes to send: the header and the rows so far (it also writes the header).
  size_t finish();
  /// Starts over on the same buffer (after the message went out).
  void reset(std::span<std::byte> payload);

 private:
  const RowLayout& layout_;
  std::span<std::byte> payload_;
  size_t used_ = kHeaderBytes;
  uint32_t rows_ = 0;
};

/// The rows of one payload as a chunk of the layout's columns. Strings are copied into the
/// chunk's own heaps, so the message can be released at once. A payload that does not
/// parse fails with XX001.
engine::Chunk decodeRows(const RowLayout& layout, std::span<const std::byte> payload);
/// The same rows as chunks of at most kVectorSize rows, each passed to `consume` as it is decoded.
void decodeRows(const RowLayout& layout, std::span<const std::byte> payload,
                const std::function<void(engine::Chunk&)>& consume);

}  // namespace shoal::exchange
