#include "exchange/row_format.h"

#include <algorithm>
#include <cstring>

#include "common/byte_reader.h"
#include "common/status.h"

namespace shoal::exchange {

using engine::Chunk;
using engine::PhysicalType;
using engine::StringRef;
using engine::Vector;

RowLayout::RowLayout(std::vector<engine::LogicalType> types, std::vector<bool> nullable) : types_(std::move(types)) {
  SHOAL_CHECK_EQ(types_.size(), nullable.size());
  for (size_t column = 0; column < types_.size(); ++column) {
    const PhysicalType physical = types_[column].physicalType();
    widths_.push_back(engine::physicalTypeWidth(physical));
    if (physical == PhysicalType::kString) stringColumns_.push_back(column);
    if (nullable[column]) {
      nullableColumns_.push_back(column);
    } else if (physical != PhysicalType::kString) {
      notNullFixedColumns_.push_back(column);
      fixedBytes_ += widths_[column];
    }
  }
}

size_t RowLayout::rowBytes(const Chunk& chunk, size_t row) const {
  size_t bytes = fixedBytes_ + indicatorBytes();
  for (size_t column : nullableColumns_) {
    if (!chunk.column(column).isNull(row) && types_[column].physicalType() != PhysicalType::kString) {
      bytes += widths_[column];
    }
  }
  for (size_t column : stringColumns_) {
    const Vector& strings = chunk.column(column);
    if (!strings.isNull(row)) bytes += sizeof(uint32_t) + strings.data<StringRef>()[row].size();
  }
  return bytes;
}

RowWriter::RowWriter(const RowLayout& layout, std::span<std::byte> payload) : layout_(layout), payload_(payload) {
  SHOAL_CHECK(payload.size() >= kHeaderBytes, "a message payload of {} bytes", payload.size());
}

bool RowWriter::append(const Chunk& chunk, size_t row) {
  const size_t bytes = layout_.rowBytes(chunk, row);
  if (rows_ == UINT32_MAX) return false;  // the row count is 32 bits (a layout without columns fits any number)
  if (bytes > payload_.size() - used_) {
    if (rows_ == 0) {
      SHOAL_USER_FAIL(SqlState::kProgramLimitExceeded,
                      "a row of {} bytes does not fit in an exchange message of {} bytes", bytes, payload_.size());
    }
    return false;
  }
  std::byte* out = payload_.data() + used_;
  auto put = [&](const void* from, size_t size) {
    std::memcpy(out, from, size);
    out += size;
  };
  for (size_t column : layout_.notNullFixedColumns_) {
    const Vector& values = chunk.column(column);
    SHOAL_CHECK(!values.isNull(row), "NULL in exchange column {}, declared NOT NULL", column);
    put(values.data<std::byte>() + row * layout_.widths_[column], layout_.widths_[column]);
  }
  std::byte* indicators = out;
  std::memset(indicators, 0, layout_.indicatorBytes());
  out += layout_.indicatorBytes();
  for (size_t bit = 0; bit < layout_.nullableColumns_.size(); ++bit) {
    const size_t column = layout_.nullableColumns_[bit];
    const Vector& values = chunk.column(column);
    if (values.isNull(row)) {
      indicators[bit / 8] |= std::byte{1} << (bit % 8);
    } else if (layout_.types_[column].physicalType() != PhysicalType::kString) {
      put(values.data<std::byte>() + row * layout_.widths_[column], layout_.widths_[column]);
    }
  }
  for (size_t column : layout_.stringColumns_) {
    const Vector& strings = chunk.column(column);
    if (strings.isNull(row)) {
      // Only a nullable string may be NULL: the bitmap says so, and the reader expects no length.
      SHOAL_CHECK(layout_.isNullable(column), "NULL in exchange column {}, declared NOT NULL", column);
      continue;
    }
    std::string_view text = strings.data<StringRef>()[row].view();
    const auto length = static_cast<uint32_t>(text.size());
    put(&length, sizeof(length));
    put(text.data(), text.size());
  }
  SHOAL_DCHECK(out == payload_.data() + used_ + bytes);
  used_ += bytes;
  ++rows_;
  return true;
}

size_t RowWriter::finish() {
  std::memcpy(payload_.data(), &rows_, sizeof(rows_));
  return used_;
}

void RowWriter::reset(std::span<std::byte> payload) {
  payload_ = payload;
  used_ = kHeaderBytes;
  rows_ = 0;
}

void decodeRows(const RowLayout& layout, std::span<const std::byte> payload,
                const std::function<void(Chunk&)>& consume) {
  ByteReader reader(std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size()),
                    "an exchange message");
  const auto numRows = reader.read<uint32_t>();
  // Every row holds at least its fixed part, its bitmap and the lengths of its NOT NULL strings:
  // a count the bytes cannot hold is damage, not a reason to allocate.
  size_t smallestRow = layout.fixedBytes() + layout.indicatorBytes();
  for (size_t column : layout.stringColumns_) {
    if (!layout.isNullable(column)) smallestRow += sizeof(uint32_t);
  }
  if (smallestRow > 0 && numRows > reader.remaining() / smallestRow) {
    reader.fail(fmt::format("{} rows in {} bytes", numRows, payload.size()));
  }
  for (uint32_t first = 0; first < numRows || (numRows == 0 && first == 0); first += engine::kVectorSize) {
    const uint32_t count = std::min<uint32_t>(engine::kVectorSize, numRows - first);
    std::vector<Vector> columns;
    for (const auto& type : layout.types()) columns.push_back(Vector::uninitialized(type, count));
    for (uint32_t row = 0; row < count; ++row) {
      for (size_t column : layout.notNullFixedColumns_) {
        std::string_view bytes = reader.take(layout.widths_[column]);
        std::memcpy(columns[column].data<std::byte>() + row * layout.widths_[column], bytes.data(), bytes.size());
      }
      std::string_view indicators = reader.take(layout.indicatorBytes());
      for (size_t bit = 0; bit < layout.nullableColumns_.size(); ++bit) {
        const size_t column = layout.nullableColumns_[bit];
        const bool isNull = (static_cast<uint8_t>(indicators[bit / 8]) >> (bit % 8)) & 1;
        columns[column].setNull(row, isNull);
        if (layout.types_[column].physicalType() == PhysicalType::kString) continue;
        std::byte* value = columns[column].data<std::byte>() + row * layout.widths_[column];
        if (isNull) {
          std::memset(value, 0, layout.widths_[column]);  // never garbage, even under a NULL
        } else {
          std::memcpy(value, reader.take(layout.widths_[column]).data(), layout.widths_[column]);
        }
      }
      for (size_t column : layout.stringColumns_) {
        if (columns[column].isNull(row)) {
          columns[column].data<StringRef>()[row] = StringRef();
          continue;
        }
        const auto length = reader.read<uint32_t>();
        columns[column].setString(row, reader.take(length));
      }
    }
    if (first + count >= numRows && !reader.atEnd()) {
      reader.fail(fmt::format("{} bytes after the last row", reader.remaining()));
    }
    Chunk chunk(std::move(columns), count);
    consume(chunk);
    if (numRows == 0) break;
  }
}

Chunk decodeRows(const RowLayout& layout, std::span<const std::byte> payload) {
  std::vector<Chunk> parts;
  decodeRows(layout, payload, [&](Chunk& chunk) { parts.push_back(std::move(chunk)); });
  if (parts.size() == 1) return std::move(parts[0]);
  size_t total = 0;
  for (const auto& part : parts) total += part.size();
  std::vector<Vector> columns;
  for (const auto& type : layout.types()) columns.push_back(Vector::uninitialized(type, total));
  Chunk whole(std::move(columns), total);
  size_t row = 0;
  for (const auto& part : parts) {
    for (size_t c = 0; c < part.numColumns(); ++c) {
      for (size_t i = 0; i < part.size(); ++i) whole.column(c).setValue(row + i, part.column(c).getValue(i));
    }
    row += part.size();
  }
  return whole;
}

}  // namespace shoal::exchange
