#include "coordinator/pgwire/value_codec.h"

#include <bit>
#include <cstring>

#include "common/status.h"
#include "coordinator/pgwire/message_reader.h"
#include "engine/types/array_value.h"
#include "engine/types/date.h"
#include "engine/types/interval.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"
#include "engine/types/uuid_value.h"

namespace shoal::coordinator {

using engine::LogicalType;
using engine::TypeId;
using engine::Value;

namespace {

// PostgreSQL's binary dates count days from 2000-01-01; Shoal's from 1970-01-01.
constexpr int32_t kPostgresEpochOffsetDays = 10957;
constexpr int64_t kPostgresEpochOffsetMicros = int64_t{kPostgresEpochOffsetDays} * engine::kMicrosPerDay;

/// PostgreSQL's binary timestamps count from 2000-01-01; infinity is the same INT64_MAX (MIN) there.
int64_t toPostgresEpoch(int64_t micros) {
  if (micros == engine::kTimestampInfinity || micros == engine::kTimestampMinusInfinity) return micros;
  return micros - kPostgresEpochOffsetMicros;
}

/// Dates likewise, with infinity as INT32_MAX (MIN) on both sides.
int32_t toPostgresDays(int32_t days) {
  return engine::isInfiniteDate(days) ? days : days - kPostgresEpochOffsetDays;
}

int32_t fromPostgresDays(int32_t days) {
  if (engine::isInfiniteDate(days)) return days;
  if (days > engine::kDateInfinity - kPostgresEpochOffsetDays) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range");
  }
  return days + kPostgresEpochOffsetDays;
}

int64_t fromPostgresEpoch(int64_t micros) {
  if (micros == engine::kTimestampInfinity || micros == engine::kTimestampMinusInfinity) return micros;
  if (micros > engine::kTimestampInfinity - kPostgresEpochOffsetMicros) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp out of range");
  }
  return micros + kPostgresEpochOffsetMicros;
}
constexpr int kNumericDigitsPerGroup = 4;  // numeric's base is 10000
constexpr int16_t kNumericPositive = 0x0000;
constexpr int16_t kNumericNegative = 0x4000;

void writeNumericBinary(engine::int128_t unscaled, int scale, MessageWriter& writer) {
  bool negative = unscaled < 0;
  std::string digits;
  engine::appendDecimalText(negative ? -unscaled : unscaled, 0, digits);
  // Split into integer and fraction digits, each padded to whole base-10000 groups.
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, scale - digits.size() + 1, '0');
  }
  std::string integerPart = digits.substr(0, digits.size() - scale);
  std::string fractionPart = digits.substr(digits.size() - scale);
  integerPart.insert(0, (kNumericDigitsPerGroup - integerPart.size() % kNumericDigitsPerGroup) % kNumericDigitsPerGroup,
                     '0');
  fractionPart.append((kNumericDigitsPerGroup - fractionPart.size() % kNumericDigitsPerGroup) % kNumericDigitsPerGroup,
                      '0');
  std::vector<int16_t> groups;
  std::string all = integerPart + fractionPart;
  for (size_t i = 0; i < all.size(); i += kNumericDigitsPerGroup) {
    groups.push_back(static_cast<int16_t>(std::stoi(all.substr(i, kNumericDigitsPerGroup))));
  }
  int weight = static_cast<int>(integerPart.size() / kNumericDigitsPerGroup) - 1;
  // Strip zero groups at both ends: they are implied by weight and dscale.
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) --last;
  if (first == last) {
    weight = 0;
    negative = false;
  }
  size_t numGroups = last - first;
  writer.writeInt32(static_cast<int32_t>(8 + 2 * numGroups));
  writer.writeInt16(static_cast<int16_t>(numGroups));
  writer.writeInt16(static_cast<int16_t>(weight));
  writer.writeInt16(negative ? kNumericNegative : kNumericPositive);
  writer.writeInt16(static_cast<int16_t>(scale));
  for (size_t i = first; i < last; ++i) {
    writer.writeInt16(groups[i]);
  }
}

