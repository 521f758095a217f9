#include "sql/binder/description_functions.h"

#include <optional>
#include <string>

#include "common/status.h"
#include "sql/binder/expression_builders.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

ExpressionPtr nullText() {
  return constantOf(Value::null(LogicalType::text()));
}

/// CASE WHEN oid = o1 AND column = c1 THEN 'comment' ... ELSE NULL END (without `column`: objsubid 0).
ExpressionPtr lookup(const ExpressionPtr& oid, const ExpressionPtr* column,
                     const std::vector<ObjectComment>& comments) {
  std::vector<ExpressionPtr> arguments;
  for (const auto& comment : comments) {
    if (!column && comment.column != 0) continue;
    ExpressionPtr condition = binaryOf(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(*oid),
                                       constantOf(Value::bigInt(comment.oid)));
    if (column) {
      condition = binaryOf(ScalarFunction::kAnd, LogicalType::boolean(), std::move(condition),
                           binaryOf(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(**column),
                                    constantOf(Value::bigInt(comment.column))));
    }
    arguments.push_back(std::move(condition));
    arguments.push_back(constantOf(Value::varchar(comment.text)));
  }
  if (arguments.empty()) return nullText();
  arguments.push_back(nullText());
  return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
}

ExpressionPtr asBigInt(ExpressionPtr value) {
  return value->type().id() == engine::TypeId::kBigInt
             ? std::move(value)
             : std::make_unique<engine::CastExpression>(std::move(value), LogicalType::bigInt());
}

}  // namespace

std::vector<ObjectComment> schemaComments(const std::vector<SchemaDescription>& schemas) {
  std::vector<ObjectComment> comments;
  for (const auto& schema : schemas) {
    if (!schema.comment.empty()) comments.push_back({schema.oid, 0, schema.comment});
  }
  return comments;
}

bool isDescriptionFunction(std::string_view name) {
  return name == "obj_description" || name == "col_description" || name == "shobj_description";
}

ExpressionPtr bindDescriptionFunction(std::string_view name, std::vector<ExpressionPtr> arguments,
                                      const CatalogReader& catalog) {
  ExpressionPtr oid = asBigInt(std::move(arguments[0]));
  if (name == "col_description") {
    ExpressionPtr column = asBigInt(std::move(arguments[1]));
    return lookup(oid, &column, catalog.comments());
  }
  if (name == "shobj_description") return nullText();
  std::vector<ObjectComment> comments;
  if (arguments.size() == 1) {
    comments = catalog.comments();
    for (auto& schema : schemaComments(catalog.schemas())) comments.push_back(std::move(schema));
    return lookup(oid, nullptr, comments);
  }
  std::optional<Value> catalogName = literalBeneathCasts(*arguments[1]);
  if (!catalogName) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "obj_description's catalog must be a constant");
  if (catalogName->isNull()) return nullText();
  const std::string& table = catalogName->asString();
  if (table == "pg_class") return lookup(oid, nullptr, catalog.comments());
  if (table == "pg_namespace") return lookup(oid, nullptr, schemaComments(catalog.schemas()));
  SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "obj_description for {} is not supported yet", table);
}

}  // namespace shoal::sql
