#pragma once

#include <string>
#include <variant>

#include "engine/types/logical_type.h"

namespace shoal::engine {

using int128_t = __int128;

/// One scalar of a LogicalType, or NULL. Used for constants and parameters;
/// bulk data lives in Vectors.
class Value {
 public:
  using Storage = std::variant<std::monostate, bool, int32_t, int64_t, int128_t, double, std::string>;

  Value() = default;
  static Value null(LogicalType type) { return Value(type, std::monostate{}); }
  static Value boolean(bool value) { return Value(LogicalType::boolean(), value); }
  static Value smallInt(int16_t value) { return Value(LogicalType::smallInt(), int32_t{value}); }
  static Value integer(int32_t value) { return Value(LogicalType::integer(), value); }
  /// A value of a type stored as an int32 (SMALLINT, INTEGER, DATE).
  static Value ofInt32(LogicalType type, int32_t value) { return Value(type, value); }
  static Value bigInt(int64_t value) { return Value(LogicalType::bigInt(), value); }
  /// A value of a type stored as an int64 other than DECIMAL (BIGINT, TIMESTAMP, TIMESTAMPTZ).
  static Value ofInt64(LogicalType type, int64_t value) { return Value(type, value); }
  static Value doublePrecision(double value) { return Value(LogicalType::doublePrecision(), value); }
  /// A double precision or real value (`type` says which; a real's value is a float's).
  static Value ofDouble(const LogicalType& type, double value) { return Value(type, value); }
  static Value date(int32_t daysSinceEpoch) { return Value(LogicalType::date(), daysSinceEpoch); }
  static Value timestamp(int64_t micros) { return Value(LogicalType::timestamp(), micros); }
  static Value timestampTz(int64_t utcMicros) { return Value(LogicalType::timestampTz(), utcMicros); }
  static Value time(int64_t micros) { return Value(LogicalType::time(), micros); }
  /// An interval packed as interval.h's packInterval does.
  static Value interval(int128_t packed) { return Value(LogicalType::interval(), packed); }
  /// A uuid as uuid_value.h keeps it.
  static Value uuid(int128_t value) { return Value(LogicalType::uuid(), value); }
  static Value bytea(std::string bytes) { return Value(LogicalType::bytea(), std::move(bytes)); }
  /// A decimal from its unscaled integer: decimal(LogicalType::decimal(5,2), 12345) is 123.45.
  static Value decimal(LogicalType type, int128_t unscaled);
  static Value varchar(std::string text, LogicalType type = LogicalType::text()) {
    return Value(type, std::move(text));
  }
  /// An array from its encoding (see array_value.h, whose makeArrayValue builds one from elements).
  static Value array(LogicalType type, std::string encoded) { return Value(type, std::move(encoded)); }
  /// An untyped literal: its text, waiting for the binder to give it a type.
  static Value unknownLiteral(std::string text) { return Value(LogicalType::unknown(), std::move(text)); }

  const LogicalType& type() const { return type_; }
  bool isNull() const { return std::holds_alternative<std::monostate>(storage_); }

  bool asBool() const { return std::get<bool>(storage_); }
  int32_t asInt32() const { return std::get<int32_t>(storage_); }
  int64_t asInt64() const { return std::get<int64_t>(storage_); }
  /// The unscaled value of a decimal, whatever its physical width.
  int128_t asDecimal() const;
  double asDouble() const { return std::get<double>(storage_); }
  const std::string& asString() const { return std::get<std::string>(storage_); }
  const Storage& storage() const { return storage_; }

  /// PostgreSQL's text output of the value ("NULL" for null), for messages and tests.
  std::string toString() const;

 private:
  Value(LogicalType type, Storage storage) : type_(type), storage_(std::move(storage)) {}

  LogicalType type_;
  Storage storage_;
};

}  // namespace shoal::engine
