#include "sql/binder/catalog_functions.h"
#include "sql/binder/search_path.h"

#include <functional>
#include <vector>

#include <fmt/format.h>

#include "common/check.h"
#include "engine/expression/expression.h"
#include "engine/expression/sql_keywords.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/object_identifiers.h"
#include "sql/binder/routine_functions.h"
#include "sql/parser/view_definition.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

/// `oid = o1 OR oid = o2 ...`; FALSE for no OIDs.
ExpressionPtr oneOf(const ExpressionPtr& oid, const std::vector<int64_t>& oids) {
  if (oids.empty()) return constantOf(Value::boolean(false));
  std::vector<ExpressionPtr> terms;
  for (int64_t each : oids) {
    terms.push_back(binaryOf(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(*oid),
                             constantOf(Value::bigInt(each))));
  }
  return combineBalanced(ScalarFunction::kOr, std::move(terms));
}

ExpressionPtr userById(ExpressionPtr oid, const CatalogReader& catalog) {
  // CASE WHEN oid = 10 THEN 'shoal' WHEN oid = 6171 THEN 'pg_database_owner' ...
  // ELSE 'unknown (OID=' || oid::text || ')' END
  std::vector<ExpressionPtr> arguments;
  for (const auto& [roleOid, roleName] : catalog.roles()) {
    arguments.push_back(binaryOf(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(*oid),
                                 constantOf(Value::bigInt(roleOid))));
    arguments.push_back(constantOf(Value::varchar(std::string(roleName))));
  }
  ExpressionPtr asText = std::make_unique<engine::CastExpression>(std::move(oid), LogicalType::text());
  arguments.push_back(binaryOf(ScalarFunction::kConcat, LogicalType::text(),
                               binaryOf(ScalarFunction::kConcat, LogicalType::text(),
                                        constantOf(Value::varchar("unknown (OID=")), std::move(asText)),
                               constantOf(Value::varchar(")"))));
  return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
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
  arguments.push_back(constantOf(Value::boolean(true)));
  arguments.push_back(oneOf(oid, hidden));
  arguments.push_back(constantOf(Value::boolean(false)));
  arguments.push_back(constantOf(Value::null(LogicalType::boolean())));
  return functionOf(ScalarFunction::kCase, LogicalType::boolean(), std::move(arguments));
}

ExpressionPtr relationIsPublishable(ExpressionPtr oid, const CatalogReader& catalog) {
  // User tables could be published (PostgreSQL's logical replication); views and system relations not.
  std::vector<int64_t> tables;
  std::vector<int64_t> others;
  for (const auto& relation : catalog.relationVisibility()) {
    const bool table = relation.kind == 'r' && !isSystemSchema(relation.schema);
    (table ? tables : others).push_back(relation.oid);
  }
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(oneOf(oid, tables));
  arguments.push_back(constantOf(Value::boolean(true)));
  arguments.push_back(oneOf(oid, others));
  arguments.push_back(constantOf(Value::boolean(false)));
  arguments.push_back(constantOf(Value::null(LogicalType::boolean())));
  return functionOf(ScalarFunction::kCase, LogicalType::boolean(), std::move(arguments));
}

ExpressionPtr typeIsVisible(ExpressionPtr oid) {
  // Every type Shoal has lives in pg_catalog, which is always searched: TRUE for them, NULL for other OIDs.
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(oneOf(oid, typeOids()));
  arguments.push_back(constantOf(Value::boolean(true)));
  arguments.push_back(constantOf(Value::null(LogicalType::boolean())));
  return functionOf(ScalarFunction::kCase, LogicalType::boolean(), std::move(arguments));
}

ExpressionPtr text(std::string_view value) {
  return constantOf(Value::varchar(std::string(value)));
}

ExpressionPtr asText(ExpressionPtr value) {
  return std::make_unique<engine::CastExpression>(std::move(value), LogicalType::text());
}

ExpressionPtr concat(ExpressionPtr left, ExpressionPtr right) {
  return binaryOf(ScalarFunction::kConcat, LogicalType::text(), std::move(left), std::move(right));
}

ExpressionPtr isNull(const ExpressionPtr& value) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(copyExpression(*value));
  return functionOf(ScalarFunction::kIsNull, LogicalType::boolean(), std::move(arguments));
}

ExpressionPtr equals(const ExpressionPtr& value, Value other) {
  return binaryOf(ScalarFunction::kEqual, LogicalType::boolean(), copyExpression(*value), constantOf(std::move(other)));
}

ExpressionPtr encodingName(ExpressionPtr encoding) {
  // CASE encoding WHEN 6 THEN 'UTF8' WHEN 0 THEN 'SQL_ASCII' ELSE '' END; NULL for NULL.
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(isNull(encoding));
  arguments.push_back(constantOf(Value::null(LogicalType::text())));
  for (auto [number, name] : {std::pair{6, "UTF8"}, std::pair{0, "SQL_ASCII"}}) {
    arguments.push_back(equals(encoding, Value::integer(number)));
    arguments.push_back(text(name));
  }
  arguments.push_back(text(""));
  return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
}

