#include "sql/binder/routine_functions.h"

#include "common/status.h"
#include "sql/binder/catalog_reader.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/object_identifiers.h"
#include "sql/catalog/builtin_routines.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

/// CASE WHEN oid = o1 THEN v1 ... ELSE NULL END over the routines Shoal has.
ExpressionPtr perRoutine(const ExpressionPtr& oid, const LogicalType& type,
                         const std::function<Value(const BuiltinRoutine&)>& valueOf) {
  std::vector<ExpressionPtr> arguments;
  for (const auto& routine : builtinRoutines()) {
    arguments.push_back(binaryOf(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(*oid),
                                 constantOf(Value::bigInt(routine.oid))));
    arguments.push_back(constantOf(valueOf(routine)));
  }
  if (arguments.empty()) return constantOf(Value::null(type));
  arguments.push_back(constantOf(Value::null(type)));
  return functionOf(ScalarFunction::kCase, type, std::move(arguments));
}

}  // namespace

bool isRoutineFunction(std::string_view name) {
  return name == "pg_get_function_arguments" || name == "pg_get_function_identity_arguments" ||
         name == "pg_get_function_result" || name == "pg_function_is_visible";
}

ExpressionPtr bindRoutineFunction(std::string_view name, ExpressionPtr oid) {
  if (name == "pg_function_is_visible") {
    return perRoutine(oid, LogicalType::boolean(), [](const BuiltinRoutine&) { return Value::boolean(true); });
  }
  auto text = [](std::string_view value) { return Value::varchar(std::string(value)); };
  if (name == "pg_get_function_arguments") {
    return perRoutine(oid, LogicalType::text(), [&](const BuiltinRoutine& r) { return text(r.arguments); });
  }
  if (name == "pg_get_function_identity_arguments") {
    return perRoutine(oid, LogicalType::text(), [&](const BuiltinRoutine& r) { return text(r.identityArguments); });
  }
  return perRoutine(oid, LogicalType::text(), [&](const BuiltinRoutine& r) { return text(r.result); });
}

int64_t routineOidFromName(std::string_view text) {
  if (text.find('(') != std::string_view::npos) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                    "a function with argument types (regprocedure) is not "
                    "supported as a name yet: \"{}\"",
                    text);
  }
  auto [schema, name] = splitQualifiedName(text);
  const std::vector<int64_t> oids =
      schema.empty() || schema == kPgCatalogSchema ? builtinRoutineOidsNamed(name) : std::vector<int64_t>{};
  if (oids.empty()) SHOAL_USER_FAIL(SqlState::kUndefinedFunction, "function \"{}\" does not exist", text);
  if (oids.size() > 1) SHOAL_USER_FAIL(SqlState::kAmbiguousFunction, "more than one function named \"{}\"", text);
  return oids.front();
}

}  // namespace shoal::sql
