#include "engine/expression/json_functions.h"

#include <cmath>
#include <optional>
#include <string_view>

#include "common/status.h"
#include "engine/types/array_value.h"
#include "engine/types/json_parser.h"
#include "engine/types/json_text.h"
#include "engine/types/jsonb_text.h"

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

namespace {

/// The value `path` leads to from `json`: each step a key, or an index into an array; nullopt when a step
/// leads nowhere or is NULL.
std::optional<std::string_view> followPath(std::string_view json, const Vector& pathColumn, size_t row) {
  std::optional<std::string_view> at = json;
  for (const Value& step : decodeArray(pathColumn.data<StringRef>()[row].view(), pathColumn.type())) {
    if (step.isNull()) return std::nullopt;
    at = jsonPathStep(*at, step.asString());
    if (!at) return std::nullopt;
  }
  return at;
}

}  // namespace

Vector evaluateJsonAccess(ScalarFunction function, const LogicalType& resultType,
                          std::span<const Vector* const> arguments, size_t numRows) {
  Vector out(resultType, numRows);
  const Vector& json = *arguments[0];
  for (size_t row = 0; row < numRows; ++row) {
    if (json.isNull(row) || (arguments.size() > 1 && arguments[1]->isNull(row))) {
      out.setNull(row, true);
      continue;
    }
    // json keeps its text as written: the value lies between any whitespace.
    std::string_view text = json.data<StringRef>()[row].view();
    const size_t first = text.find_first_not_of(" \t\n\r");
    text = first == std::string_view::npos ? std::string_view{}
                                           : text.substr(first, text.find_last_not_of(" \t\n\r") + 1 - first);
    if (function == ScalarFunction::kJsonTypeOf) {
      out.setString(row, jsonKindName(jsonKindOf(text)));
      continue;
    }
    if (function == ScalarFunction::kJsonbSortKey) {
      out.setString(row, jsonbSortKey(text));
      continue;
    }
    if (function == ScalarFunction::kJsonbCompare) {
      out.data<int32_t>()[row] = compareJsonb(text, arguments[1]->data<StringRef>()[row].view());
      continue;
    }
    std::optional<std::string_view> found;
    const Vector& step = *arguments[1];
    if (function == ScalarFunction::kJsonPath || function == ScalarFunction::kJsonPathText) {
      found = followPath(text, step, row);
    } else if (step.type().isString()) {
      found = jsonObjectField(text, step.data<StringRef>()[row].view());
    } else {
      const int64_t index =
          step.type().physicalType() == PhysicalType::kInt64 ? step.data<int64_t>()[row] : step.data<int32_t>()[row];
      found = jsonArrayElement(text, index);
      // PostgreSQL's jsonb keeps a lone scalar as an array of one: element 0 (or -1) is the scalar.
      const JsonKind kind = jsonKindOf(text);
      if (json.type().isJsonb() && kind != JsonKind::kArray && kind != JsonKind::kObject &&
          (index == 0 || index == -1)) {
        found = text;
      }
    }
    const bool asText = function == ScalarFunction::kJsonGetText || function == ScalarFunction::kJsonPathText;
    if (!found || (asText && jsonKindOf(*found) == JsonKind::kNull)) {
      out.setNull(row, true);
    } else if (asText && jsonKindOf(*found) == JsonKind::kString) {
      out.setString(row, decodeJsonString(*found));
    } else {
      out.setString(row, *found);
    }
  }
  return out;
}

}  // namespace shoal::engine
