#include "engine/expression/array_functions.h"

#include "common/check.h"
#include "engine/expression/comparison.h"
#include "engine/types/array_value.h"
#include "engine/types/record_type.h"

namespace shoal::engine {
namespace {

std::vector<Value> elementsAt(const Vector& array, size_t row) {
  return decodeArray(array.data<StringRef>()[row].view(), array.type());
}

/// A vector of `values`, all of `type`.
Vector vectorOf(const std::vector<Value>& values, const LogicalType& type) {
  Vector out(type, values.size());
  for (size_t i = 0; i < values.size(); ++i) out.setValue(i, values[i]);
  return out;
}

/// x op ANY/ALL (elements) for one row: the comparison runs as the vectorized kernel over the elements.
Value compareQuantified(bool isAll, ScalarFunction comparison, const Value& left, const std::vector<Value>& elements,
                        const LogicalType& elementType) {
  if (elements.empty()) return Value::boolean(isAll);
  Vector rights = vectorOf(elements, elementType);
  Vector lefts(elementType, elements.size());
  for (size_t i = 0; i < elements.size(); ++i) lefts.setValue(i, left);
  Vector results = evaluateComparison(comparison, lefts, rights);
  bool sawNull = false;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (results.isNull(i)) {
      sawNull = true;
    } else if ((results.data<uint8_t>()[i] != 0) != isAll) {
      return Value::boolean(!isAll);  // ANY found a true, ALL found a false
    }
  }
  return sawNull ? Value::null(LogicalType::boolean()) : Value::boolean(isAll);
}

/// array_to_string's text of one row.
std::string joinElements(const Vector& array, size_t row, std::string_view delimiter, const Value* nullText) {
  std::vector<Value> elements = elementsAt(array, row);
  Vector values = vectorOf(elements, array.type().elementType());
  std::string out;
  bool first = true;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].isNull() && nullText == nullptr) continue;
    if (!first) out += delimiter;
    first = false;
    if (elements[i].isNull()) {
      out += nullText->asString();
    } else {
      values.appendText(i, out);
    }
  }
  return out;
}

/// The result of `function` for one row whose arguments are `row` of each vector.
Value evaluateRow(ScalarFunction function, std::span<const Vector* const> arguments, const LogicalType& resultType,
                  size_t row) {
  auto isNull = [&](size_t index) { return arguments[index]->isNull(row); };
  auto argument = [&](size_t index) { return arguments[index]->getValue(row); };
  const Value null = Value::null(resultType);
  switch (function) {
    case ScalarFunction::kArrayConstruct: {
      std::vector<Value> elements;
      for (size_t i = 0; i < arguments.size(); ++i) elements.push_back(argument(i));
      return makeArrayValue(elements, resultType);
    }
    case ScalarFunction::kRecordConstruct: {
      std::vector<std::optional<std::string>> fields;
      for (size_t i = 0; i < arguments.size(); ++i) {
        fields.push_back(isNull(i) ? std::nullopt : std::optional(arguments[i]->getValue(row).asString()));
      }
      return Value::varchar(encodeRecord(fields), resultType);
    }
    case ScalarFunction::kRecordField: {
      if (isNull(0)) return null;
      auto text =
          recordFieldText(arguments[0]->data<StringRef>()[row].view(), static_cast<size_t>(argument(1).asInt64()));
      return text ? Value::varchar(std::move(*text)) : null;
    }
    case ScalarFunction::kArrayToString: {
      if (isNull(0) || isNull(1)) return null;
      Value nullText = arguments.size() > 2 ? argument(2) : Value::null(LogicalType::text());
      return Value::varchar(
          joinElements(*arguments[0], row, argument(1).asString(), nullText.isNull() ? nullptr : &nullText));
    }
    case ScalarFunction::kArrayLength:
    case ScalarFunction::kArrayLower:
    case ScalarFunction::kArrayUpper: {
      if (isNull(0) || isNull(1)) return null;
      size_t count = arrayCardinality(arguments[0]->data<StringRef>()[row].view());
      const auto lower = static_cast<int32_t>(arguments[0]->type().lowerBound());
      // An empty array has no dimension (NULL bounds); an empty vector keeps its one, of length 0 ([0:-1]).
      if (argument(1).asInt32() != 1 || (count == 0 && lower == 1)) return null;
      if (function == ScalarFunction::kArrayLength) return Value::integer(static_cast<int32_t>(count));
      return Value::integer(function == ScalarFunction::kArrayLower ? lower : lower + static_cast<int32_t>(count) - 1);
    }
    case ScalarFunction::kCardinality:
      if (isNull(0)) return null;
      return Value::integer(static_cast<int32_t>(arrayCardinality(arguments[0]->data<StringRef>()[row].view())));
    case ScalarFunction::kArraySubscript: {
      if (isNull(0) || isNull(1)) return null;
      std::vector<Value> elements = elementsAt(*arguments[0], row);
      // Subscripts start at 1, or at 0 for int2vector and oidvector.
      const int64_t index = argument(1).asInt32() - arguments[0]->type().lowerBound();
      if (index < 0 || static_cast<size_t>(index) >= elements.size()) return null;
      return elements[static_cast<size_t>(index)];
    }
    case ScalarFunction::kArrayConcat:
    case ScalarFunction::kArrayAppend:
    case ScalarFunction::kArrayPrepend: {
      std::vector<Value> elements;
      auto addArray = [&](size_t index) {
        if (isNull(index)) return;
        for (Value& element : elementsAt(*arguments[index], row)) elements.push_back(std::move(element));
      };
      if (function == ScalarFunction::kArrayPrepend) {
        elements.push_back(argument(0));
        addArray(1);
      } else if (function == ScalarFunction::kArrayAppend) {
        addArray(0);
        elements.push_back(argument(1));
      } else {
        if (isNull(0) && isNull(1)) return null;
        addArray(0);
        addArray(1);
      }
      return makeArrayValue(elements, resultType);
    }
    case ScalarFunction::kCompareAny:
    case ScalarFunction::kCompareAll: {
      if (isNull(1)) return null;
      std::vector<Value> elements = elementsAt(*arguments[1], row);
      const bool isAll = function == ScalarFunction::kCompareAll;
      if (isNull(0)) return elements.empty() ? Value::boolean(isAll) : null;
      auto comparison = static_cast<ScalarFunction>(argument(2).asInt32());
      return compareQuantified(isAll, comparison, argument(0), elements, arguments[1]->type().elementType());
    }
    default:
      SHOAL_UNREACHABLE("not an array function: {}", scalarFunctionName(function));
  }
}

}  // namespace

Vector evaluateArrayFunction(ScalarFunction function, std::span<const Vector* const> arguments,
                             const LogicalType& resultType) {
  const size_t numRows = arguments.empty() ? 0 : arguments[0]->size();
  Vector out(resultType, numRows);
  for (size_t row = 0; row < numRows; ++row) out.setValue(row, evaluateRow(function, arguments, resultType, row));
  return out;
}

}  // namespace shoal::engine