/// format_type(type, typmod) for the types Shoal has, as PostgreSQL 15 spells them; '???' for another OID.
ExpressionPtr formatType(ExpressionPtr type, ExpressionPtr typmod) {
  auto modifier = [&] {  // typmod - 4: the length of a string type, or numeric's packed precision and scale
    return binaryOf(ScalarFunction::kSubtract, LogicalType::integer(), copyExpression(*typmod),
                    constantOf(Value::integer(4)));
  };
  auto hasModifier = [&] {
    return binaryOf(ScalarFunction::kGreaterEqual, LogicalType::boolean(), copyExpression(*typmod),
                    constantOf(Value::integer(4)));
  };
  auto withModifier = [&](ExpressionPtr formatted, ExpressionPtr otherwise) {
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(hasModifier());
    arguments.push_back(std::move(formatted));
    arguments.push_back(std::move(otherwise));
    return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
  };
  auto sized = [&](std::string_view name) {
    return concat(concat(text(std::string(name) + "("), asText(modifier())), text(")"));
  };
  // The types with modifiers, each built afresh where it is used.
  auto varcharText = [&] { return withModifier(sized("character varying"), text("character varying")); };
  auto bpcharText = [&] {
    // bpchar without a modifier: "character" when none was given (NULL), "bpchar" for -1, as PostgreSQL shows.
    std::vector<ExpressionPtr> unsized;
    unsized.push_back(isNull(typmod));
    unsized.push_back(text("character"));
    unsized.push_back(text("bpchar"));
    return withModifier(sized("character"), functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(unsized)));
  };
  // timestamp(p) and the like: the digits go between the name and its zone words; typmod is p itself.
  auto fractionalText = [&](std::string_view name, std::string_view zone) {
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(binaryOf(ScalarFunction::kGreaterEqual, LogicalType::boolean(), copyExpression(*typmod),
                                 constantOf(Value::integer(0))));
    arguments.push_back(
        concat(concat(text(std::string(name) + "("), asText(copyExpression(*typmod))), text(std::string(zone))));
    arguments.push_back(text(std::string(name) + std::string(zone).substr(1)));
    return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
  };
  auto timestampText = [&] { return fractionalText("timestamp", ") without time zone"); };
  auto timestampTzText = [&] { return fractionalText("timestamp", ") with time zone"); };
  auto timeText = [&] { return fractionalText("time", ") without time zone"); };
  auto numericText = [&] {
    // numeric(p,s): typmod - 4 packs the precision above 16 bits and the scale below.
    ExpressionPtr precision =
        binaryOf(ScalarFunction::kDivide, LogicalType::integer(), modifier(), constantOf(Value::integer(65536)));
    ExpressionPtr scale =
        binaryOf(ScalarFunction::kModulo, LogicalType::integer(), modifier(), constantOf(Value::integer(65536)));
    return withModifier(concat(concat(concat(concat(text("numeric("), asText(std::move(precision))), text(",")),
                                      asText(std::move(scale))),
                               text(")")),
                        text("numeric"));
  };
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(isNull(type));
  arguments.push_back(constantOf(Value::null(LogicalType::text())));
  for (auto [oid, name] : baseTypeNames()) {
    if (oid == 1042 || oid == 1043 || oid == 1700 || oid == 1114 || oid == 1184 || oid == 1083) continue;  // below
    // Arrays print as their element type does, with [].
    if (const uint32_t arrayOid = engine::postgresArrayOid(static_cast<uint32_t>(oid)); arrayOid != 0) {
      arguments.push_back(equals(type, Value::bigInt(arrayOid)));
      arguments.push_back(text(std::string(name) + "[]"));
    }
    arguments.push_back(equals(type, Value::bigInt(oid)));
    arguments.push_back(text(std::string(name)));
  }
  for (auto [oid, formatted] : {std::pair<int64_t, std::function<ExpressionPtr()>>{1043, varcharText},
                                {1042, bpcharText},
                                {1700, numericText},
                                {1114, timestampText},
                                {1184, timestampTzText},
                                {1083, timeText}}) {
    arguments.push_back(equals(type, Value::bigInt(oid)));
    arguments.push_back(formatted());
    arguments.push_back(equals(type, Value::bigInt(engine::postgresArrayOid(static_cast<uint32_t>(oid)))));
    arguments.push_back(concat(formatted(), text("[]")));
  }
  arguments.push_back(text("???"));
  return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
}

/// "a, b": the key's columns, quoted where PostgreSQL quotes them.
std::string keyColumnList(const KeyDescription& key) {
  std::string list;
  for (const auto& column : key.columns) list += (list.empty() ? "" : ", ") + engine::quoteIdentifier(column);
  return list;
}

}  // namespace

ExpressionPtr bindViewDefinition(ExpressionPtr oid, const CatalogReader& catalog) {
  std::vector<ExpressionPtr> cases;
  for (const auto& relation : catalog.relationVisibility()) {
    if (relation.kind != 'v' || isSystemSchema(relation.schema)) continue;
    auto view = catalog.findView({relation.schema, relation.name});
    if (!view) continue;
    cases.push_back(equals(oid, Value::bigInt(relation.oid)));
    cases.push_back(constantOf(Value::varchar(viewQueryText(view->query))));
  }
  if (cases.empty()) return constantOf(Value::null(LogicalType::text()));
  cases.push_back(constantOf(Value::null(LogicalType::text())));
  return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(cases));
}

