#include "engine/types/logical_type.h"

#include <fmt/format.h>

#include "common/check.h"
#include "common/status.h"

namespace shoal::engine {

LogicalType LogicalType::decimal(int precision, int scale) {
  if (precision < 1 || precision > kMaxDecimalPrecision) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "NUMERIC precision {} must be between 1 and {}", precision,
                    kMaxDecimalPrecision);
  }
  if (scale < 0 || scale > precision) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "NUMERIC scale {} must be between 0 and precision {}", scale,
                    precision);
  }
  LogicalType type(TypeId::kDecimal);
  type.precision_ = static_cast<uint8_t>(precision);
  type.scale_ = static_cast<uint8_t>(scale);
  return type;
}

LogicalType LogicalType::varchar(uint32_t maxLength) {
  LogicalType type(TypeId::kVarchar);
  type.maxLength_ = maxLength;
  return type;
}

LogicalType LogicalType::array(const LogicalType& element) {
  if (element.isArray()) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "arrays of arrays are not supported: {}[]", element.toString());
  }
  LogicalType type = element.id() == TypeId::kUnknown ? text() : element;
  type.elementId_ = type.id_;
  type.id_ = TypeId::kArray;
  return type;
}

LogicalType LogicalType::record(uint32_t shape) {
  LogicalType type(TypeId::kRecord);
  type.maxLength_ = shape;
  return type;
}

LogicalType LogicalType::int2Vector() {
  LogicalType type = array(smallInt());
  type.vector_ = true;
  return type;
}

LogicalType LogicalType::oidVector() {
  LogicalType type = array(bigInt());
  type.vector_ = true;
  return type;
}

LogicalType LogicalType::real() {
  LogicalType type(TypeId::kDouble);
  type.real_ = true;
  return type;
}

LogicalType LogicalType::json() {
  LogicalType type = text();
  type.json_ = true;
  return type;
}

LogicalType LogicalType::jsonb() {
  LogicalType type = json();
  type.jsonb_ = true;
  return type;
}

LogicalType LogicalType::zeroBasedArray(const LogicalType& element) {
  LogicalType type = array(element);
  type.zeroBased_ = true;
  return type;
}

LogicalType LogicalType::elementType() const {
  if (id_ != TypeId::kArray) return unknown();
  LogicalType element = *this;
  element.id_ = elementId_;
  element.elementId_ = TypeId::kUnknown;
  element.vector_ = false;
  element.zeroBased_ = false;
  return element;
}

LogicalType LogicalType::fromParts(uint32_t id, uint32_t precision, uint32_t scale, uint32_t maxLength,
                                   uint32_t elementId, bool vector, bool zeroBased, bool json, bool jsonb, bool real) {
  if (real) {
    if (id == static_cast<uint32_t>(TypeId::kDouble)) return LogicalType::real();
    if (id == static_cast<uint32_t>(TypeId::kArray) && elementId == static_cast<uint32_t>(TypeId::kDouble)) {
      return array(LogicalType::real());
    }
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "bad real type id {}", id);
  }
  if (json) {
    const LogicalType base = jsonb ? LogicalType::jsonb() : LogicalType::json();
    if (id == static_cast<uint32_t>(TypeId::kVarchar)) return base;
    if (id == static_cast<uint32_t>(TypeId::kArray) && elementId == static_cast<uint32_t>(TypeId::kVarchar)) {
      return array(base);
    }
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "bad json type id {}", id);
  }
  if (id > static_cast<uint32_t>(TypeId::kRecord)) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "unknown type id {}", id);
  }
  switch (static_cast<TypeId>(id)) {
    case TypeId::kArray:
      if (elementId == static_cast<uint32_t>(TypeId::kArray) || elementId == 0) {
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "bad array element type id {}", elementId);
      }
      if (vector) {
        if (elementId == static_cast<uint32_t>(TypeId::kSmallInt)) return int2Vector();
        if (elementId == static_cast<uint32_t>(TypeId::kBigInt)) return oidVector();
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "bad vector element type id {}", elementId);
      }
      if (zeroBased) return zeroBasedArray(fromParts(elementId, precision, scale, maxLength));
      return array(fromParts(elementId, precision, scale, maxLength));
    case TypeId::kDecimal:
      if (precision < 1 || precision > kMaxDecimalPrecision || scale > precision) {
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "bad numeric type ({},{})", precision, scale);
      }
      return decimal(static_cast<int>(precision), static_cast<int>(scale));
    case TypeId::kVarchar:
      return varchar(maxLength);
    case TypeId::kChar:
      if (maxLength == 0) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "character type without a length");
      return character(maxLength);
    case TypeId::kRecord:
      return record(maxLength);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTime: {
      const LogicalType base(static_cast<TypeId>(id));
      if (precision == 0) return base;
      if (precision > kMaxFractionalDigits + 1)
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "bad precision {}", precision);
      return base.withFractionalDigits(static_cast<int>(precision) - 1);
    }
    default:
      return LogicalType(static_cast<TypeId>(id));
  }
}

