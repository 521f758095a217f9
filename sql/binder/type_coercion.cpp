#include "sql/binder/type_coercion.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/check.h"
#include "common/status.h"

namespace shoal::sql {

using engine::LogicalType;
using engine::TypeId;

LogicalType asDecimal(const LogicalType& type) {
  switch (type.id()) {
    case TypeId::kSmallInt:
      return LogicalType::decimal(5, 0);
    case TypeId::kInteger:
      return LogicalType::decimal(10, 0);
    case TypeId::kBigInt:
      return LogicalType::decimal(19, 0);
    default:
      SHOAL_CHECK(type.id() == TypeId::kDecimal, "{} as decimal", type.toString());
      return type;
  }
}

LogicalType commonNumericType(const LogicalType& left, const LogicalType& right) {
  auto rank = [](const LogicalType& type) {
    switch (type.id()) {
      case TypeId::kSmallInt:
        return -1;
      case TypeId::kInteger:
        return 0;
      case TypeId::kBigInt:
        return 1;
      case TypeId::kDecimal:
        return 2;
      default:
        return 3;
    }
  };
  int common = std::max(rank(left), rank(right));
  if (common == 3) {
    // real meets double precision as double precision; integers and numerics become real (select_common_type).
    const bool anyDouble =
        (left.id() == TypeId::kDouble && !left.isReal()) || (right.id() == TypeId::kDouble && !right.isReal());
    return anyDouble ? LogicalType::doublePrecision() : LogicalType::real();
  }
  if (common < 2) {
    return common == 1 ? LogicalType::bigInt() : common == 0 ? LogicalType::integer() : LogicalType::smallInt();
  }
  LogicalType a = asDecimal(left);
  LogicalType b = asDecimal(right);
  int scale = std::max(a.scale(), b.scale());
  int integerDigits = std::max(a.precision() - a.scale(), b.precision() - b.scale());
  int precision = std::min<int>(integerDigits + scale, LogicalType::kMaxDecimalPrecision);
  return LogicalType::decimal(std::max(precision, scale), scale);
}

LogicalType decimalResultType(char op, const LogicalType& left, const LogicalType& right) {
  constexpr int kMax = LogicalType::kMaxDecimalPrecision;
  // Minimum fraction digits of a quotient, like PostgreSQL's NUMERIC_MIN_SIG_DIGITS.
  constexpr int kMinDivisionScale = 16;
  int leftDigits = left.precision() - left.scale();
  int rightDigits = right.precision() - right.scale();
  switch (op) {
    case '+':
    case '-': {
      int scale = std::max(left.scale(), right.scale());
      int precision = std::min(std::max(leftDigits, rightDigits) + scale + 1, kMax);
      return LogicalType::decimal(precision, scale);
    }
    case '*': {
      int scale = std::min(left.scale() + right.scale(), kMax);
      int precision = std::min(left.precision() + right.precision(), kMax);
      return LogicalType::decimal(std::max(precision, scale), scale);
    }
    case '/': {
      int scale = std::max({static_cast<int>(left.scale()), static_cast<int>(right.scale()), kMinDivisionScale});
      int precision = std::min(leftDigits + right.scale() + scale, kMax);
      scale = std::min(scale, precision);
      return LogicalType::decimal(std::max(precision, 1), scale);
    }
    case '%': {
      int scale = std::max(left.scale(), right.scale());
      int precision = std::min(std::max(leftDigits, rightDigits) + scale, kMax);
      return LogicalType::decimal(std::max(precision, 1), scale);
    }
    default:
      SHOAL_UNREACHABLE("decimal operator {}", op);
  }
}

std::optional<std::pair<std::string_view, std::string>> uncomparableReason(const engine::LogicalType& type,
                                                                           bool ordering) {
  if (type.isArray() && type.elementId() == engine::TypeId::kInterval) {
    // Arrays compare by their bytes, and equal intervals ('1 day', '24 hours') differ in bytes.
    return std::pair<std::string_view, std::string>{
        SqlState::kFeatureNotSupported,
        fmt::format("{} interval[] values is not supported yet", ordering ? "ordering" : "comparing or grouping")};
  }
  if (type.isRecord()) {
    // Records hold their fields' texts, which do not order or compare as the fields do.
    return std::pair<std::string_view, std::string>{
        SqlState::kFeatureNotSupported,
        fmt::format("{} record values is not supported yet", ordering ? "ordering" : "comparing or grouping")};
  }
  if (!type.isJson()) return std::nullopt;
  if (type.isJsonb()) {
    return std::pair<std::string_view, std::string>{
        SqlState::kFeatureNotSupported,
        fmt::format("{} by jsonb values is not supported yet", ordering ? "ordering" : "grouping")};
  }
  return std::pair<std::string_view, std::string>{SqlState::kUndefinedFunction,
                                                  fmt::format("could not identify an {} operator for type {}",
                                                              ordering ? "ordering" : "equality", type.toString())};
}

std::optional<LogicalType> comparisonType(const LogicalType& leftTyped, const LogicalType& rightTyped) {
  // A typmod's fractional digits round what is stored, not what is compared.
  const LogicalType left = leftTyped.withoutFractionalDigits();
  const LogicalType right = rightTyped.withoutFractionalDigits();
  if (left.isJson() || right.isJson()) return std::nullopt;  // PostgreSQL's json has no comparison operators
  if (left.isNumeric() && right.isNumeric()) {
    // real compares with real as real; with any other number as double precision (float48eq and friends).
    const LogicalType common = commonNumericType(left, right);
    return common.isReal() && !(left.isReal() && right.isReal()) ? LogicalType::doublePrecision() : common;
  }
  if (left.isString() && right.isString()) {
    return LogicalType::text();
  }
  if (left.id() == right.id() &&
      (left.id() == TypeId::kBoolean || left.id() == TypeId::kInterval || left.id() == TypeId::kUuid ||
       left.id() == TypeId::kBytea || left.id() == TypeId::kTime || left.isDateTime())) {
    return left;
  }
  // time converts to interval implicitly (time '10:00' < interval '11 hours').
  if ((left.id() == TypeId::kTime && right.id() == TypeId::kInterval) ||
      (left.id() == TypeId::kInterval && right.id() == TypeId::kTime)) {
    return LogicalType::interval();
  }
  if (left.isDateTime() && right.isDateTime()) {
    // date < timestamp < timestamptz: PostgreSQL compares in the wider of the two.
    auto rank = [](const LogicalType& type) {
      return type.id() == TypeId::kDate ? 0 : type.id() == TypeId::kTimestamp ? 1 : 2;
    };
    return rank(left) > rank(right) ? left : right;
  }
  if (left.isVector() || right.isVector() || left.isZeroBased() || right.isZeroBased()) {
    if (left == right) return left;
    return std::nullopt;
  }
  if (left.isArray() && right.isArray()) {
    auto element = comparisonType(left.elementType(), right.elementType());
    if (element) return LogicalType::array(*element);
  }
  return std::nullopt;
}

bool assignmentCastExists(const LogicalType& from, const LogicalType& to) {
  // timestamps and intervals are assigned to TIME (their time of day), and TIME to INTERVAL.
  const bool toTime = to.id() == TypeId::kTime && (from.id() == TypeId::kTimestamp ||
                                                   from.id() == TypeId::kTimestampTz || from.id() == TypeId::kInterval);
  return from == to || from.id() == TypeId::kUnknown || to.isString() || (from.isNumeric() && to.isNumeric()) ||
         (from.isDateTime() && to.isDateTime()) || toTime ||
         (from.id() == TypeId::kTime && to.id() == TypeId::kInterval);
}

}  // namespace shoal::sql
