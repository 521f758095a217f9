#include "sql/binder/comment_binder.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/status.h"
#include "engine/expression/sql_keywords.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/binder.h"
#include "sql/binder/search_path.h"
#include "sql/parser/parsed_script.h"

namespace shoal::sql {

namespace {

/// The names a view's query gives its columns, in order (binding it as SELECT * does).
std::vector<std::string> viewColumnNames(const QualifiedName& view, const CatalogReader& catalog) {
  ParsedScript script = ParsedScript::parse(
      fmt::format("SELECT * FROM {}.{}", engine::quoteIdentifier(view.schema), engine::quoteIdentifier(view.name)));
  BoundStatement bound = Binder(catalog).bind(script, 0);
  return std::get<BoundQuery>(bound.command).plan.columnNames;
}

}  // namespace

CommentOn bindComment(const pg_query::CommentStmt& comment, const CatalogReader& catalog) {
  const auto kind = comment.objtype();
  if (kind == pg_query::OBJECT_SCHEMA) {
    const std::string& name = comment.object().string().sval();
    const auto schemas = catalog.schemas();
    if (std::none_of(schemas.begin(), schemas.end(), [&](const auto& schema) { return schema.name == name; })) {
      SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", name);
    }
    if (isSystemSchema(name)) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "comments on system schemas are not supported");
    }
    return CommentOn{true, {name, ""}, 0, comment.comment()};
  }
  if (kind != pg_query::OBJECT_TABLE && kind != pg_query::OBJECT_VIEW && kind != pg_query::OBJECT_COLUMN) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COMMENT ON {} is not supported yet",
                    pg_query::ObjectType_Name(kind).substr(std::string_view("OBJECT_").size()));
  }
  std::vector<std::string> names;
  for (const auto& part : comment.object().list().items()) names.push_back(part.string().sval());
  std::string column;
  if (kind == pg_query::OBJECT_COLUMN) {
    if (names.size() < 2) SHOAL_USER_FAIL(SqlState::kSyntaxError, "column name must be qualified");
    column = names.back();
    names.pop_back();
  }
  const std::string relation = names.back();
  if (names.size() > 3) SHOAL_USER_FAIL(SqlState::kSyntaxError, "improper qualified name (too many dotted names)");
  const std::string schema = names.size() > 1 ? names[names.size() - 2] : "";
  std::optional<QualifiedName> resolved = resolveRelation(catalog, schema, relation);
  if (!resolved && !schema.empty()) {
    SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", schema);
  }
  if (resolved && isSystemSchema(resolved->schema)) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "comments on system relations are not supported");
  }
  std::optional<TableDescription> table = resolved ? catalog.findTable(*resolved) : std::nullopt;
  const bool isView = !table && resolved && catalog.findView(*resolved).has_value();
  if (!table && !isView) {
    SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist",
                    schema.empty() ? relation : schema + "." + relation);
  }
  if (kind == pg_query::OBJECT_TABLE && isView) {
    SHOAL_USER_FAIL(SqlState::kWrongObjectType, "\"{}\" is not a table", relation);
  }
  if (kind == pg_query::OBJECT_VIEW && !isView) {
    SHOAL_USER_FAIL(SqlState::kWrongObjectType, "\"{}\" is not a view", relation);
  }
  CommentOn bound{false, *resolved, 0, comment.comment()};
  if (kind == pg_query::OBJECT_COLUMN) {
    std::vector<std::string> columns;
    if (table) {
      for (const auto& each : table->columns) columns.push_back(each.name);
    } else {
      columns = viewColumnNames(*resolved, catalog);
    }
    auto found = std::find(columns.begin(), columns.end(), column);
    if (found == columns.end()) {
      SHOAL_USER_FAIL(SqlState::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", column, relation);
    }
    bound.column = static_cast<int32_t>(found - columns.begin()) + 1;
  }
  return bound;
}

}  // namespace shoal::sql
