// ExpressionBinder's records: information_schema._pg_expandarray(array), the set-returning function with OUT
// parameters x and n that pgjdbc's getPrimaryKeys and getIndexInfo call, and field selection (record).field,
// which they apply to it, in place or through a subquery's column. A record value carries its fields' texts
// (engine/types/record_type.h); selecting a field converts its text back to the field's type.

#include <fmt/format.h>

#include "common/status.h"
#include "engine/types/record_type.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;

ExpressionPtr ExpressionBinder::bindExpandArray(const pg_query::FuncCall& call) {
  const int location = call.location();
  if (insideAggregate_ || insideWindow_ || insideWindowDefinition_) {
    fail(SqlState::kFeatureNotSupported, location,
         fmt::format("{} function calls cannot contain set-returning function calls",
                     insideAggregate_ ? "aggregate" : "window"));
  }
  if (!setFunctionSink_) {
    fail(SqlState::kFeatureNotSupported, location,
         fmt::format("set-returning functions are not allowed in {}", clause_));
  }
  if (insideSetFunction_) {
    fail(SqlState::kFeatureNotSupported, location,
         "a set-returning function in the arguments of another is not supported yet");
  }
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
  if (arguments.size() != 1 || !arguments[0]->type().isArray()) {
    std::string types;
    for (const auto& argument : arguments) {
      types +=
          (types.empty() ? "" : ", ") + (isUnknown(argument) ? std::string("unknown") : argument->type().toString());
    }
    fail(SqlState::kUndefinedFunction, location,
         fmt::format("function information_schema._pg_expandarray({}) does not exist", types),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  }
  // As PostgreSQL defines it: x is $1[s] and n is s - array_lower($1, 1) + 1, for s over the array's
  // subscripts. unnest and generate_subscripts, in one ProjectSet, step through them together.
  const LogicalType arrayType = arguments[0]->type();
  SetFunctionColumn elements;
  elements.function = engine::TableFunction::kUnnest;
  elements.arguments.push_back(copyExpression(*arguments[0]));
  elements.column = PlanColumn{0, arrayType.elementType(), "x"};
  ExpressionPtr x = setFunctionSink_(std::move(elements));
  SetFunctionColumn subscripts;
  subscripts.function = engine::TableFunction::kGenerateSubscripts;
  subscripts.arguments.push_back(std::move(arguments[0]));
  subscripts.arguments.push_back(constantOf(engine::Value::integer(1)));
  subscripts.column = PlanColumn{0, LogicalType::integer(), "s"};
  ExpressionPtr n = setFunctionSink_(std::move(subscripts));
  const int64_t lowerBound = arrayType.lowerBound();
  if (lowerBound != 1) {
    n = binaryOf(ScalarFunction::kAdd, LogicalType::integer(), std::move(n),
                 constantOf(engine::Value::integer(static_cast<int32_t>(1 - lowerBound))));
  }
  const LogicalType recordType =
      LogicalType::record(engine::registerRecordShape({{"x", arrayType.elementType()}, {"n", LogicalType::integer()}}));
  // Beside a longer set-returning function the record is NULL once this one has no rows left: n is never
  // NULL while it has.
  ExpressionPtr exhausted = makeFunction(ScalarFunction::kIsNull, LogicalType::boolean(), copyExpression(*n));
  std::vector<ExpressionPtr> fields;
  fields.push_back(coerce(std::move(x), LogicalType::text(), location));
  fields.push_back(coerce(std::move(n), LogicalType::text(), location));
  std::vector<ExpressionPtr> branches;
  branches.push_back(std::move(exhausted));
  branches.push_back(constantOf(engine::Value::null(recordType)));
  branches.push_back(functionOf(ScalarFunction::kRecordConstruct, recordType, std::move(fields)));
  return functionOf(ScalarFunction::kCase, recordType, std::move(branches));
}

ExpressionPtr ExpressionBinder::bindFieldSelection(const pg_query::A_Indirection& indirection) {
  const int location = locationOf(indirection.arg());
  if (indirection.indirection_size() != 1 || !indirection.indirection(0).has_string()) {
    fail(SqlState::kFeatureNotSupported, location,
         indirection.indirection(0).has_a_star() ? "(record).* is not supported"
                                                 : "a field selection followed by a subscript is not supported");
  }
  const std::string& name = indirection.indirection(0).string().sval();
  ExpressionPtr record = bind(indirection.arg());
  if (!record->type().isRecord()) {
    fail(SqlState::kWrongObjectType, location,
         fmt::format("column notation .{} applied to type {}, which is not a composite type", name,
                     isUnknown(record) ? std::string("unknown") : record->type().toString()));
  }
  const std::vector<engine::RecordField> fields = engine::recordShape(record->type().recordShape());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name != name) continue;
    ExpressionPtr text = binaryOf(ScalarFunction::kRecordField, LogicalType::text(), std::move(record),
                                  constantOf(engine::Value::bigInt(static_cast<int64_t>(i))));
    return coerce(std::move(text), fields[i].type, location);
  }
  fail(SqlState::kUndefinedColumn, location, fmt::format("could not identify column \"{}\" in record data type", name));
}

}  // namespace shoal::sql