LogicalType LogicalType::withFractionalDigits(int digits) const {
  SHOAL_CHECK(id_ == TypeId::kTimestamp || id_ == TypeId::kTimestampTz || id_ == TypeId::kTime,
              "fractional digits of {}", toString());
  if (digits < 0 || digits > kMaxFractionalDigits) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "{} precision {} must be between 0 and {}", toString(), digits,
                    kMaxFractionalDigits);
  }
  LogicalType type = *this;
  type.precision_ = static_cast<uint8_t>(digits + 1);  // 0 stays "none given"
  return type;
}

LogicalType LogicalType::withoutFractionalDigits() const {
  if (id_ != TypeId::kTimestamp && id_ != TypeId::kTimestampTz && id_ != TypeId::kTime) return *this;
  return LogicalType(id_);
}

LogicalType LogicalType::character(uint32_t length) {
  LogicalType type(TypeId::kChar);
  type.maxLength_ = length;
  return type;
}

std::string LogicalType::toString() const {
  switch (id_) {
    case TypeId::kUnknown:
      return "unknown";
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kSmallInt:
      return "smallint";
    case TypeId::kInteger:
      return "integer";
    case TypeId::kBigInt:
      return "bigint";
    case TypeId::kDecimal:
      return fmt::format("numeric({},{})", precision_, scale_);
    case TypeId::kDouble:
      return real_ ? "real" : "double precision";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return precision_ == 0 ? "timestamp without time zone"
                             : fmt::format("timestamp({}) without time zone", fractionalDigits());
    case TypeId::kTimestampTz:
      return precision_ == 0 ? "timestamp with time zone"
                             : fmt::format("timestamp({}) with time zone", fractionalDigits());
    case TypeId::kInterval:
      return "interval";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kBytea:
      return "bytea";
    case TypeId::kTime:
      return precision_ == 0 ? "time without time zone" : fmt::format("time({}) without time zone", fractionalDigits());
    case TypeId::kVarchar:
      if (json_) return jsonb_ ? "jsonb" : "json";
      return maxLength_ == 0 ? "text" : fmt::format("character varying({})", maxLength_);
    case TypeId::kChar:
      return fmt::format("character({})", maxLength_);
    case TypeId::kRecord:
      return "record";
    case TypeId::kArray:
      if (vector_) return elementId_ == TypeId::kSmallInt ? "int2vector" : "oidvector";
      return elementType().toString() + "[]";
  }
  return "unknown";
}

uint32_t LogicalType::postgresOid() const {
  switch (id_) {
    case TypeId::kUnknown:
      return pg_oid::kText;  // PostgreSQL resolves an unknown output column to text
    case TypeId::kBoolean:
      return pg_oid::kBool;
    case TypeId::kSmallInt:
      return pg_oid::kInt2;
    case TypeId::kInteger:
      return pg_oid::kInt4;
    case TypeId::kBigInt:
      return pg_oid::kInt8;
    case TypeId::kDecimal:
      return pg_oid::kNumeric;
    case TypeId::kDouble:
      return real_ ? pg_oid::kFloat4 : pg_oid::kFloat8;
    case TypeId::kDate:
      return pg_oid::kDate;
    case TypeId::kTimestamp:
      return pg_oid::kTimestamp;
    case TypeId::kTimestampTz:
      return pg_oid::kTimestampTz;
    case TypeId::kInterval:
      return pg_oid::kInterval;
    case TypeId::kUuid:
      return pg_oid::kUuid;
    case TypeId::kBytea:
      return pg_oid::kBytea;
    case TypeId::kTime:
      return pg_oid::kTime;
    case TypeId::kVarchar:
      if (json_) return jsonb_ ? pg_oid::kJsonb : pg_oid::kJson;
      return maxLength_ == 0 ? pg_oid::kText : pg_oid::kVarchar;
    case TypeId::kChar:
      return pg_oid::kBpchar;
    case TypeId::kRecord:
      return pg_oid::kRecord;
    case TypeId::kArray:
      if (vector_) return elementId_ == TypeId::kSmallInt ? pg_oid::kInt2Vector : pg_oid::kOidVector;
      return postgresArrayOid(elementType().postgresOid());
  }
  return pg_oid::kText;
}

