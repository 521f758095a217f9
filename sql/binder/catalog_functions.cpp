#include "sql/binder/catalog_functions.h"

#include <vector>

#include "common/check.h"
#include "engine/expression/expression.h"
#include "sql/binder/expression_binder.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

ExpressionPtr function(ScalarFunction which, LogicalType type, std::vector<ExpressionPtr> arguments) {
  return std::make_unique<FunctionExpression>(which, std::move(arguments), type);
}

ExpressionPtr binary(ScalarFunction which, LogicalType type, ExpressionPtr left, ExpressionPtr right) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(left));
  arguments.push_back(std::move(right));
  return function(which, type, std::move(arguments));
}

ExpressionPtr constant(Value value) {
  return std::make_unique<ConstantExpression>(std::move(value));
}

/// `oid = o1 OR oid = o2 ...`; FALSE for no OIDs.
ExpressionPtr oneOf(const ExpressionPtr& oid, const std::vector<int64_t>& oids) {
  if (oids.empty()) return constant(Value::boolean(false));
  std::vector<ExpressionPtr> terms;
  for (int64_t each : oids) {
    terms.push_back(
        binary(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(*oid), constant(Value::bigInt(each))));
  }
  return combineBalanced(ScalarFunction::kOr, std::move(terms));
}

ExpressionPtr userById(ExpressionPtr oid) {
  // CASE WHEN oid = 10 THEN 'shoal' WHEN oid = 6171 THEN 'pg_database_owner'
  // ELSE 'unknown (OID=' || oid::text || ')' END
  std::vector<ExpressionPtr> arguments;
  for (auto [roleOid, roleName] :
       {std::pair{kOwnerRoleOid, kOwnerRoleName}, std::pair{kDatabaseOwnerRoleOid, kDatabaseOwnerRoleName}}) {
    arguments.push_back(
        binary(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(*oid), constant(Value::bigInt(roleOid))));
    arguments.push_back(constant(Value::varchar(std::string(roleName))));
  }
  ExpressionPtr asText = std::make_unique<engine::CastExpression>(std::move(oid), LogicalType::text());
  arguments.push_back(binary(ScalarFunction::kConcat, LogicalType::text(),
                             binary(ScalarFunction::kConcat, LogicalType::text(),
                                    constant(Value::varchar("unknown (OID=")), std::move(asText)),
                             constant(Value::varchar(")"))));
  return function(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
}

ExpressionPtr tableIsVisible(ExpressionPtr oid, const CatalogReader& catalog) {
  // CASE WHEN oid IN (visible) THEN TRUE WHEN oid IN (hidden) THEN FALSE ELSE NULL END
  std::vector<int64_t> visible;
  std::vector<int64_t> hidden;
  for (const auto& relation : catalog.relationVisibility()) {
    (relation.visible ? visible : hidden).push_back(relation.oid);
  }
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(oneOf(oid, visible));
  arguments.push_back(constant(Value::boolean(true)));
  arguments.push_back(oneOf(oid, hidden));
  arguments.push_back(constant(Value::boolean(false)));
  arguments.push_back(constant(Value::null(LogicalType::boolean())));
  return function(ScalarFunction::kCase, LogicalType::boolean(), std::move(arguments));
}

}  // namespace

bool isCatalogFunction(std::string_view name) {
  return name == "pg_get_userbyid" || name == "pg_table_is_visible";
}

ExpressionPtr bindCatalogFunction(std::string_view name, ExpressionPtr oid, const CatalogReader& catalog) {
  if (name == "pg_get_userbyid") return userById(std::move(oid));
  SHOAL_CHECK(name == "pg_table_is_visible", "{} is not a catalog function", name);
  return tableIsVisible(std::move(oid), catalog);
}

}  // namespace shoal::sql
