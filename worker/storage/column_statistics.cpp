#include "worker/storage/column_statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "common/byte_reader.h"
#include "common/check.h"
#include "common/hashing.h"
#include "common/status.h"
#include "common/varint.h"
#include "engine/types/interval.h"
#include "engine/types/string_ref.h"
#include "engine/types/value_bytes.h"
#include "engine/vector/vector.h"

namespace shoal::worker {

using engine::HyperLogLog;
using engine::LogicalType;
using engine::PhysicalType;
using engine::TypeId;
using engine::Value;

namespace {

// Bumped whenever the byte layout changes; deserialize rejects versions it does not know.
constexpr uint8_t kFormatVersion = 1;
constexpr uint8_t kFlagHasMinMax = 1;
constexpr size_t kChecksumBytes = 4;

// --- Value ordering and hashing ---

/// NaN sorts above every number and equals itself, as in PostgreSQL (and the segment zone maps).
bool doubleLess(double a, double b) {
  return std::isnan(b) ? !std::isnan(a) : a < b;
}

/// Returns true when `a` sorts before `b`; both are non-NULL values of a column of `type`.
bool valueLess(const LogicalType& type, const Value& a, const Value& b) {
  switch (type.physicalType()) {
    case PhysicalType::kBool:
      return a.asBool() < b.asBool();
    case PhysicalType::kInt32:
      return a.asInt32() < b.asInt32();
    case PhysicalType::kInt64:
    case PhysicalType::kInt128:
      if (type.id() == TypeId::kUuid) return a.asDecimal() < b.asDecimal();
      if (type.id() == TypeId::kInterval)
        return engine::intervalSpan(a.asDecimal()) < engine::intervalSpan(b.asDecimal());
      return type.id() == TypeId::kDecimal ? a.asDecimal() < b.asDecimal() : a.asInt64() < b.asInt64();
    case PhysicalType::kDouble:
      return doubleLess(a.asDouble(), b.asDouble());
    case PhysicalType::kString:
      return a.asString() < b.asString();  // char_traits<char> compares as unsigned bytes: C collation
  }
  SHOAL_UNREACHABLE("physical type {}", static_cast<int>(type.physicalType()));
}

/// A CHAR value's bytes without trailing spaces; storage already strips them, so this is a guard.
std::string_view stripTrailingSpaces(std::string_view text) {
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  return text;
}

// --- Typed scan of a vector ---

/// Calls `visit(row)` for every non-NULL row in [0, numRows), reading the validity bitmap 64 rows
/// at a time; returns the number of NULL rows.
template <class Visit>
uint64_t forEachValidRow(const engine::ValidityMask& validity, size_t numRows, Visit&& visit) {
  const uint64_t* words = validity.words();
  uint64_t nulls = 0;
  for (size_t base = 0; base < numRows; base += 64) {
    const size_t count = std::min<size_t>(64, numRows - base);
    const uint64_t inRange = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
    uint64_t word = words[base / 64] & inRange;
    nulls += count - static_cast<size_t>(std::popcount(word));
    if (word == inRange) {
      for (size_t i = 0; i < count; ++i) {
        visit(base + i);
      }
    } else {
      while (word != 0) {
        visit(base + static_cast<size_t>(std::countr_zero(word)));
        word &= word - 1;
      }
    }
  }
  return nulls;
}

/// The smallest and largest values of one batch, in the vector's own representation.
template <class T>
struct BatchRange {
  std::optional<T> min;
  std::optional<T> max;
};

/// Scans the non-NULL rows of `values`: adds each `hash(value)` to `sketch` and, when `trackRange`,
/// tracks the range under `less`. `load` maps a stored value to the one compared and hashed (CHAR: stripped).
template <class Stored, class Load, class Less, class Hash>
auto scanColumn(const Stored* values, const engine::ValidityMask& validity, size_t numRows, bool trackRange,
                HyperLogLog& sketch, uint64_t& nullCount, Load load, Less less, Hash hash) {
  using T = decltype(load(values[0]));
  BatchRange<T> range;
  // A value equal to the one before it moves neither the sketch nor the range: keys, and sorted
  // or clustered columns, repeat in runs.
  T previous{};
  bool hasPrevious = false;
  nullCount += forEachValidRow(validity, numRows, [&](size_t row) {
    const T value = load(values[row]);
    if (hasPrevious && value == previous) return;
    previous = value;
    hasPrevious = true;
    sketch.add(hash(value));
    if (!trackRange) return;
    if (!range.min) [[unlikely]] {
      range.min = value;
      range.max = value;
    } else if (less(value, *range.min)) {
      range.min = value;
    } else if (less(*range.max, value)) {
      range.max = value;
    }
  });
  return range;
}

// --- Byte encoding (little-endian, LEB128 varints) ---

[[noreturn]] void failCorrupted(std::string_view reason) {
  SHOAL_USER_FAIL(SqlState::kDataCorrupted, "corrupted column statistics: {}", reason);
}

}  // namespace

ColumnStatistics::ColumnStatistics(LogicalType type) : type_(type), min_(Value::null(type)), max_(Value::null(type)) {}

void ColumnStatistics::update(const engine::Vector& vector, size_t numRows) {
  scan(vector, numRows, true);
}

void ColumnStatistics::updateDistinct(const engine::Vector& vector, size_t numRows) {
  scan(vector, numRows, false);
}

void ColumnStatistics::widenRange(const Value& min, const Value& max) {
  if (min.isNull() || max.isNull()) return;
  if (min_.isNull() || valueLess(type_, min, min_)) min_ = min;
  if (max_.isNull() || valueLess(type_, max_, max)) max_ = max;
}

void ColumnStatistics::scan(const engine::Vector& vector, size_t numRows, bool trackRange) {
  const LogicalType& vectorType = vector.type();
  SHOAL_CHECK(vectorType.id() == type_.id() && vectorType.physicalType() == type_.physicalType() &&
                  vectorType.scale() == type_.scale(),
              "statistics of a {} column updated from a {} vector", type_.toString(), vectorType.toString());
  SHOAL_CHECK_LE(numRows, vector.size(), "statistics update beyond the vector's rows");
  rowCount_ += numRows;

  // Folds one batch's range into min_/max_: two Values per batch, none per row.
  auto absorb = [&](const auto& range, auto toValue) {
    if (!range.min) {
      return;
    }
    Value batchMin = toValue(*range.min);
    Value batchMax = toValue(*range.max);
    if (min_.isNull() || valueLess(type_, batchMin, min_)) {
      min_ = std::move(batchMin);
    }
    if (max_.isNull() || valueLess(type_, max_, batchMax)) {
      max_ = std::move(batchMax);
    }
  };
  auto identity = [](auto value) { return value; };
  auto less = [](auto a, auto b) { return a < b; };
  const engine::ValidityMask& validity = vector.validity();

  switch (type_.id()) {
    case TypeId::kBoolean: {
      auto range = scanColumn(
          vector.data<uint8_t>(), validity, numRows, trackRange, sketch_, nullCount_, [](uint8_t v) { return v != 0; },
          less, [](bool v) { return hash64Int64(v ? 1 : 0); });
      absorb(range, [](bool v) { return Value::boolean(v); });
      break;
    }
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kDate: {
      auto range = scanColumn(vector.data<int32_t>(), validity, numRows, trackRange, sketch_, nullCount_, identity,
                              less, [](int32_t v) { return hash64Int32(v); });
      absorb(range, [&](int32_t v) { return Value::ofInt32(type_, v); });
      break;
    }
    case TypeId::kBigInt:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTime:
    case TypeId::kDecimal:
      if (type_.physicalType() == PhysicalType::kInt64) {
        auto range = scanColumn(vector.data<int64_t>(), validity, numRows, trackRange, sketch_, nullCount_, identity,
                                less, [](int64_t v) { return hash64Int64(static_cast<uint64_t>(v)); });
        if (type_.id() != TypeId::kDecimal) {
          absorb(range, [&](int64_t v) { return Value::ofInt64(type_, v); });
        } else {
          absorb(range, [&](int64_t v) { return Value::decimal(type_, v); });
        }
      } else {
        auto range = scanColumn(vector.data<engine::int128_t>(), validity, numRows, trackRange, sketch_, nullCount_,
                                identity, less, [](engine::int128_t v) { return hash64Int128(v); });
        absorb(range, [&](engine::int128_t v) { return Value::decimal(type_, v); });
      }
      break;
    case TypeId::kDouble: {
      auto range = scanColumn(vector.data<double>(), validity, numRows, trackRange, sketch_, nullCount_, identity,
                              doubleLess, [](double v) { return hash64Double(v); });
      absorb(range, [&](double v) { return Value::ofDouble(type_, v); });
      break;
    }
    case TypeId::kArray:
    case TypeId::kRecord: {
      // Arrays have no range here (their bytes do not order as arrays do): NULLs and distinct values only.
      scanColumn(
          vector.data<engine::StringRef>(), validity, numRows, false, sketch_, nullCount_,
          [](const engine::StringRef& v) { return v; },
          [](const engine::StringRef& a, const engine::StringRef& b) { return compare(a, b) < 0; },
          [](const engine::StringRef& v) { return hash64(v.view()); });
      break;
    }
    case TypeId::kUuid: {
      auto range = scanColumn(vector.data<engine::int128_t>(), validity, numRows, trackRange, sketch_, nullCount_,
                              identity, less, [](engine::int128_t v) { return hash64Int128(v); });
      absorb(range, [](engine::int128_t v) { return Value::uuid(v); });
      break;
    }
    case TypeId::kInterval: {
      // Intervals order and count by their span ('1 mon' = '30 days'), not by their packed bits.
      auto range = scanColumn(
          vector.data<engine::int128_t>(), validity, numRows, trackRange, sketch_, nullCount_, identity,
          [](engine::int128_t a, engine::int128_t b) { return engine::intervalSpan(a) < engine::intervalSpan(b); },
          [](engine::int128_t v) { return hash64Int128(engine::intervalSpan(v)); });
      absorb(range, [](engine::int128_t v) { return Value::interval(v); });
      break;
    }
    case TypeId::kVarchar:
    case TypeId::kChar:
    case TypeId::kBytea:
    case TypeId::kUnknown: {
      // Views into the vector's heap: the batch's min and max are copied out before update() returns.
      auto hashText = [](std::string_view text) { return hash64(text); };
      auto toValue = [&](std::string_view text) { return Value::varchar(std::string(text), type_); };
      const auto* values = vector.data<engine::StringRef>();
      if (type_.id() == TypeId::kChar) {
        auto range = scanColumn(
            values, validity, numRows, trackRange, sketch_, nullCount_,
            [](const engine::StringRef& v) { return stripTrailingSpaces(v.view()); }, less, hashText);
        absorb(range, toValue);
      } else {
        // StringRef's comparison decides most pairs on the inline 4-byte prefix, without the heap.
        auto range = scanColumn(
            values, validity, numRows, trackRange, sketch_, nullCount_, [](const engine::StringRef& v) { return v; },
            [](const engine::StringRef& a, const engine::StringRef& b) { return compare(a, b) < 0; },
            [](const engine::StringRef& v) { return hash64(v.view()); });
        absorb(range, [&](const engine::StringRef& v) { return toValue(v.view()); });
      }
      break;
    }
  }
}

void ColumnStatistics::merge(const ColumnStatistics& other) {
  SHOAL_CHECK(other.type_.id() == type_.id() && other.type_.physicalType() == type_.physicalType() &&
                  other.type_.scale() == type_.scale(),
              "merging statistics of a {} column into a {} column", other.type_.toString(), type_.toString());
  rowCount_ += other.rowCount_;
  nullCount_ += other.nullCount_;
  if (!other.min_.isNull() && (min_.isNull() || valueLess(type_, other.min_, min_))) {
    min_ = other.min_;
  }
  if (!other.max_.isNull() && (max_.isNull() || valueLess(type_, max_, other.max_))) {
    max_ = other.max_;
  }
  sketch_.merge(other.sketch_);
}

uint64_t ColumnStatistics::distinctCount() const {
  const uint64_t nonNull = nonNullCount();
  if (nonNull == 0) {
    return 0;
  }
  const auto estimate = static_cast<uint64_t>(std::llround(sketch_.estimate()));
  return std::clamp<uint64_t>(estimate, 1, nonNull);
}

// Layout, all integers little-endian:
//   u8 format version, u8 type id, u8 physical type, u8 decimal scale,
//   varint row count, varint NULL count, u8 flags (bit 0: min and max follow),
//   [min, max: u8 0/1 | int32 | int64 | int128 | double bits | varint length + bytes],
//   varint sketch length, sketch bytes (HyperLogLog::serialize),
//   u32 CRC-32C of everything before it.
std::string ColumnStatistics::serialize() const {
  std::string out;
  out.push_back(static_cast<char>(kFormatVersion));
  out.push_back(static_cast<char>(type_.id()));
  out.push_back(static_cast<char>(type_.physicalType()));
  out.push_back(static_cast<char>(type_.scale()));
  appendVarint(out, rowCount_);
  appendVarint(out, nullCount_);
  const bool hasMinMax = !min_.isNull();
  out.push_back(static_cast<char>(hasMinMax ? kFlagHasMinMax : 0));
  if (hasMinMax) {
    engine::appendValueBytes(out, type_, min_);
    engine::appendValueBytes(out, type_, max_);
  }
  const std::string sketch = sketch_.serialize();
  appendVarint(out, sketch.size());
  out.append(sketch);
  engine::appendFixedBytes(out, crc32Hash(out.data(), out.size()));
  return out;
}

ColumnStatistics ColumnStatistics::deserialize(LogicalType type, std::string_view bytes) {
  if (bytes.size() < kChecksumBytes) {
    failCorrupted(fmt::format("{} bytes is too short", bytes.size()));
  }
  const std::string_view payload = bytes.substr(0, bytes.size() - kChecksumBytes);
  uint32_t stored;
  std::memcpy(&stored, bytes.data() + payload.size(), sizeof(stored));
  const uint32_t actual = crc32Hash(payload.data(), payload.size());
  if (stored != actual) {
    failCorrupted(fmt::format("checksum mismatch (stored {:#010x}, computed {:#010x})", stored, actual));
  }

  ByteReader reader(payload, "column statistics");
  const uint8_t version = reader.read<uint8_t>();
  if (version != kFormatVersion) {
    failCorrupted(fmt::format("unknown format version {}", version));
  }
  const uint8_t typeId = reader.read<uint8_t>();
  const uint8_t physicalType = reader.read<uint8_t>();
  const uint8_t scale = reader.read<uint8_t>();
  if (typeId != static_cast<uint8_t>(type.id()) || physicalType != static_cast<uint8_t>(type.physicalType()) ||
      scale != type.scale()) {
    failCorrupted(fmt::format("written for type id {} (physical {}, scale {}), read as {}", typeId, physicalType, scale,
                              type.toString()));
  }

  ColumnStatistics statistics(type);
  statistics.rowCount_ = reader.readVarint();
  statistics.nullCount_ = reader.readVarint();
  if (statistics.nullCount_ > statistics.rowCount_) {
    failCorrupted(fmt::format("{} NULLs in {} rows", statistics.nullCount_, statistics.rowCount_));
  }
  const uint8_t flags = reader.read<uint8_t>();
  if ((flags & ~kFlagHasMinMax) != 0) {
    failCorrupted(fmt::format("unknown flags {:#04x}", flags));
  }
  const bool hasMinMax = (flags & kFlagHasMinMax) != 0;
  // Array columns keep no range (ColumnStatistics::scan): no min/max however many rows they have.
  if (hasMinMax != (statistics.nonNullCount() > 0 && !type.isArray())) {
    failCorrupted(
        fmt::format("min/max {} with {} non-NULL rows", hasMinMax ? "present" : "absent", statistics.nonNullCount()));
  }
  if (hasMinMax) {
    statistics.min_ = engine::readValueBytes(reader, type);
    statistics.max_ = engine::readValueBytes(reader, type);
    if (valueLess(type, statistics.max_, statistics.min_)) {
      failCorrupted(fmt::format("min {} above max {}", statistics.min_.toString(), statistics.max_.toString()));
    }
  }
  const uint64_t sketchBytes = reader.readVarint();
  statistics.sketch_ = HyperLogLog::deserialize(reader.take(sketchBytes));
  if (statistics.sketch_.empty() != (statistics.nonNullCount() == 0)) {
    failCorrupted(fmt::format("sketch {} with {} non-NULL rows", statistics.sketch_.empty() ? "empty" : "non-empty",
                              statistics.nonNullCount()));
  }
  if (!reader.atEnd()) {
    failCorrupted(fmt::format("{} trailing bytes", reader.remaining()));
  }
  return statistics;
}

std::string ColumnStatistics::toString() const {
  return fmt::format("ColumnStatistics(type={}, rows={}, nulls={}, distinct~{}, min={}, max={})", type_.toString(),
                     rowCount_, nullCount_, distinctCount(), min_.toString(), max_.toString());
}

}  // namespace shoal::worker
