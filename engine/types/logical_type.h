#pragma once

#include <cstdint>
#include <string>

namespace shoal::engine {

/// SQL-level types.
enum class TypeId : uint8_t {
  kUnknown,  // an untyped literal ('abc', NULL) or parameter, before the binder resolves it
  kBoolean,
  kInteger,
  kBigInt,
  kDecimal,
  kDouble,
  kDate,
  kVarchar,      // VARCHAR(n); TEXT is VARCHAR without a length
  kChar,         // CHAR(n): stored without trailing spaces, printed padded to n
  kArray,        // a one-dimensional array of one base type (see array_value.h)
  kSmallInt,     // appended: type ids are kept in catalogs and plans
  kTimestamp,    // microseconds since 1970-01-01 00:00, no time zone
  kTimestampTz,  // microseconds since 1970-01-01 00:00 UTC, shown in the session's TimeZone
  kInterval,     // months, days and microseconds (interval.h), packed into an int128
  kUuid,         // 16 bytes in an int128 whose signed order is theirs (uuid_value.h)
  kBytea,        // bytes, in a string (bytea_text.h)
  kTime,         // TIME WITHOUT TIME ZONE: microseconds since midnight, 0 to 24:00:00 inclusive
  kRecord,       // an anonymous composite (record_type.h): its fields' texts, in a string
};

/// How a type's values sit in memory. DECIMAL(p,s) is a scaled integer: int64
/// up to p = 18, int128 above. DATE is days since 1970-01-01 in an int32, the
/// timestamps microseconds since 1970-01-01 in an int64 (infinity is INT64_MAX), and
/// SMALLINT an int32 kept within its 16-bit range, an INTERVAL its three fields packed into an int128, a UUID its
/// bytes in an int128. An
/// array is a string of bytes: its elements encoded as array_value.h says.
enum class PhysicalType : uint8_t { kBool, kInt32, kInt64, kInt128, kDouble, kString };

/// A value type: an id plus the parameters of DECIMAL and VARCHAR. An array's
/// parameters are those of its element type, whose id it keeps as elementId.
class LogicalType {
 public:
  static constexpr uint8_t kMaxDecimalPrecision = 38;
  static constexpr uint8_t kMaxInt64DecimalPrecision = 18;
  static constexpr int kMaxFractionalDigits = 6;  // microseconds

  LogicalType() = default;
  static LogicalType unknown() { return LogicalType(TypeId::kUnknown); }
  static LogicalType boolean() { return LogicalType(TypeId::kBoolean); }
  static LogicalType smallInt() { return LogicalType(TypeId::kSmallInt); }
  static LogicalType integer() { return LogicalType(TypeId::kInteger); }
  static LogicalType bigInt() { return LogicalType(TypeId::kBigInt); }
  /// Fails with 22023 when precision or scale are out of range.
  static LogicalType decimal(int precision, int scale);
  static LogicalType doublePrecision() { return LogicalType(TypeId::kDouble); }
  /// REAL (float4): a double precision whose values are always floats, converted exactly (see isReal()).
  static LogicalType real();
  static LogicalType date() { return LogicalType(TypeId::kDate); }
  static LogicalType timestamp() { return LogicalType(TypeId::kTimestamp); }
  static LogicalType timestampTz() { return LogicalType(TypeId::kTimestampTz); }
  static LogicalType interval() { return LogicalType(TypeId::kInterval); }
  static LogicalType uuid() { return LogicalType(TypeId::kUuid); }
  static LogicalType bytea() { return LogicalType(TypeId::kBytea); }
  static LogicalType time() { return LogicalType(TypeId::kTime); }
  /// timestamp(p), timestamptz(p) or time(p) from timestamp(), timestampTz() or time(): values rounded to p
  /// (0..6) fractional digits of a second, as PostgreSQL's typmod rounds them.
  LogicalType withFractionalDigits(int digits) const;
  /// The same type without a typmod's fractional digits (timestamp(0) -> timestamp); others unchanged.
  LogicalType withoutFractionalDigits() const;
  /// maxLength 0 means unbounded: TEXT.
  static LogicalType varchar(uint32_t maxLength = 0);
  static LogicalType text() { return varchar(0); }
  /// PostgreSQL's json: text that holds one valid JSON value, kept as written.
  static LogicalType json();
  /// PostgreSQL's jsonb: json kept in the text PostgreSQL prints for it (jsonb_text.h).
  static LogicalType jsonb();
  /// An array of `element`, which must not itself be an array (0A000: arrays of arrays are not supported).
  static LogicalType array(const LogicalType& element);
  /// The catalog's vectors (pg_index.indkey, indclass): arrays of smallint and of OIDs (BIGINT in Shoal)
  /// whose subscripts start at 0 and whose text form is the values separated by spaces.
  static LogicalType int2Vector();
  static LogicalType oidVector();
  /// An array whose first subscript is 0: what a cast of a vector to an array gives (int2vector::int2[]),
  /// which keeps the vector's subscripts, as PostgreSQL's [0:n]={...} arrays do.
  static LogicalType zeroBasedArray(const LogicalType& element);
  /// Rebuilds a type from its parts (as serialized in plans and catalogs); fails with XX001 on nonsense.
  static LogicalType fromParts(uint32_t id, uint32_t precision, uint32_t scale, uint32_t maxLength,
                               uint32_t elementId = 0, bool vector = false, bool zeroBased = false, bool json = false,
                               bool jsonb = false, bool real = false);
  /// CHAR(n), n >= 1 (PostgreSQL's bpchar).
  static LogicalType character(uint32_t length);
  /// PostgreSQL's record: a composite of the fields record_type.h registered as `shape`.
  static LogicalType record(uint32_t shape);

