#include "engine/expression/cast.h"

#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "engine/expression/datetime_casts.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/array_value.h"
#include "engine/types/decimal.h"
#include "engine/types/json_parser.h"
#include "engine/types/json_text.h"
#include "engine/types/jsonb_text.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"

namespace shoal::engine {
namespace {

[[noreturn]] void failOutOfRange(const LogicalType& type) {
  if (type.id() == TypeId::kDecimal) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "numeric field overflow");
  }
  SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "{} out of range", type.toString());
}

template <class Int>
Int checkedIntegral(int128_t value, const LogicalType& target) {
  if (value < std::numeric_limits<Int>::min() || value > std::numeric_limits<Int>::max()) {
    failOutOfRange(target);
  }
  return static_cast<Int>(value);
}

/// Reads any integral or decimal row as an unscaled int128 at `scale` 0 (integers) or the type's scale.
template <class In>
void castNumericToNumeric(const Vector& input, Vector& out) {
  const LogicalType& from = input.type();
  const LogicalType& to = out.type();
  int fromScale = from.id() == TypeId::kDecimal ? from.scale() : 0;
  auto convert = [&](In raw) -> int128_t {
    bool overflow = false;
    int toScale = to.id() == TypeId::kDecimal ? to.scale() : 0;
    int128_t value = rescaleDecimal(static_cast<int128_t>(raw), fromScale, toScale, overflow);
    if (overflow) failOutOfRange(to);
    return value;
  };
  switch (to.id()) {
    case TypeId::kSmallInt:
      unaryLoop<In, int32_t>(input, out, [&](In raw) { return checkedIntegral<int16_t>(convert(raw), to); });
      break;
    case TypeId::kInteger:
      unaryLoop<In, int32_t>(input, out, [&](In raw) { return checkedIntegral<int32_t>(convert(raw), to); });
      break;
    case TypeId::kBigInt:
      unaryLoop<In, int64_t>(input, out, [&](In raw) { return checkedIntegral<int64_t>(convert(raw), to); });
      break;
    case TypeId::kDecimal: {
      const int128_t limit = powerOfTen(to.precision());
      if (from.id() == TypeId::kDecimal && to.scale() == fromScale && from.precision() <= to.precision()) {
        // Only the storage widens: every value fits, nothing to scale or check.
        withDecimalStorage(to, [&](auto tag) { unaryLoop<In, decltype(tag)>(input, out, [](In raw) { return raw; }); });
        break;
      }
      if (to.scale() >= fromScale && (sizeof(In) <= sizeof(int64_t) || to.scale() == fromScale)) {
        // Widening the scale of an integer or 64-bit decimal: 2^63 * 10^38 can overflow, so only
        // factors up to 10^18 take this path, where the product always fits in 128 bits.
        if (to.scale() - fromScale <= 18) {
          const int128_t factor = powerOfTen(to.scale() - fromScale);
          withDecimalStorage(to, [&](auto tag) {
            unaryLoop<In, decltype(tag)>(input, out, [&](In raw) {
              int128_t value = static_cast<int128_t>(raw) * factor;
              if (value >= limit || value <= -limit) failOutOfRange(to);
              return value;
            });
          });
          break;
        }
      }
      withDecimalStorage(to, [&](auto tag) {
        unaryLoop<In, decltype(tag)>(input, out, [&](In raw) {
          int128_t value = convert(raw);
          if (value >= limit || value <= -limit) failOutOfRange(to);
          return value;
        });
      });
      break;
    }
    case TypeId::kDouble: {
      if (to.isReal() && fromScale == 0) {
        // An integer rounds to the nearest float at once (through double it could round twice).
        unaryLoop<In, double>(input, out, [&](In raw) { return static_cast<double>(static_cast<float>(raw)); });
        break;
      }
      if (to.isReal()) {
        // numeric_float4 reads the numeric's text as float4in would.
        unaryLoop<In, double>(input, out, [&](In raw) {
          std::string text;
          appendDecimalText(static_cast<int128_t>(raw), fromScale, text);
          return static_cast<double>(parseReal(text));
        });
        break;
      }
      double divisor = std::pow(10.0, fromScale);
      unaryLoop<In, double>(input, out, [&](In raw) { return static_cast<double>(raw) / divisor; });
      break;
    }
    case TypeId::kBoolean:
      unaryLoop<In, uint8_t>(input, out, [](In raw) { return raw != 0; });
      break;
    default:
      SHOAL_UNREACHABLE("numeric cast to {}", to.toString());
  }
}

