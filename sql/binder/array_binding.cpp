// ExpressionBinder's binding of arrays: ARRAY[...] constructors, array[i], x op ANY/ALL (array), || on
// arrays, the array functions, and array type names (int[], _int4).

#include <fmt/format.h>

#include "common/status.h"
#include "engine/types/array_value.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/type_coercion.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;
using engine::Value;

std::optional<LogicalType> ExpressionBinder::arrayTypeFromName(std::string_view name,
                                                               const pg_query::TypeName& typeName) const {
  const bool underscoreName = name.size() > 1 && name[0] == '_';
  if (typeName.array_bounds().empty() && !underscoreName) return std::nullopt;
  pg_query::TypeName element = typeName;
  element.clear_array_bounds();
  std::string elementName(underscoreName ? name.substr(1) : name);
  if (underscoreName) {
    element.clear_names();
    element.add_names()->mutable_string()->set_sval(elementName);
  }
  // Elements that Shoal keeps in a wider type: OIDs (and reg*) in bigint.
  if (objectIdentifierType(elementName)) return LogicalType::array(LogicalType::bigInt());
  LogicalType elementType = typeFromName(element);
  if (elementType.id() == TypeId::kUnknown) elementType = LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 16);
  return LogicalType::array(elementType);
}

ExpressionPtr ExpressionBinder::bindArrayConstructor(const pg_query::A_ArrayExpr& array,
                                                     std::optional<LogicalType> elementType) {
  std::vector<ExpressionPtr> elements;
  std::vector<LogicalType> types;
  for (const auto& element : array.elements()) {
    if (element.has_a_array_expr()) {
      fail(SqlState::kFeatureNotSupported, array.location(), "multidimensional arrays are not supported");
    }
    elements.push_back(bind(element));
    types.push_back(elements.back()->type());
  }
  if (!elementType) {
    if (elements.empty()) {
      fail(SqlState::kIndeterminateDatatype, array.location(), "cannot determine type of empty array",
           "Explicitly cast to the desired type, for example ARRAY[]::integer[].");
    }
    elementType = commonType(types, "ARRAY", array.location());
  }
  if (elementType->isArray()) {
    fail(SqlState::kFeatureNotSupported, array.location(), "multidimensional arrays are not supported");
  }
  for (auto& element : elements) element = coerce(std::move(element), *elementType, array.location());
  return functionOf(ScalarFunction::kArrayConstruct, LogicalType::array(*elementType), std::move(elements));
}

ExpressionPtr ExpressionBinder::bindSubscript(const pg_query::A_Indirection& indirection) {
  if (indirection.indirection(0).has_string() || indirection.indirection(0).has_a_star()) {
    return bindFieldSelection(indirection);
  }
  const int location = locationOf(indirection.arg());
  if (indirection.indirection_size() != 1 || !indirection.indirection(0).has_a_indices()) {
    fail(SqlState::kFeatureNotSupported, location,
         indirection.indirection(indirection.indirection_size() - 1).has_a_indices()
             ? "subscripts of more than one dimension are not supported"
             : "a subscript followed by a field selection is not supported");
  }
  const auto& indices = indirection.indirection(0).a_indices();
  if (indices.is_slice()) fail(SqlState::kFeatureNotSupported, location, "array slices are not supported");
  ExpressionPtr array = bind(indirection.arg());
  if (!array->type().isArray()) {
    fail(SqlState::kDatatypeMismatch, location,
         fmt::format("cannot subscript type {} because it does not support subscripting", array->type().toString()));
  }
  ExpressionPtr index = bind(indices.uidx());
  if (isUnknown(index)) index = coerce(std::move(index), LogicalType::integer(), location);
  if (!index->type().isIntegral()) {
    fail(SqlState::kDatatypeMismatch, location, "array subscript must have type integer");
  }
  index = coerce(std::move(index), LogicalType::integer(), location);
  LogicalType elementType = array->type().elementType();
  return binaryOf(ScalarFunction::kArraySubscript, elementType, std::move(array), std::move(index));
}