std::string numericBinaryToText(std::span<const uint8_t> bytes) {
  MessageReader reader(bytes);
  int numGroups = reader.readInt16();
  int weight = reader.readInt16();
  int sign = static_cast<uint16_t>(reader.readInt16());
  int scale = reader.readInt16();
  if (sign != kNumericPositive && sign != kNumericNegative) {
    SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "invalid sign in external \"numeric\" value");
  }
  std::string integerDigits;
  std::string fractionDigits;
  for (int i = 0; i < numGroups; ++i) {
    int group = reader.readInt16();
    if (group < 0 || group > 9999) {
      SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "invalid digit in external \"numeric\" value");
    }
    std::string text = fmt::format("{:04}", group);
    (i <= weight ? integerDigits : fractionDigits) += text;
  }
  // Groups missing between the last digit and the point (weight beyond the groups) are zeros.
  for (int i = numGroups; i <= weight; ++i) integerDigits += "0000";
  // Groups missing between the point and the first digit (negative weight) are zeros too.
  if (weight < -1) fractionDigits.insert(0, static_cast<size_t>(kNumericDigitsPerGroup * (-1 - weight)), '0');
  if (integerDigits.empty()) integerDigits.push_back('0');
  if (scale > 0) fractionDigits.resize(static_cast<size_t>(scale), '0');
  return fmt::format("{}{}{}{}", sign == kNumericNegative ? "-" : "", integerDigits, scale > 0 ? "." : "",
                     fractionDigits.substr(0, static_cast<size_t>(std::max(scale, 0))));
}

int64_t readBinaryInteger(std::span<const uint8_t> bytes) {
  MessageReader reader(bytes);
  switch (bytes.size()) {
    case 2:
      return reader.readInt16();
    case 4:
      return reader.readInt32();
    case 8: {
      uint64_t high = static_cast<uint32_t>(reader.readInt32());
      uint64_t low = static_cast<uint32_t>(reader.readInt32());
      return static_cast<int64_t>((high << 32) | low);
    }
    default:
      SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary data format: {} bytes for an integer",
                      bytes.size());
  }
}

void writeArrayBinary(const engine::Vector& column, size_t row, MessageWriter& writer) {
  // PostgreSQL's array_send: dimensions, a has-NULLs flag, the element type, each dimension's length and
  // lower bound, then the elements as fields of their own.
  const LogicalType elementType = column.type().elementType();
  std::vector<Value> elements = engine::decodeArray(column.data<engine::StringRef>()[row].view(), column.type());
  engine::Vector values(elementType, elements.size());
  bool hasNull = false;
  for (size_t i = 0; i < elements.size(); ++i) {
    values.setValue(i, elements[i]);
    hasNull |= elements[i].isNull();
  }
  size_t lengthPosition = writer.reserveInt32();
  size_t start = writer.size();
  writer.writeInt32(elements.empty() ? 0 : 1);
  writer.writeInt32(hasNull ? 1 : 0);
  // oidvector's elements are OIDs, 4 bytes on the wire (Shoal keeps them as BIGINT).
  const bool oids = column.type().isVector() && elementType.id() == engine::TypeId::kBigInt;
  writer.writeInt32(static_cast<int32_t>(oids ? engine::pg_oid::kOid : elementType.postgresOid()));
  if (!elements.empty()) {
    writer.writeInt32(static_cast<int32_t>(elements.size()));
    writer.writeInt32(static_cast<int32_t>(column.type().lowerBound()));
  }
  for (size_t i = 0; i < elements.size(); ++i) {
    if (oids) {
      writer.writeInt32(4);
      writer.writeInt32(static_cast<int32_t>(elements[i].asInt64()));
      continue;
    }
    writeField(values, i, WireFormat::kBinary, writer);
  }
  writer.patchInt32(lengthPosition, static_cast<int32_t>(writer.size() - start));
}