void castDoubleToNumeric(const Vector& input, Vector& out) {
  const LogicalType& to = out.type();
  auto checkFinite = [&](double value) {
    if (std::isnan(value) || std::isinf(value)) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "cannot convert {} to {}", value, to.toString());
    }
  };
  switch (to.id()) {
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt: {
      // Rounds half to even, as PostgreSQL's rint() does.
      double low = to.id() == TypeId::kSmallInt  ? -32768.0
                   : to.id() == TypeId::kInteger ? -2147483648.0
                                                 : -9223372036854775808.0;
      auto convert = [&](double value) -> int64_t {
        if (!std::isfinite(value)) failOutOfRange(to);  // float8_int4 and friends: NaN is out of range too
        double rounded = std::nearbyint(value);
        if (rounded < low || rounded >= -low) failOutOfRange(to);
        return static_cast<int64_t>(rounded);
      };
      if (to.id() != TypeId::kBigInt) {
        unaryLoop<double, int32_t>(input, out, convert);
      } else {
        unaryLoop<double, int64_t>(input, out, convert);
      }
      break;
    }
    case TypeId::kDecimal:
      withDecimalStorage(to, [&](auto tag) {
        unaryLoop<double, decltype(tag)>(input, out, [&](double value) {
          checkFinite(value);
          // Through decimal text, so that 0.1 becomes exactly 0.1: the shortest for double precision; a real's
          // six significant digits, as float4_numeric prints them (%.6g).
          std::string text;
          if (input.type().isReal()) {
            text = fmt::format("{:.6g}", value);
          } else {
            appendDoubleText(value, text);
          }
          return parseDecimal(text, to.precision(), to.scale());
        });
      });
      break;
    case TypeId::kDouble:
      // Between real and double precision: a real widens as it is; a double rounds to float (dtof).
      if (to.isReal()) {
        unaryLoop<double, double>(input, out, [](double value) { return static_cast<double>(realFromDouble(value)); });
      } else {
        unaryLoop<double, double>(input, out, [](double value) { return value; });
      }
      break;
    default:
      SHOAL_UNREACHABLE("double cast to {}", to.toString());
  }
}

void castToText(const Vector& input, Vector& out, const TimeZone* zone) {
  uint32_t maxLength = out.type().maxLength();
  std::string text;
  out.validity() = input.validity();
  const bool sharesHandles = input.type().isString();
  const bool toChar = out.type().id() == TypeId::kChar;
  if (sharesHandles) out.shareStringsOf(input);
  for (size_t row = 0; row < input.size(); ++row) {
    if (input.isNull(row)) continue;
    // A string that fits (bytes bound characters), and for CHAR has no trailing spaces to strip: the same
    // handle, no copy.
    if (sharesHandles) {
      const StringRef& handle = input.data<StringRef>()[row];
      if ((maxLength == 0 || handle.size() <= maxLength) &&
          (!toChar || handle.size() == 0 || handle.view().back() != ' ')) {
        out.data<StringRef>()[row] = handle;
        continue;
      }
    }
    text.clear();
    if (input.type().isString()) {
      text = input.data<StringRef>()[row].view();  // CHAR(n) converts without its padding
    } else if (input.type().id() == TypeId::kBoolean && !input.type().isArray()) {
      text = input.data<uint8_t>()[row] != 0 ? "true" : "false";  // the cast spells it out (booltext), output is t/f
    } else {
      input.appendText(row, text, zone);
    }
    if (maxLength > 0 && text.size() > maxLength) {
      // Truncate at a character boundary (UTF-8 continuation bytes are 10xxxxxx).
      size_t cut = maxLength;
      size_t characters = 0;
      for (cut = 0; cut < text.size(); ++cut) {
        if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80 && characters++ == maxLength) break;
      }
      text.resize(cut);
    }
    out.setString(row, out.type().id() == TypeId::kChar ? stripTrailingSpaces(text) : std::string_view(text));
  }
}