uint32_t postgresArrayOid(uint32_t elementOid) {
  switch (elementOid) {
    case pg_oid::kBool:
      return pg_oid::kBoolArray;
    case pg_oid::kInt2:
      return pg_oid::kInt2Array;
    case pg_oid::kInt4:
      return pg_oid::kInt4Array;
    case pg_oid::kInt8:
      return pg_oid::kInt8Array;
    case pg_oid::kText:
      return pg_oid::kTextArray;
    case pg_oid::kJson:
      return pg_oid::kJsonArray;
    case pg_oid::kJsonb:
      return pg_oid::kJsonbArray;
    case pg_oid::kBpchar:
      return pg_oid::kBpcharArray;
    case pg_oid::kVarchar:
      return pg_oid::kVarcharArray;
    case pg_oid::kFloat4:
      return pg_oid::kFloat4Array;
    case pg_oid::kFloat8:
      return pg_oid::kFloat8Array;
    case pg_oid::kOid:
      return pg_oid::kOidArray;
    case pg_oid::kDate:
      return pg_oid::kDateArray;
    case pg_oid::kTimestamp:
      return pg_oid::kTimestampArray;
    case pg_oid::kTimestampTz:
      return pg_oid::kTimestampTzArray;
    case pg_oid::kTime:
      return pg_oid::kTimeArray;
    case pg_oid::kNumeric:
      return pg_oid::kNumericArray;
    case pg_oid::kBytea:
      return pg_oid::kByteaArray;
    case pg_oid::kUuid:
      return pg_oid::kUuidArray;
    case pg_oid::kInterval:
      return pg_oid::kIntervalArray;
    default:
      return 0;
  }
}

int32_t LogicalType::postgresTypmod() const {
  // An array carries its element's modifier (numeric(6,2)[]).
  if (id_ == TypeId::kArray && !vector_) return elementType().postgresTypmod();
  // PostgreSQL's encodings: numeric is ((precision << 16) | scale) + 4, varchar is length + 4.
  constexpr int32_t kVarHeaderSize = 4;
  if (id_ == TypeId::kDecimal) {
    return ((static_cast<int32_t>(precision_) << 16) | scale_) + kVarHeaderSize;
  }
  if (isString() && maxLength_ > 0) {
    return static_cast<int32_t>(maxLength_) + kVarHeaderSize;
  }
  // timestamp(p), timestamptz(p) and time(p): p itself.
  if ((id_ == TypeId::kTimestamp || id_ == TypeId::kTimestampTz || id_ == TypeId::kTime) && precision_ != 0) {
    return fractionalDigits();
  }
  return -1;
}

int16_t LogicalType::postgresTypeLength() const {
  switch (id_) {
    case TypeId::kBoolean:
      return 1;
    case TypeId::kSmallInt:
      return 2;
    case TypeId::kInteger:
    case TypeId::kDate:
      return 4;
    case TypeId::kDouble:
      return real_ ? 4 : 8;
    case TypeId::kBigInt:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTime:
      return 8;
    case TypeId::kInterval:
    case TypeId::kUuid:
      return 16;
    default:
      return -1;
  }
}

LogicalType logicalTypeFromPostgresOid(uint32_t oid) {
  switch (oid) {
    case pg_oid::kBool:
      return LogicalType::boolean();
    case pg_oid::kInt2:
      return LogicalType::smallInt();
    case pg_oid::kInt4:
      return LogicalType::integer();
    case pg_oid::kInt8:
      return LogicalType::bigInt();
    case pg_oid::kFloat4:
      return LogicalType::real();
    case pg_oid::kFloat8:
      return LogicalType::doublePrecision();
    case pg_oid::kNumeric:
      // An unconstrained numeric parameter: widest precision, with room for fractions.
      return LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 10);
    case pg_oid::kText:
    case pg_oid::kVarchar:
    case pg_oid::kBpchar:
      return LogicalType::text();
    case pg_oid::kDate:
      return LogicalType::date();
    case pg_oid::kTimestamp:
      return LogicalType::timestamp();
    case pg_oid::kTimestampTz:
      return LogicalType::timestampTz();
    case pg_oid::kTime:
      return LogicalType::time();
    case pg_oid::kInterval:
      return LogicalType::interval();
    case pg_oid::kUuid:
      return LogicalType::uuid();
    case pg_oid::kBytea:
      return LogicalType::bytea();
    case pg_oid::kJson:
      return LogicalType::json();
    case pg_oid::kJsonb:
      return LogicalType::jsonb();
    case pg_oid::kOid:
      return LogicalType::bigInt();  // Shoal keeps OIDs as BIGINT
    default:
      for (uint32_t element : {pg_oid::kBool, pg_oid::kInt2, pg_oid::kInt4, pg_oid::kInt8, pg_oid::kText,
                               pg_oid::kBpchar, pg_oid::kVarchar, pg_oid::kFloat4, pg_oid::kFloat8, pg_oid::kOid,
                               pg_oid::kDate, pg_oid::kNumeric, pg_oid::kTimestamp, pg_oid::kTimestampTz, pg_oid::kTime,
                               pg_oid::kBytea, pg_oid::kUuid, pg_oid::kInterval}) {
        if (oid == postgresArrayOid(element)) return LogicalType::array(logicalTypeFromPostgresOid(element));
      }
      return LogicalType::unknown();
  }
}

}  // namespace shoal::engine