Value readArrayBinary(std::span<const uint8_t> bytes, const LogicalType& type) {
  MessageReader reader(bytes);
  int32_t dimensions = reader.readInt32();
  reader.readInt32();  // the has-NULLs flag: each element says so itself
  reader.readInt32();  // the element type: each element is read as the parameter's element type
  if (dimensions < 0 || dimensions > 1) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "multidimensional arrays are not supported");
  }
  std::vector<Value> elements;
  if (dimensions == 1) {
    int32_t count = reader.readInt32();
    reader.readInt32();  // the lower bound
    if (count < 0 || static_cast<size_t>(count) > bytes.size()) {
      SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "invalid array length {}", count);
    }
    for (int32_t i = 0; i < count; ++i) {
      int32_t length = reader.readInt32();
      if (length < 0) {
        elements.push_back(Value::null(type.elementType()));
        continue;
      }
      elements.push_back(
          decodeParameter(reader.readBytes(static_cast<size_t>(length)), WireFormat::kBinary, type.elementType()));
    }
  }
  return engine::makeArrayValue(elements, type);
}

}  // namespace

void writeField(const engine::Vector& column, size_t row, WireFormat format, MessageWriter& writer,
                const engine::TimeZone* zone) {
  if (column.isNull(row)) {
    writer.writeInt32(-1);
    return;
  }
  const LogicalType& type = column.type();
  if (format == WireFormat::kText || type.isString() || type.id() == TypeId::kUnknown) {
    size_t lengthPosition = writer.reserveInt32();
    size_t start = writer.size();
    // jsonb's binary form is a version byte (1) before the text.
    if (format == WireFormat::kBinary && type.isJsonb() && !type.isArray()) writer.writeByte(1);
    std::string text;
    column.appendText(row, text, zone);
    writer.writeBytes(text.data(), text.size());
    writer.patchInt32(lengthPosition, static_cast<int32_t>(writer.size() - start));
    return;
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      writer.writeInt32(1);
      writer.writeByte(column.data<uint8_t>()[row]);
      break;
    case TypeId::kSmallInt:
      writer.writeInt32(2);
      writer.writeInt16(static_cast<int16_t>(column.data<int32_t>()[row]));
      break;
    case TypeId::kInteger:
      writer.writeInt32(4);
      writer.writeInt32(column.data<int32_t>()[row]);
      break;
    case TypeId::kDate:
      writer.writeInt32(4);
      writer.writeInt32(toPostgresDays(column.data<int32_t>()[row]));
      break;
    case TypeId::kBigInt:
    case TypeId::kTime:  // time_send: microseconds since midnight
      writer.writeInt32(8);
      writer.writeInt64(column.data<int64_t>()[row]);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      writer.writeInt32(8);
      writer.writeInt64(toPostgresEpoch(column.data<int64_t>()[row]));
      break;
    case TypeId::kDouble:
      if (type.isReal()) {  // float4send
        writer.writeInt32(4);
        writer.writeInt32(std::bit_cast<int32_t>(static_cast<float>(column.data<double>()[row])));
        break;
      }
      writer.writeInt32(8);
      writer.writeInt64(std::bit_cast<int64_t>(column.data<double>()[row]));
      break;
    case TypeId::kDecimal: {
      engine::int128_t unscaled = type.physicalType() == engine::PhysicalType::kInt64
                                      ? column.data<int64_t>()[row]
                                      : column.data<engine::int128_t>()[row];
      writeNumericBinary(unscaled, type.scale(), writer);
      break;
    }
    case TypeId::kArray:
      writeArrayBinary(column, row, writer);
      break;
    case TypeId::kBytea: {
      const std::string_view bytes = column.data<engine::StringRef>()[row].view();
      writer.writeInt32(static_cast<int32_t>(bytes.size()));
      writer.writeBytes(bytes.data(), bytes.size());
      break;
    }
    case TypeId::kUuid: {
      uint8_t bytes[16];
      engine::uuidToBytes(column.data<engine::int128_t>()[row], bytes);
      writer.writeInt32(16);
      writer.writeBytes(bytes, sizeof(bytes));
      break;
    }
    case TypeId::kInterval: {
      // interval_send: the microseconds, then days, then months.
      const engine::Interval interval = engine::unpackInterval(column.data<engine::int128_t>()[row]);
      writer.writeInt32(16);
      writer.writeInt64(interval.micros);
      writer.writeInt32(interval.days);
      writer.writeInt32(interval.months);
      break;
    }
    default:
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "binary output of type {} is not supported", type.toString());
  }
}