/// array -> array of another element type: each element cast as a value of its own would be.
void castArrayElements(const Vector& input, Vector& out, const TimeZone* zone) {
  const LogicalType toElement = out.type().elementType();
  for (size_t row = 0; row < input.size(); ++row) {
    if (input.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    std::vector<Value> elements = decodeArray(input.data<StringRef>()[row].view(), input.type());
    Vector from(input.type().elementType(), elements.size());
    for (size_t i = 0; i < elements.size(); ++i) from.setValue(i, elements[i]);
    Vector to = castVector(from, toElement, zone);
    for (size_t i = 0; i < elements.size(); ++i) elements[i] = to.getValue(i);
    out.setValue(row, makeArrayValue(elements, out.type()));
  }
}

void castFromText(const Vector& input, Vector& out, const TimeZone* zone) {
  out.validity() = input.validity();
  const StringRef* strings = input.data<StringRef>();
  for (size_t row = 0; row < input.size(); ++row) {
    if (!input.isNull(row)) {
      out.setValue(row, parseValue(strings[row].view(), out.type(), zone));
    }
  }
}

/// jsonb scalars to numbers and booleans, as PostgreSQL 15's jsonb casts: a number is read as numeric and then
/// cast (so 1.50::int rounds to 2), true/false become booleans; any other kind fails with 22023.
void castFromJsonb(const Vector& input, Vector& out) {
  const LogicalType& target = out.type();
  const bool toBoolean = target.id() == TypeId::kBoolean;
  for (size_t row = 0; row < input.size(); ++row) {
    if (input.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    const std::string_view text = input.data<StringRef>()[row].view();
    const JsonKind kind = jsonKindOf(text);
    if (kind != (toBoolean ? JsonKind::kBoolean : JsonKind::kNumber)) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "cannot cast jsonb {} to type {}",
                      kind == JsonKind::kNumber ? "numeric" : jsonKindName(kind),
                      target.id() == TypeId::kDecimal ? "numeric" : target.toString());
    }
    if (toBoolean) {
      out.data<uint8_t>()[row] = text == "true";
      continue;
    }
    // jsonb prints numbers as numeric does: plain digits, a point, no exponent.
    const size_t point = text.find('.');
    const size_t scale = point == std::string_view::npos ? 0 : text.size() - point - 1;
    const size_t digits = text.size() - (text[0] == '-' ? 1 : 0) - (point == std::string_view::npos ? 0 : 1);
    if (digits > LogicalType::kMaxDecimalPrecision) {
      // A double would round it, and a rounded number can cast to another integer: refused, not approximated.
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                      "casting a jsonb number of more than {} digits is not supported yet: {}",
                      LogicalType::kMaxDecimalPrecision, text.substr(0, 60));
    }
    const LogicalType exact =
        LogicalType::decimal(static_cast<int>(std::max<size_t>(digits, 1)), static_cast<int>(scale));
    Vector one(exact, 1);
    one.setValue(0, parseValue(text, exact));
    out.setValue(row, castVector(one, target).getValue(0));
  }
}

}  // namespace