ExpressionPtr ExpressionBinder::bindQuantifiedComparison(ScalarFunction comparison, std::string_view op, bool isAll,
                                                         const pg_query::A_Expr& expr) {
  const int location = expr.location();
  ExpressionPtr left = bind(expr.lexpr());
  ExpressionPtr array = bind(expr.rexpr());
  const char* quantifier = isAll ? "ALL" : "ANY";
  if (isUnknown(array)) {
    // '{1,2}' or $1: an array of the left side's type.
    LogicalType element = isUnknown(left) ? LogicalType::text() : left->type();
    array = coerce(std::move(array), LogicalType::array(element), location);
  }
  if (!array->type().isArray()) {
    fail(SqlState::kWrongObjectType, location, fmt::format("op {} (array) requires array on right side", quantifier));
  }
  LogicalType element = array->type().elementType();
  if (array->type().isVector()) {
    // attnum = ANY(indkey): where the elements sit does not matter here, so the vector is read as a plain array
    // (a cast no query may write: it would lose the vector's first subscript, 0).
    array = std::make_unique<engine::CastExpression>(std::move(array), LogicalType::array(element));
  }
  if (isUnknown(left)) left = coerce(std::move(left), element, location);
  auto common = comparisonType(left->type(), element);
  if (!common) failNoOperator(op, left->type(), element, location);
  left = coerce(std::move(left), *common, location);
  array = coerce(std::move(array), LogicalType::array(*common), location);
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(left));
  arguments.push_back(std::move(array));
  arguments.push_back(constantOf(Value::integer(static_cast<int32_t>(comparison))));
  return functionOf(isAll ? ScalarFunction::kCompareAll : ScalarFunction::kCompareAny, LogicalType::boolean(),
                    std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindArrayConcat(ExpressionPtr left, ExpressionPtr right, int location) {
  // An untyped side takes the other's type: an array literal next to an array, else an element.
  if (isUnknown(left)) left = coerce(std::move(left), right->type(), location);
  if (isUnknown(right)) right = coerce(std::move(right), left->type(), location);
  auto elementOf = [](const ExpressionPtr& e) { return e->type().isArray() ? e->type().elementType() : e->type(); };
  std::optional<LogicalType> element;
  const LogicalType leftElement = elementOf(left);
  const LogicalType rightElement = elementOf(right);
  if (leftElement == rightElement) {
    element = leftElement;
  } else if (leftElement.isNumeric() && rightElement.isNumeric()) {
    element = commonNumericType(leftElement, rightElement);
  } else if (leftElement.isString() && rightElement.isString()) {
    element = LogicalType::text();
  }
  if (!element) failNoOperator("||", left->type(), right->type(), location);
  const LogicalType arrayType = LogicalType::array(*element);
  ScalarFunction function = ScalarFunction::kArrayConcat;
  if (!left->type().isArray()) function = ScalarFunction::kArrayPrepend;
  if (!right->type().isArray()) function = ScalarFunction::kArrayAppend;
  left = coerce(std::move(left), left->type().isArray() ? arrayType : *element, location);
  right = coerce(std::move(right), right->type().isArray() ? arrayType : *element, location);
  return binaryOf(function, arrayType, std::move(left), std::move(right));
}

std::optional<ExpressionPtr> ExpressionBinder::bindArrayFunction(std::string_view name,
                                                                 std::vector<ExpressionPtr>& arguments, int location) {
  static const std::pair<std::string_view, ScalarFunction> kFunctions[] = {
      {"array_to_string", ScalarFunction::kArrayToString},
      {"array_length", ScalarFunction::kArrayLength},
      {"array_lower", ScalarFunction::kArrayLower},
      {"array_upper", ScalarFunction::kArrayUpper},
      {"cardinality", ScalarFunction::kCardinality}};
  std::optional<ScalarFunction> function;
  for (const auto& [functionName, which] : kFunctions) {
    if (name == functionName) function = which;
  }
  if (!function) return std::nullopt;
  const size_t minArguments = *function == ScalarFunction::kCardinality ? 1 : 2;
  const size_t maxArguments = *function == ScalarFunction::kArrayToString ? 3 : minArguments;
  if (arguments.size() < minArguments || arguments.size() > maxArguments || !arguments[0]->type().isArray()) {
    return std::nullopt;  // the caller reports the missing signature
  }
  if (*function == ScalarFunction::kArrayToString && arguments[0]->type().elementId() == engine::TypeId::kTimestampTz) {
    // Its elements print in the session's TimeZone, as the cast to text[] prints them.
    arguments[0] = coerce(std::move(arguments[0]), LogicalType::array(LogicalType::text()), location);
  }
  LogicalType resultType = LogicalType::integer();
  for (size_t i = 1; i < arguments.size(); ++i) {
    if (*function == ScalarFunction::kArrayToString) {
      if (!arguments[i]->type().isString() && !isUnknown(arguments[i])) return std::nullopt;
      arguments[i] = coerce(std::move(arguments[i]), LogicalType::text(), location);
      resultType = LogicalType::text();
    } else {
      if (!arguments[i]->type().isIntegral() && !isUnknown(arguments[i])) return std::nullopt;
      arguments[i] = coerce(std::move(arguments[i]), LogicalType::integer(), location);
    }
  }
  return functionOf(*function, resultType, std::move(arguments));
}

}  // namespace shoal::sql