  TypeId id() const { return id_; }
  uint8_t precision() const { return precision_; }
  /// The fractional digits of a timestamp, timestamptz or time: 0..6, 6 when none were given.
  int fractionalDigits() const { return precision_ == 0 ? kMaxFractionalDigits : precision_ - 1; }
  /// Whether values must be rounded to fewer than 6 fractional digits.
  bool roundsFractions() const {
    return (id_ == TypeId::kTimestamp || id_ == TypeId::kTimestampTz || id_ == TypeId::kTime) && precision_ != 0 &&
           precision_ - 1 < kMaxFractionalDigits;
  }
  uint8_t scale() const { return scale_; }
  uint32_t maxLength() const { return maxLength_; }
  /// The element type's id of an array (kUnknown for any other type).
  TypeId elementId() const { return elementId_; }
  /// The type of an array's elements.
  LogicalType elementType() const;
  /// Inline: kernels ask it per vector, hash tables per row.
  PhysicalType physicalType() const;

  bool isIntegral() const { return id_ == TypeId::kSmallInt || id_ == TypeId::kInteger || id_ == TypeId::kBigInt; }
  bool isNumeric() const { return isIntegral() || id_ == TypeId::kDecimal || id_ == TypeId::kDouble; }
  bool isString() const { return id_ == TypeId::kVarchar || id_ == TypeId::kChar; }
  bool isArray() const { return id_ == TypeId::kArray; }
  bool isRecord() const { return id_ == TypeId::kRecord; }
  /// A record's shape number (record_type.h).
  uint32_t recordShape() const { return id_ == TypeId::kRecord ? maxLength_ : 0; }
  /// date, timestamp or timestamptz: the types date_trunc, EXTRACT and interval arithmetic take.
  bool isDateTime() const { return id_ == TypeId::kDate || id_ == TypeId::kTimestamp || id_ == TypeId::kTimestampTz; }
  /// int2vector or oidvector: an array whose first subscript is 0.
  bool isVector() const { return vector_; }
  /// json (a string type that only valid JSON enters), or an array of it.
  bool isJson() const { return json_; }
  /// jsonb (isJson() holds for it too), or an array of it.
  bool isJsonb() const { return jsonb_; }
  /// real (float4), or an array of it: kDouble whose every value is a float widened to double, so that the
  /// double kernels compute on it unchanged; arithmetic between reals rounds back to float (22003 on
  /// overflow), and its text is the shortest that reads back to the same float.
  bool isReal() const { return real_; }
  /// An array from a vector (zeroBasedArray).
  bool isZeroBased() const { return zeroBased_; }
  /// An array's first subscript: 1, or 0 for the vectors and the arrays cast from them.
  int64_t lowerBound() const { return vector_ || zeroBased_ ? 0 : 1; }

  /// PostgreSQL's spelling, as error messages and EXPLAIN show it: "integer", "numeric(15,2)", "text".
  std::string toString() const;

  /// The pg_type OID that RowDescription and ParameterDescription carry.
  uint32_t postgresOid() const;
  /// pg_attribute.atttypmod: -1, or the encoded DECIMAL/VARCHAR parameters.
  int32_t postgresTypmod() const;
  /// pg_type.typlen: the fixed width in bytes, or -1 for variable length.
  int16_t postgresTypeLength() const;