ExpressionPtr bindKeyDefinition(std::string_view name, std::vector<ExpressionPtr> arguments,
                                const CatalogReader& catalog) {
  const bool index = name == "pg_get_indexdef";
  const bool byColumn = index && arguments.size() == 3;
  // CASE WHEN oid = <key's OID> THEN <definition> ... ELSE NULL END, each definition a constant, or for an
  // index column a CASE over the column number.
  std::vector<ExpressionPtr> cases;
  for (const auto& key : catalog.keys()) {
    const std::string indexName = engine::quoteIdentifier(key.name);
    // The pretty form of an index definition leaves out the schema of a table on the search path.
    auto indexDefinition = [&](bool pretty) {
      return fmt::format("CREATE UNIQUE INDEX {} ON {}{} USING btree ({})", indexName,
                         pretty ? "" : engine::quoteIdentifier(key.schema) + ".", engine::quoteIdentifier(key.table),
                         keyColumnList(key));
    };
    const std::string definition =
        index ? indexDefinition(false)
              : fmt::format("{} ({})", key.ordinal == 0 ? "PRIMARY KEY" : "UNIQUE", keyColumnList(key));
    cases.push_back(equals(arguments[0], Value::bigInt(index ? keyIndexOid(key.tableOid, key.ordinal)
                                                             : keyConstraintOid(key.tableOid, key.ordinal))));
    if (!byColumn) {
      cases.push_back(constantOf(Value::varchar(definition)));
      continue;
    }
    std::vector<ExpressionPtr> columns;
    columns.push_back(equals(arguments[1], Value::integer(0)));
    std::vector<ExpressionPtr> prettyOrNot;
    prettyOrNot.push_back(copyExpression(*arguments[2]));
    prettyOrNot.push_back(constantOf(Value::varchar(indexDefinition(true))));
    prettyOrNot.push_back(constantOf(Value::varchar(definition)));
    columns.push_back(functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(prettyOrNot)));
    for (size_t i = 0; i < key.columns.size(); ++i) {
      columns.push_back(equals(arguments[1], Value::integer(static_cast<int32_t>(i + 1))));
      columns.push_back(constantOf(Value::varchar(engine::quoteIdentifier(key.columns[i]))));
    }
    columns.push_back(constantOf(Value::varchar("")));
    cases.push_back(functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(columns)));
  }
  if (cases.empty()) return constantOf(Value::null(LogicalType::text()));
  cases.push_back(constantOf(Value::null(LogicalType::text())));
  return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(cases));
}

std::optional<std::vector<LogicalType>> catalogFunctionSignature(std::string_view name) {
  if (name == "pg_get_userbyid" || name == "pg_table_is_visible" || name == "pg_type_is_visible" ||
      name == "pg_relation_is_publishable" || name == "pg_get_statisticsobjdef_columns" || isRoutineFunction(name)) {
    return std::vector{LogicalType::bigInt()};
  }
  if (name == "pg_encoding_to_char") return std::vector{LogicalType::integer()};
  if (name == "format_type") return std::vector{LogicalType::bigInt(), LogicalType::integer()};
  if (name == "pg_get_serial_sequence") return std::vector{LogicalType::text(), LogicalType::text()};
  return std::nullopt;
}

ExpressionPtr bindCatalogFunction(std::string_view name, std::vector<ExpressionPtr> arguments,
                                  const CatalogReader& catalog) {
  SHOAL_CHECK(catalogFunctionSignature(name) && catalogFunctionSignature(name)->size() == arguments.size(),
              "{} is not a catalog function of {} arguments", name, arguments.size());
  if (name == "pg_get_userbyid") return userById(std::move(arguments[0]), catalog);
  if (name == "pg_table_is_visible") return tableIsVisible(std::move(arguments[0]), catalog);
  if (name == "pg_type_is_visible") return typeIsVisible(std::move(arguments[0]));
  if (name == "pg_encoding_to_char") return encodingName(std::move(arguments[0]));
  if (name == "pg_relation_is_publishable") return relationIsPublishable(std::move(arguments[0]), catalog);
  // Shoal has no extended statistics (CREATE STATISTICS): no OID names one.
  if (name == "pg_get_statisticsobjdef_columns") return constantOf(Value::null(LogicalType::text()));
  if (isRoutineFunction(name)) return bindRoutineFunction(name, std::move(arguments[0]));
  // Shoal has no sequences, serial or identity columns: no column owns one. (PostgreSQL also checks that the
  // table and column exist; SQLAlchemy asks for columns it has just read from pg_attribute.)
  if (name == "pg_get_serial_sequence") return constantOf(Value::null(LogicalType::text()));
  return formatType(std::move(arguments[0]), std::move(arguments[1]));
}

}  // namespace shoal::sql