Value decodeParameter(std::span<const uint8_t> bytes, WireFormat format, const LogicalType& type,
                      const engine::TimeZone* zone) {
  if (format == WireFormat::kText) {
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return engine::parseValue(text, type, zone);
  }
  MessageReader reader(bytes);
  switch (type.id()) {
    case TypeId::kBoolean:
      if (bytes.size() != 1) SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary boolean");
      return Value::boolean(bytes[0] != 0);
    case TypeId::kSmallInt: {
      int64_t value = readBinaryInteger(bytes);
      if (value < INT16_MIN || value > INT16_MAX) {
        SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "smallint out of range");
      }
      return Value::smallInt(static_cast<int16_t>(value));
    }
    case TypeId::kInteger: {
      int64_t value = readBinaryInteger(bytes);
      if (value < INT32_MIN || value > INT32_MAX) {
        SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "integer out of range");
      }
      return Value::integer(static_cast<int32_t>(value));
    }
    case TypeId::kBigInt:
      return Value::bigInt(readBinaryInteger(bytes));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (bytes.size() != 8) SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary timestamp");
      return Value::ofInt64(type, engine::roundToFractionalDigits(fromPostgresEpoch(readBinaryInteger(bytes)), type));
    case TypeId::kTime: {
      if (bytes.size() != 8) SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary time");
      const int64_t micros = readBinaryInteger(bytes);
      if (micros < 0 || micros > engine::kMicrosPerDay) {
        SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "time out of range");
      }
      return Value::ofInt64(type, engine::roundToFractionalDigits(micros, type));
    }
    case TypeId::kDouble:
      if (bytes.size() == 4) return Value::ofDouble(type, std::bit_cast<float>(reader.readInt32()));
      if (type.isReal())
        SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary data format for a real");
      if (bytes.size() == 8) return Value::doublePrecision(std::bit_cast<double>(readBinaryInteger(bytes)));
      SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary data format for a float");
    case TypeId::kDate:
      if (bytes.size() != 4) SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary date");
      return Value::date(fromPostgresDays(reader.readInt32()));
    case TypeId::kBytea:
      return Value::bytea(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    case TypeId::kUuid:
      if (bytes.size() != 16) SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary uuid");
      return Value::uuid(engine::uuidFromBytes(bytes.data()));
    case TypeId::kInterval: {
      if (bytes.size() != 16) SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "incorrect binary interval");
      engine::Interval interval;
      interval.micros = readBinaryInteger(bytes.first(8));
      MessageReader tail(bytes.subspan(8));
      interval.days = tail.readInt32();
      interval.months = tail.readInt32();
      return Value::interval(engine::packInterval(interval));
    }
    case TypeId::kDecimal:
      return engine::parseValue(numericBinaryToText(bytes), type);
    case TypeId::kVarchar:
      if (type.isJsonb()) {
        if (bytes.empty() || bytes[0] != 1) {
          SHOAL_USER_FAIL(SqlState::kInvalidBinaryRepresentation, "unsupported jsonb version number {}",
                          bytes.empty() ? 0 : int{bytes[0]});
        }
        bytes = bytes.subspan(1);
      }
      [[fallthrough]];
    case TypeId::kChar:
    case TypeId::kUnknown:
      return engine::parseValue(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), type);
    case TypeId::kArray:
      return readArrayBinary(bytes, type);
    case TypeId::kRecord:
      break;  // no parameter is ever a record
  }
  SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "binary input of type {} is not supported", type.toString());
}

}  // namespace shoal::coordinator