bool isCastSupported(const LogicalType& from, const LogicalType& to) {
  if (from.isArray() && to.isArray()) {
    // A vector's subscripts start at 0: it casts to an array that keeps them (int2vector::int2[]) and to
    // nothing else, nor does that array.
    if (from.isVector() && to.isZeroBased()) return from.elementType() == to.elementType();
    if (from.isVector() || to.isVector() || from.isZeroBased() || to.isZeroBased()) return from == to;
    return isCastSupported(from.elementType(), to.elementType());
  }
  // json comes from text (and is checked) and goes to text, as in PostgreSQL.
  if (to.isJson()) return from.isString() || from.id() == TypeId::kUnknown;
  if (from.isJsonb() && !from.isArray() && (to.isNumeric() || to.id() == TypeId::kBoolean)) return true;
  if (from.isJson()) return to.isString();
  if (from.id() == to.id() || from.id() == TypeId::kUnknown || from.isString() || to.isString()) {
    return true;
  }
  if (from.isNumeric() && to.isNumeric()) {
    return true;
  }
  if (isDateTimeCast(from, to)) return true;
  // PostgreSQL allows integer <-> boolean, but not decimal or double <-> boolean.
  if (from.id() == TypeId::kBoolean || to.id() == TypeId::kBoolean) {
    const LogicalType& other = from.id() == TypeId::kBoolean ? to : from;
    return other.id() == TypeId::kInteger;
  }
  return false;
}

namespace {
Vector castVectorUnrounded(const Vector& input, const LogicalType& target, const TimeZone* zone);
}  // namespace

Vector castVector(const Vector& input, const LogicalType& target, const TimeZone* zone) {
  Vector out = castVectorUnrounded(input, target, zone);
  if (target.roundsFractions()) {
    // timestamp(p), timestamptz(p), time(p): rounded to p fractional digits, whatever the value came from.
    int64_t* values = out.data<int64_t>();
    for (size_t row = 0; row < out.size(); ++row) {
      if (!out.isNull(row)) values[row] = roundToFractionalDigits(values[row], target);
    }
  }
  return out;
}

namespace {

Vector castVectorUnrounded(const Vector& input, const LogicalType& target, const TimeZone* zone) {
  const LogicalType& from = input.type();
  Vector out(target, input.size());
  if (target.isString()) {
    castToText(input, out, zone);
    if (target.isJsonb() && !from.isJsonb() && !target.isArray()) {
      // Into the text jsonb keeps (which also checks it).
      for (size_t row = 0; row < out.size(); ++row) {
        if (!out.isNull(row)) out.setString(row, jsonbFromText(out.data<StringRef>()[row].view()));
      }
    } else if (target.isJson() && !from.isJson()) {
      for (size_t row = 0; row < out.size(); ++row) {
        if (!out.isNull(row)) requireValidJson(out.data<StringRef>()[row].view());
      }
    }
    return out;
  }
  if (from.isJsonb() && !from.isArray()) {
    castFromJsonb(input, out);
    return out;
  }
  if (from.isString() || from.id() == TypeId::kUnknown) {
    castFromText(input, out, zone);
    return out;
  }
  if ((from == target || from.withoutFractionalDigits() == target.withoutFractionalDigits()) &&
      from.id() != TypeId::kDecimal) {
    out.validity() = input.validity();
    std::memcpy(out.data<std::byte>(), input.data<std::byte>(), input.size() * physicalTypeWidth(from.physicalType()));
    if (from.physicalType() == PhysicalType::kString) out.shareStringsOf(input);
    return out;
  }
  if (from.isArray()) {
    castArrayElements(input, out, zone);
    return out;
  }
  SHOAL_CHECK(isCastSupported(from, target), "cast from {} to {}", from.toString(), target.toString());
  if (isDateTimeCast(from, target)) {
    castDateTime(input, out, zone ? *zone : TimeZone::utc());
    return out;
  }
  switch (from.id()) {
    case TypeId::kBoolean:
      unaryLoop<uint8_t, int32_t>(input, out, [](uint8_t value) { return value ? 1 : 0; });
      break;
    case TypeId::kSmallInt:
    case TypeId::kInteger:
      castNumericToNumeric<int32_t>(input, out);
      break;
    case TypeId::kBigInt:
      castNumericToNumeric<int64_t>(input, out);
      break;
    case TypeId::kDecimal:
      withDecimalStorage(from, [&](auto tag) { castNumericToNumeric<decltype(tag)>(input, out); });
      break;
    case TypeId::kDouble:
      castDoubleToNumeric(input, out);
      break;
    default:
      SHOAL_UNREACHABLE("cast from {} to {}", from.toString(), target.toString());
  }
  return out;
}

}  // namespace

}  // namespace shoal::engine
