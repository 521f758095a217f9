#include "coordinator/catalog/information_schema.h"

#include <optional>

#include <fmt/format.h>

#include "coordinator/catalog/information_schema_routines.h"
#include "coordinator/catalog/pg_catalog_keys.h"
#include "coordinator/catalog/postgres_types.h"
#include "sql/binder/search_path.h"

namespace shoal::coordinator {

namespace value = system_value;
namespace type = system_type;
using engine::Value;

namespace {

// information_schema's own views, with fixed OIDs of ours (PostgreSQL's depend on the build).
constexpr int64_t kSchemataOid = 13382;
constexpr int64_t kTablesOid = 13425;
constexpr int64_t kColumnsOid = 13295;
constexpr int64_t kViewsOid = 13483;
constexpr int64_t kTableConstraintsOid = 13411;
constexpr int64_t kKeyColumnUsageOid = 13329;

Value number(std::optional<int32_t> number) {
  return number ? value::integer(*number) : value::nullInteger();
}

std::vector<sql::ColumnDescription> named(std::initializer_list<std::string_view> names,
                                          const engine::LogicalType& columnType) {
  std::vector<sql::ColumnDescription> columns;
  for (auto name : names) columns.push_back({std::string(name), columnType});
  return columns;
}

std::vector<sql::ColumnDescription> schemataColumns() {
  return named({"catalog_name", "schema_name", "schema_owner", "default_character_set_catalog",
                "default_character_set_schema", "default_character_set_name", "sql_path"},
               type::text());
}

SystemRows schemataRows(const CatalogSchemaLister& schemas, const SystemScanContext& context) {
  SystemRows rows;
  for (const auto& schema : schemas()) {
    const auto owner = schema.ownerOid == kDatabaseOwnerRoleOid ? kDatabaseOwnerRoleName : kOwnerRoleName;
    rows.push_back({value::text(context.database), value::text(schema.name), value::text(owner), value::nullText(),
                    value::nullText(), value::nullText(), value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> tablesColumns() {
  return named({"table_catalog", "table_schema", "table_name", "table_type", "self_referencing_column_name",
                "reference_generation", "user_defined_type_catalog", "user_defined_type_schema",
                "user_defined_type_name", "is_insertable_into", "is_typed", "commit_action"},
               type::text());
}

SystemRows tablesRows(const CatalogRelationLister& relations, const SystemScanContext& context) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    const bool table = relation.kind == 'r';
    // Only user tables take rows; Shoal's views are not updatable.
    const bool insertable = table && relation.isUserRelation;
    rows.push_back({value::text(context.database), value::text(relation.schema), value::text(relation.name),
                    value::text(sql::isTemporarySchema(relation.schema) ? "LOCAL TEMPORARY"
                                : table                                 ? "BASE TABLE"
                                                                        : "VIEW"),
                    value::nullText(), value::nullText(), value::nullText(), value::nullText(), value::nullText(),
                    value::yesOrNo(insertable), value::yesOrNo(false), value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> columnsColumns() {
  const auto text = type::text();
  const auto number = type::integer();
  return {{"table_catalog", text},
          {"table_schema", text},
          {"table_name", text},
          {"column_name", text},
          {"ordinal_position", number},
          {"column_default", text},
          {"is_nullable", text},
          {"data_type", text},
          {"character_maximum_length", number},
          {"character_octet_length", number},
          {"numeric_precision", number},
          {"numeric_precision_radix", number},
          {"numeric_scale", number},
          {"datetime_precision", number},
          {"interval_type", text},
          {"interval_precision", number},
          {"character_set_catalog", text},
          {"character_set_schema", text},
          {"character_set_name", text},
          {"collation_catalog", text},
          {"collation_schema", text},
          {"collation_name", text},
          {"domain_catalog", text},
          {"domain_schema", text},
          {"domain_name", text},
          {"udt_catalog", text},
          {"udt_schema", text},
          {"udt_name", text},
          {"scope_catalog", text},
          {"scope_schema", text},
          {"scope_name", text},
          {"maximum_cardinality", number},
          {"dtd_identifier", text},
          {"is_self_referencing", text},
          {"is_identity", text},
          {"identity_generation", text},
          {"identity_start", text},
          {"identity_increment", text},
          {"identity_maximum", text},
          {"identity_minimum", text},
          {"identity_cycle", text},
          {"is_generated", text},
          {"generation_expression", text},
          {"is_updatable", text}};
}

SystemRows columnsRows(const CatalogRelationLister& relations, const SystemScanContext& context) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    const bool updatable = relation.kind == 'r' && relation.isUserRelation;
    for (size_t i = 0; i < relation.columns.size(); ++i) {
      const CatalogColumn& column = relation.columns[i];
      const PostgresTypeFacts& facts = postgresTypeFacts(column.type);
      const InformationSchemaSizes sizes = informationSchemaSizes(column.type);
      const auto position = static_cast<int32_t>(i + 1);
      rows.push_back({value::text(context.database),
                      value::text(relation.schema),
                      value::text(relation.name),
                      value::text(column.name),
                      value::integer(position),
                      value::nullText(),
                      value::yesOrNo(!column.notNull),
                      value::text(facts.dataType),
                      number(sizes.characterMaximumLength),
                      number(sizes.characterOctetLength),
                      number(sizes.numericPrecision),
                      number(sizes.numericPrecisionRadix),
                      number(sizes.numericScale),
                      number(sizes.datetimePrecision),
                      value::nullText(),
                      value::nullInteger(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::text(context.database),
                      value::text(kPgCatalogSchema),
                      value::text(facts.name),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullInteger(),
                      value::text(std::to_string(position)),
                      value::yesOrNo(false),
                      value::yesOrNo(false),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::yesOrNo(false),
                      value::text("NEVER"),
                      value::nullText(),
                      value::yesOrNo(updatable)});
    }
  }
  return rows;
}

std::vector<sql::ColumnDescription> viewsColumns() {
  return named({"table_catalog", "table_schema", "table_name", "view_definition", "check_option", "is_updatable",
                "is_insertable_into", "is_trigger_updatable", "is_trigger_deletable", "is_trigger_insertable_into"},
               type::text());
}

SystemRows viewsRows(const CatalogRelationLister& relations, const SystemScanContext& context) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    if (relation.kind != 'v') continue;
    rows.push_back({value::text(context.database), value::text(relation.schema), value::text(relation.name),
                    relation.viewDefinition ? value::text(*relation.viewDefinition) : value::nullText(),
                    value::text("NONE"), value::yesOrNo(false), value::yesOrNo(false), value::yesOrNo(false),
                    value::yesOrNo(false), value::yesOrNo(false)});
  }
  return rows;
}

std::vector<sql::ColumnDescription> tableConstraintsColumns() {
  return named({"constraint_catalog", "constraint_schema", "constraint_name", "table_catalog", "table_schema",
                "table_name", "constraint_type", "is_deferrable", "initially_deferred", "enforced", "nulls_distinct"},
               type::text());
}

SystemRows tableConstraintsRows(const CatalogRelationLister& relations, const SystemScanContext& context) {
  SystemRows rows;
  // nulls_distinct is YES for a UNIQUE constraint (Shoal's treat NULLs as distinct), NULL for the others.
  auto row = [&](const CatalogRelation& table, std::string name, std::string_view type) {
    rows.push_back({value::text(context.database), value::text(table.schema), value::text(name),
                    value::text(context.database), value::text(table.schema), value::text(table.name),
                    value::text(type), value::yesOrNo(false), value::yesOrNo(false), value::yesOrNo(true),
                    type == "UNIQUE" ? value::yesOrNo(true) : value::nullText()});
  };
  for (const auto& relation : relations()) {
    if (!relation.isUserRelation || relation.kind != 'r') continue;
    for (const auto& key : relationKeys(relation)) row(relation, key.name, key.primary() ? "PRIMARY KEY" : "UNIQUE");
    // PostgreSQL 15 shows each NOT NULL column as a CHECK constraint named after the namespace and table OIDs.
    for (size_t i = 0; i < relation.columns.size(); ++i) {
      if (!relation.columns[i].notNull) continue;
      row(relation, fmt::format("{}_{}_{}_not_null", relation.namespaceOid, relation.oid, i + 1), "CHECK");
    }
  }
  return rows;
}

std::vector<sql::ColumnDescription> keyColumnUsageColumns() {
  auto columns = named({"constraint_catalog", "constraint_schema", "constraint_name", "table_catalog", "table_schema",
                        "table_name", "column_name"},
                       type::text());
  columns.push_back({"ordinal_position", type::integer()});
  columns.push_back({"position_in_unique_constraint", type::integer()});
  return columns;
}

SystemRows keyColumnUsageRows(const CatalogRelationLister& relations, const SystemScanContext& context) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    if (!relation.isUserRelation || relation.kind != 'r') continue;
    for (const auto& key : relationKeys(relation)) {
      for (size_t k = 0; k < key.columns.size(); ++k) {
        rows.push_back({value::text(context.database), value::text(relation.schema), value::text(key.name),
                        value::text(context.database), value::text(relation.schema), value::text(relation.name),
                        value::text(relation.columns[key.columns[k]].name), value::integer(static_cast<int64_t>(k + 1)),
                        value::nullInteger()});
      }
    }
  }
  return rows;
}

}  // namespace

std::vector<SystemRelation> informationSchemaRelations(const CatalogRelationLister& relations,
                                                       const CatalogSchemaLister& schemas) {
  const std::string schema(kInformationSchema);
  return {
      {schema, "schemata", kSchemataOid, 'v', schemataColumns(),
       [schemas](const SystemScanContext& context) { return schemataRows(schemas, context); }},
      {schema, "tables", kTablesOid, 'v', tablesColumns(),
       [relations](const SystemScanContext& context) { return tablesRows(relations, context); }},
      {schema, "columns", kColumnsOid, 'v', columnsColumns(),
       [relations](const SystemScanContext& context) { return columnsRows(relations, context); }},
      {schema, "views", kViewsOid, 'v', viewsColumns(),
       [relations](const SystemScanContext& context) { return viewsRows(relations, context); }},
      {schema, "table_constraints", kTableConstraintsOid, 'v', tableConstraintsColumns(),
       [relations](const SystemScanContext& context) { return tableConstraintsRows(relations, context); }},
      {schema, "key_column_usage", kKeyColumnUsageOid, 'v', keyColumnUsageColumns(),
       [relations](const SystemScanContext& context) { return keyColumnUsageRows(relations, context); }},
      informationSchemaRoutines(),
  };
}

}  // namespace shoal::coordinator
