// ExpressionBinder's binding of JSON access: the ->, ->>, #> and #>> operators and json_typeof,
// jsonb_typeof and json[b]_extract_path[_text], on json and jsonb alike (engine/expression/json_functions.h).

#include <fmt/format.h>

#include "common/status.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;

namespace {

bool isJsonValue(const ExpressionPtr& expression) {
  return expression->type().isJson() && !expression->type().isArray();
}

}  // namespace

std::optional<ExpressionPtr> ExpressionBinder::bindJsonOperator(std::string_view op, ExpressionPtr& left,
                                                                ExpressionPtr& right, int location) {
  if (op != "->" && op != "->>" && op != "#>" && op != "#>>") return std::nullopt;
  if (!isJsonValue(left)) failNoOperator(op, left->type(), right->type(), location);
  const bool asText = op == "->>" || op == "#>>";
  const LogicalType resultType = asText ? LogicalType::text() : left->type();
  std::vector<ExpressionPtr> arguments;
  if (op[0] == '#') {
    // The path is a text[]: a literal '{a,0}' or any text array.
    const LogicalType path = LogicalType::array(LogicalType::text());
    if (!isUnknown(right) && !(right->type().isArray() && right->type().elementType().isString())) {
      failNoOperator(op, left->type(), right->type(), location);
    }
    arguments.push_back(std::move(left));
    arguments.push_back(coerce(std::move(right), path, location));
    return functionOf(asText ? ScalarFunction::kJsonPathText : ScalarFunction::kJsonPath, resultType,
                      std::move(arguments));
  }
  // A key (text) or an index (integer).
  const TypeId rightId = right->type().id();
  LogicalType stepType = LogicalType::text();
  if (rightId == TypeId::kInteger || rightId == TypeId::kSmallInt) {
    stepType = LogicalType::integer();
  } else if (!isUnknown(right) && !right->type().isString()) {
    failNoOperator(op, left->type(), right->type(), location);
  }
  arguments.push_back(std::move(left));
  arguments.push_back(coerce(std::move(right), stepType, location));
  return functionOf(asText ? ScalarFunction::kJsonGetText : ScalarFunction::kJsonGet, resultType, std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindJsonbComparison(ScalarFunction comparison, ExpressionPtr left,
                                                    ExpressionPtr right) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(left));
  arguments.push_back(std::move(right));
  return makeFunction(comparison, LogicalType::boolean(),
                      functionOf(ScalarFunction::kJsonbCompare, LogicalType::integer(), std::move(arguments)),
                      constantOf(engine::Value::integer(0)));
}

std::optional<ExpressionPtr> ExpressionBinder::bindJsonFunction(std::string_view name,
                                                                std::vector<ExpressionPtr>& arguments, int location) {
  const bool typeOf = name == "json_typeof" || name == "jsonb_typeof";
  const bool extract = name == "json_extract_path" || name == "json_extract_path_text" ||
                       name == "jsonb_extract_path" || name == "jsonb_extract_path_text";
  if (!typeOf && !extract) return std::nullopt;
  // json_* take json and jsonb_* jsonb; an untyped literal becomes the one named.
  const LogicalType jsonType = name.starts_with("jsonb") ? LogicalType::jsonb() : LogicalType::json();
  auto undefined = [&] {
    std::vector<std::string> types;
    for (const auto& argument : arguments) types.push_back(argument->type().toString());
    fail(SqlState::kUndefinedFunction, location,
         fmt::format("function {}({}) does not exist", name, fmt::join(types, ", ")));
  };
  if (arguments.empty() || (typeOf && arguments.size() != 1)) undefined();
  if (isUnknown(arguments[0])) arguments[0] = coerce(std::move(arguments[0]), jsonType, location);
  if (arguments[0]->type() != jsonType) undefined();
  if (typeOf) return functionOf(ScalarFunction::kJsonTypeOf, LogicalType::text(), std::move(arguments));
  // VARIADIC text: the steps become the path array #> takes.
  std::vector<ExpressionPtr> steps;
  for (size_t i = 1; i < arguments.size(); ++i) {
    if (!isUnknown(arguments[i]) && !arguments[i]->type().isString()) undefined();
    steps.push_back(coerce(std::move(arguments[i]), LogicalType::text(), location));
  }
  const bool asText = name.ends_with("_text");
  std::vector<ExpressionPtr> pathArguments;
  pathArguments.push_back(std::move(arguments[0]));
  pathArguments.push_back(
      functionOf(ScalarFunction::kArrayConstruct, LogicalType::array(LogicalType::text()), std::move(steps)));
  return functionOf(asText ? ScalarFunction::kJsonPathText : ScalarFunction::kJsonPath,
                    asText ? LogicalType::text() : jsonType, std::move(pathArguments));
}

}  // namespace shoal::sql