  bool operator==(const LogicalType&) const = default;

 private:
  explicit LogicalType(TypeId id) : id_(id) {}

  TypeId id_ = TypeId::kUnknown;
  TypeId elementId_ = TypeId::kUnknown;
  bool vector_ = false;
  bool zeroBased_ = false;
  bool json_ = false;
  bool jsonb_ = false;
  bool real_ = false;
  uint8_t precision_ = 0;
  uint8_t scale_ = 0;
  uint32_t maxLength_ = 0;
};

/// PostgreSQL type OIDs that Shoal speaks on the wire.
namespace pg_oid {
inline constexpr uint32_t kBool = 16;
inline constexpr uint32_t kInt8 = 20;
inline constexpr uint32_t kInt2 = 21;
inline constexpr uint32_t kInt4 = 23;
inline constexpr uint32_t kText = 25;
inline constexpr uint32_t kJson = 114;
inline constexpr uint32_t kJsonArray = 199;
inline constexpr uint32_t kJsonb = 3802;
inline constexpr uint32_t kJsonbArray = 3807;
inline constexpr uint32_t kFloat4 = 700;
inline constexpr uint32_t kFloat8 = 701;
inline constexpr uint32_t kUnknown = 705;
inline constexpr uint32_t kBpchar = 1042;
inline constexpr uint32_t kVarchar = 1043;
inline constexpr uint32_t kDate = 1082;
inline constexpr uint32_t kTimestamp = 1114;
inline constexpr uint32_t kTimestampTz = 1184;
inline constexpr uint32_t kTime = 1083;
inline constexpr uint32_t kTimeArray = 1183;
inline constexpr uint32_t kInterval = 1186;
inline constexpr uint32_t kUuid = 2950;
inline constexpr uint32_t kRecord = 2249;
inline constexpr uint32_t kBytea = 17;
inline constexpr uint32_t kNumeric = 1700;
inline constexpr uint32_t kOid = 26;
inline constexpr uint32_t kInt2Vector = 22;
inline constexpr uint32_t kOidVector = 30;
inline constexpr uint32_t kBoolArray = 1000;
inline constexpr uint32_t kInt2Array = 1005;
inline constexpr uint32_t kInt4Array = 1007;
inline constexpr uint32_t kTextArray = 1009;
inline constexpr uint32_t kBpcharArray = 1014;
inline constexpr uint32_t kVarcharArray = 1015;
inline constexpr uint32_t kInt8Array = 1016;
inline constexpr uint32_t kFloat4Array = 1021;
inline constexpr uint32_t kFloat8Array = 1022;
inline constexpr uint32_t kOidArray = 1028;
inline constexpr uint32_t kDateArray = 1182;
inline constexpr uint32_t kTimestampArray = 1115;
inline constexpr uint32_t kTimestampTzArray = 1185;
inline constexpr uint32_t kNumericArray = 1231;
inline constexpr uint32_t kByteaArray = 1001;
inline constexpr uint32_t kUuidArray = 2951;
inline constexpr uint32_t kIntervalArray = 1187;
}  // namespace pg_oid

/// The pg_type OID of the array type whose elements have OID `elementOid` (0 for none).
uint32_t postgresArrayOid(uint32_t elementOid);

/// Maps a parameter or cast target OID from a client to a Shoal type;
/// unknown OIDs (and 0, "let the server decide") give kUnknown.
LogicalType logicalTypeFromPostgresOid(uint32_t oid);

inline PhysicalType LogicalType::physicalType() const {
  switch (id_) {
    case TypeId::kBoolean:
      return PhysicalType::kBool;
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kDate:
      return PhysicalType::kInt32;
    case TypeId::kBigInt:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTime:
      return PhysicalType::kInt64;
    case TypeId::kInterval:
    case TypeId::kUuid:
      return PhysicalType::kInt128;
    case TypeId::kDecimal:
      return precision_ <= kMaxInt64DecimalPrecision ? PhysicalType::kInt64 : PhysicalType::kInt128;
    case TypeId::kDouble:
      return PhysicalType::kDouble;
    case TypeId::kUnknown:  // an unresolved literal is still its text
    case TypeId::kVarchar:
    case TypeId::kChar:
    case TypeId::kArray:
    case TypeId::kBytea:
    case TypeId::kRecord:
      return PhysicalType::kString;
  }
  return PhysicalType::kString;
}

}  // namespace shoal::engine
