#include "coordinator/query/binary_copy_in.h"

#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "coordinator/pgwire/value_codec.h"
#include "coordinator/query/row_router.h"

namespace shoal::coordinator {
namespace {

constexpr std::string_view kSignature("PGCOPY\n\377\r\n\0", 11);
constexpr size_t kReadBytes = 1 << 20;

/// The input as a stream of big-endian integers and byte runs, read in blocks.
class BinaryReader {
 public:
  explicit BinaryReader(CopyInput& input) : input_(input) {}

  /// Whether `n` more bytes could be had (false at the end of the input).
  bool available(size_t n) {
    while (buffer_.size() - position_ < n) {
      if (atEnd_) return false;
      buffer_.erase(0, position_);
      position_ = 0;
      const size_t old = buffer_.size();
      buffer_.resize(old + kReadBytes);
      const size_t got = input_.read(buffer_.data() + old, kReadBytes);
      buffer_.resize(old + got);
      atEnd_ = got == 0;
    }
    return true;
  }
  std::string_view bytes(size_t n) {
    if (!available(n)) SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "unexpected EOF in COPY data");
    std::string_view view(buffer_.data() + position_, n);
    position_ += n;
    return view;
  }
  int32_t int32() {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes(4).data());
    return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3]);
  }
  int16_t int16() {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes(2).data());
    return static_cast<int16_t>((p[0] << 8) | p[1]);
  }

 private:
  CopyInput& input_;
  std::string buffer_;
  size_t position_ = 0;
  bool atEnd_ = false;
};

void readHeader(BinaryReader& reader) {
  if (!reader.available(kSignature.size()) || reader.bytes(kSignature.size()) != kSignature) {
    SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "COPY file signature not recognized");
  }
  if (!reader.available(4)) SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "invalid COPY file header (missing flags)");
  const int32_t flags = reader.int32();
  if ((flags & (1 << 16)) != 0) SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "invalid COPY file header (WITH OIDS)");
  if ((flags & 0xFFFF0000 & ~(1 << 16)) != 0) {
    SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "unrecognized critical flags in COPY file header");
  }
  if (!reader.available(4)) SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "invalid COPY file header (missing length)");
  const int32_t extension = reader.int32();
  if (extension < 0 || !reader.available(static_cast<size_t>(extension))) {
    SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "invalid COPY file header (wrong length)");
  }
  reader.bytes(static_cast<size_t>(extension));
}

/// The bytes a fixed-width type's binary value takes (0: variable width), as PostgreSQL's receive functions
/// read them: fewer is a protocol violation (08P01), more a bad value (22P03).
size_t fixedWidth(const engine::LogicalType& type) {
  switch (type.id()) {
    case engine::TypeId::kBoolean:
      return 1;
    case engine::TypeId::kSmallInt:
      return 2;
    case engine::TypeId::kInteger:
    case engine::TypeId::kDate:
      return 4;
    case engine::TypeId::kDouble:
      return type.isReal() ? 4 : 8;  // float4recv, float8recv
    case engine::TypeId::kBigInt:
    case engine::TypeId::kTimestamp:
    case engine::TypeId::kTimestampTz:
    case engine::TypeId::kTime:
      return 8;
    case engine::TypeId::kInterval:
    case engine::TypeId::kUuid:
      return 16;
    default:
      return 0;
  }
}

void checkWidth(const engine::LogicalType& type, size_t length) {
  const size_t width = fixedWidth(type);
  if (width == 0 || length == width) return;
  if (length < width) SHOAL_USER_FAIL(SqlState::kProtocolViolation, "insufficient data left in message");
  SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary data format");
}

}  // namespace

std::string runBinaryCopy(ClusterContext& cluster, const sql::CopyFrom& command, CopyInput& input,
                          const std::atomic<bool>& cancelRequested, Transaction* transaction) {
  auto table = cluster.tables.require(command.table);
  const std::vector<engine::LogicalType> types = table->columnTypes();
  // The table column each field fills, in order.
  std::vector<size_t> targets = command.columns;
  if (targets.empty()) {
    for (size_t c = 0; c < types.size(); ++c) targets.push_back(c);
  }
  RowRouter router(cluster, table, {}, transaction);
  BinaryReader reader(input);
  readHeader(reader);
  auto newColumns = [&] {
    std::vector<engine::Vector> columns;
    for (const auto& type : types) columns.emplace_back(type, engine::kVectorSize);
    return columns;
  };
  std::vector<engine::Vector> columns = newColumns();
  size_t rows = 0;
  auto flush = [&] {
    engine::Chunk chunk(rows);
    for (auto& column : columns) chunk.addColumn(std::move(column));
    router.write(chunk);
    columns = newColumns();
    rows = 0;
  };
  uint64_t line = 0;
  while (true) {
    if (!reader.available(2)) break;  // PostgreSQL accepts input that ends without the trailer
    const int16_t count = reader.int16();
    if (count == -1) break;  // the trailer
    ++line;
    if (line % 4096 == 0 && cancelRequested.load()) {
      SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
    }
    if (count != static_cast<int16_t>(targets.size())) {
      SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "row field count is {}, expected {}", count, targets.size());
    }
    for (size_t c = 0; c < types.size(); ++c) columns[c].setNull(rows, true);
    for (size_t field = 0; field < targets.size(); ++field) {
      const int32_t length = reader.int32();
      if (length == -1) continue;
      if (length < 0) SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "invalid field size");
      const std::string_view bytes = reader.bytes(static_cast<size_t>(length));
      const size_t column = targets[field];
      try {
        checkWidth(types[column], bytes.size());
        engine::Value value = decodeParameter(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                                              WireFormat::kBinary, types[column]);
        columns[column].setValue(rows, value);
      } catch (const ShoalError& error) {
        SHOAL_USER_FAIL(error.status().sqlState(), "{} (COPY {}, line {}, column {})", error.status().message(),
                        table->name, line, table->columns[column].name);
      }
    }
    if (++rows == engine::kVectorSize) flush();
  }
  if (rows > 0) flush();
  return fmt::format("COPY {}", router.finish());
}

}  // namespace shoal::coordinator
