#include "engine/expression/json_functions.h"

#include <cmath>

#include "common/status.h"
#include "engine/types/array_value.h"
#include "engine/types/json_text.h"

namespace shoal::engine {
namespace {

void appendJsonValue(const Value& value, std::string& out) {
  if (value.isNull()) {
    out += "null";
    return;
  }
  const LogicalType& type = value.type();
  if (type.isJson() && !type.isArray()) {
    out += value.asString();
    return;
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      out += value.asBool() ? "true" : "false";
      return;
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
    case TypeId::kDecimal:
      out += value.toString();
      return;
    case TypeId::kDouble:
      // JSON has no NaN or infinities: PostgreSQL writes them as strings.
      if (!std::isfinite(value.asDouble())) {
        appendJsonString(value.toString(), out);
      } else {
        out += value.toString();
      }
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      // PostgreSQL writes them in ISO 8601 ('T', and the session's zone), which this text is not.
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "timestamps in JSON are not supported yet: cast them to text");
    case TypeId::kArray: {
      out += '[';
      bool first = true;
      for (const Value& element : decodeArray(value.asString(), type)) {
        if (!first) out += ',';
        first = false;
        appendJsonValue(element, out);
      }
      out += ']';
      return;
    }
    default:
      appendJsonString(value.toString(), out);
      return;
  }
}

}  // namespace

Vector evaluateJsonBuildObject(std::span<const Vector* const> arguments, size_t numRows) {
  Vector out(LogicalType::json(), numRows);
  for (size_t row = 0; row < numRows; ++row) {
    std::string object = "{";
    for (size_t i = 0; i + 1 < arguments.size(); i += 2) {
      if (arguments[i]->isNull(row)) {
        throw ShoalError(Status(SqlState::kInvalidParameterValue, fmt::format("argument {} cannot be null", i + 1))
                             .withHint("Object keys should be text."));
      }
      const Value key = arguments[i]->getValue(row);
      if (key.type().isArray() || key.type().isJson()) {
        SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "key value must be scalar, not array, composite, or json");
      }
      if (i > 0) object += ", ";
      // A key is its value's JSON text, quoted: booleans are true and false.
      const bool boolean = key.type().id() == TypeId::kBoolean;
      appendJsonString(boolean ? (key.asBool() ? "true" : "false") : key.toString(), object);
      object += " : ";
      appendJsonValue(arguments[i + 1]->getValue(row), object);
    }
    object += '}';
    out.setString(row, object);
  }
  return out;
}

}  // namespace shoal::engine
