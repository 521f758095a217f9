#include "sql/binder/session_functions.h"

#include "common/status.h"
#include "engine/expression/datetime_casts.h"
#include "engine/types/array_value.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "sql/binder/catalog_reader.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/search_path.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::Value;

namespace {

/// The search path's schemas as `catalog` sees them; without a catalog, those of the default path.
std::vector<std::string> pathSchemas(const CatalogReader* catalog, bool includeImplicit) {
  if (catalog == nullptr) {
    std::vector<std::string> schemas{std::string(kPublicSchema)};
    if (includeImplicit) schemas.insert(schemas.begin(), std::string(kPgCatalogSchema));
    return schemas;
  }
  return includeImplicit ? lookupSchemas(*catalog) : explicitSchemas(*catalog);
}

}  // namespace

engine::ExpressionPtr bindSessionFunction(std::string_view name, size_t numArguments, const SessionInfo* session,
                                          const CatalogReader* catalog) {
  if (numArguments != 0) return nullptr;
  auto text = [](std::string_view value) {
    return std::make_unique<ConstantExpression>(Value::varchar(std::string(value)));
  };
  if (name == "version") return text(kVersionText);
  if (name == "current_schema") {
    const auto schemas = pathSchemas(catalog, false);
    if (schemas.empty()) return std::make_unique<ConstantExpression>(Value::null(engine::LogicalType::text()));
    return text(schemas.front());
  }
  if (session == nullptr) return nullptr;
  if (name == "current_user" || name == "session_user" || name == "user" || name == "current_role") {
    return text(session->user);
  }
  if (name == "current_database" || name == "current_catalog") return text(session->database);
  if (name == "pg_backend_pid") return std::make_unique<ConstantExpression>(Value::integer(session->backendPid));
  if (name == "pg_my_temp_schema" && catalog != nullptr) {
    // The OID of the session's temporary schema, 0 until its first temporary relation made it.
    const std::string temporary = temporarySchemaOf(*catalog);
    int64_t oid = 0;
    for (const auto& schema : catalog->schemas()) {
      if (schema.name == temporary) oid = schema.oid;
    }
    return std::make_unique<ConstantExpression>(Value::bigInt(oid));
  }
  if (session->transactionStart) {
    const bool ofStatement = name == "statement_timestamp";
    if (ofStatement || name == "now" || name == "current_timestamp" || name == "transaction_timestamp" ||
        name == "localtimestamp" || name == "current_date") {
      const int64_t instant = ofStatement ? session->statementStart() : session->transactionStart();
      if (name == "localtimestamp" || name == "current_date") {
        const engine::TimeZone& zone = engine::TimeZone::named(session->setting("TimeZone"));
        const int64_t local = instant + zone.offsetAt(instant) * engine::kMicrosPerSecond;
        if (name == "localtimestamp") return std::make_unique<ConstantExpression>(Value::timestamp(local));
        return std::make_unique<ConstantExpression>(Value::date(engine::dateOfTimestamp(local)));
      }
      return std::make_unique<ConstantExpression>(Value::timestampTz(instant));
    }
  }
  return nullptr;
}

engine::ExpressionPtr bindCurrentSchemas(engine::ExpressionPtr includeImplicit, const CatalogReader* catalog) {
  const auto type = engine::LogicalType::array(engine::LogicalType::text());
  auto schemas = [&](bool implicit) {
    std::vector<Value> names;
    for (auto& schema : pathSchemas(catalog, implicit)) names.push_back(Value::varchar(std::move(schema)));
    return constantOf(engine::makeArrayValue(names, type));
  };
  std::vector<engine::ExpressionPtr> arguments;
  arguments.push_back(std::move(includeImplicit));
  arguments.push_back(schemas(true));
  arguments.push_back(schemas(false));
  // NULL in, NULL out, as for PostgreSQL's strict function.
  std::vector<engine::ExpressionPtr> nullTest;
  nullTest.push_back(copyExpression(*arguments[0]));
  auto isNull = functionOf(engine::ScalarFunction::kIsNull, engine::LogicalType::boolean(), std::move(nullTest));
  arguments.insert(arguments.begin(), constantOf(Value::null(type)));
  arguments.insert(arguments.begin(), std::move(isNull));
  return functionOf(engine::ScalarFunction::kCase, type, std::move(arguments));
}

engine::ExpressionPtr bindCurrentSetting(const std::vector<engine::ExpressionPtr>& arguments,
                                         const SessionInfo* session) {
  std::vector<Value> values;
  for (const auto& argument : arguments) {
    std::optional<Value> value = literalBeneathCasts(*argument);
    if (!value) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "current_setting's arguments must be constants");
    values.push_back(std::move(*value));
  }
  auto null = [] { return std::make_unique<ConstantExpression>(Value::null(engine::LogicalType::text())); };
  if (values[0].isNull() || (values.size() == 2 && values[1].isNull())) return null();
  if (session == nullptr || !session->setting) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "current_setting() is not supported here");
  }
  // missing_ok arrives as a boolean, or as an untyped string literal ('t', 'on', ...).
  const bool missingOk = values.size() == 2 && (values[1].type().id() == engine::TypeId::kBoolean
                                                    ? values[1].asBool()
                                                    : engine::parseBoolean(values[1].asString()));
  try {
    return std::make_unique<ConstantExpression>(Value::varchar(session->setting(values[0].asString())));
  } catch (const ShoalError& error) {
    if (missingOk && error.status().sqlState() == SqlState::kUndefinedObject) return null();
    throw;
  }
}

}  // namespace shoal::sql
