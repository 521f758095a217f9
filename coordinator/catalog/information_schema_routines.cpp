#include "coordinator/catalog/information_schema_routines.h"

#include <algorithm>
#include <cctype>

#include "coordinator/catalog/postgres_types.h"
#include "sql/binder/catalog_reader.h"
#include "sql/catalog/builtin_routines.h"

namespace shoal::coordinator {

namespace value = system_value;
namespace type = system_type;

namespace {

constexpr int64_t kRoutinesOid = 13377;  // PostgreSQL 15's
// pg_language's OIDs, and the names routine_body and external_language are made of.
constexpr int64_t kInternalLanguage = 12;
constexpr int64_t kCLanguage = 13;
constexpr int64_t kSqlLanguage = 14;

// The columns in PostgreSQL's order; true for a cardinal_number (integer), false for text.
constexpr std::pair<std::string_view, bool> kColumns[] = {
    {"specific_catalog", false},
    {"specific_schema", false},
    {"specific_name", false},
    {"routine_catalog", false},
    {"routine_schema", false},
    {"routine_name", false},
    {"routine_type", false},
    {"module_catalog", false},
    {"module_schema", false},
    {"module_name", false},
    {"udt_catalog", false},
    {"udt_schema", false},
    {"udt_name", false},
    {"data_type", false},
    {"character_maximum_length", true},
    {"character_octet_length", true},
    {"character_set_catalog", false},
    {"character_set_schema", false},
    {"character_set_name", false},
    {"collation_catalog", false},
    {"collation_schema", false},
    {"collation_name", false},
    {"numeric_precision", true},
    {"numeric_precision_radix", true},
    {"numeric_scale", true},
    {"datetime_precision", true},
    {"interval_type", false},
    {"interval_precision", true},
    {"type_udt_catalog", false},
    {"type_udt_schema", false},
    {"type_udt_name", false},
    {"scope_catalog", false},
    {"scope_schema", false},
    {"scope_name", false},
    {"maximum_cardinality", true},
    {"dtd_identifier", false},
    {"routine_body", false},
    {"routine_definition", false},
    {"external_name", false},
    {"external_language", false},
    {"parameter_style", false},
    {"is_deterministic", false},
    {"sql_data_access", false},
    {"is_null_call", false},
    {"sql_path", false},
    {"schema_level_routine", false},
    {"max_dynamic_result_sets", true},
    {"is_user_defined_cast", false},
    {"is_implicitly_invocable", false},
    {"security_type", false},
    {"to_sql_specific_catalog", false},
    {"to_sql_specific_schema", false},
    {"to_sql_specific_name", false},
    {"as_locator", false},
    {"created", false},
    {"last_altered", false},
    {"new_savepoint_level", false},
    {"is_udt_dependent", false},
    {"result_cast_from_data_type", false},
    {"result_cast_as_locator", false},
    {"result_cast_char_max_length", true},
    {"result_cast_char_octet_length", true},
    {"result_cast_char_set_catalog", false},
    {"result_cast_char_set_schema", false},
    {"result_cast_char_set_name", false},
    {"result_cast_collation_catalog", false},
    {"result_cast_collation_schema", false},
    {"result_cast_collation_name", false},
    {"result_cast_numeric_precision", true},
    {"result_cast_numeric_precision_radix", true},
    {"result_cast_numeric_scale", true},
    {"result_cast_datetime_precision", true},
    {"result_cast_interval_type", false},
    {"result_cast_interval_precision", true},
    {"result_cast_type_udt_catalog", false},
    {"result_cast_type_udt_schema", false},
    {"result_cast_type_udt_name", false},
    {"result_cast_scope_catalog", false},
    {"result_cast_scope_schema", false},
    {"result_cast_scope_name", false},
    {"result_cast_maximum_cardinality", true},
    {"result_cast_dtd_identifier", false},
};

const PostgresTypeFacts* findType(int64_t oid) {
  for (auto types : {postgresTypes(), postgresPseudoTypes()}) {
    auto found = std::find_if(types.begin(), types.end(), [&](const auto& facts) { return facts.oid == oid; });
    if (found != types.end()) return &*found;
  }
  return nullptr;
}

std::string_view languageName(int64_t language) {
  switch (language) {
    case kInternalLanguage:
      return "internal";
    case kCLanguage:
      return "c";
    case kSqlLanguage:
      return "sql";
    default:
      return "";
  }
}

std::string upper(std::string_view text) {
  std::string result(text);
  for (char& c : result) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

SystemRows routineRows(const SystemScanContext& context) {
  SystemRows rows;
  for (const auto& routine : sql::builtinRoutines()) {
    std::vector<engine::Value> row;
    row.reserve(std::size(kColumns));
    // Every column NULL, then the ones PostgreSQL fills.
    for (const auto& [name, number] : kColumns) row.push_back(number ? value::nullInteger() : value::nullText());
    auto set = [&](std::string_view column, engine::Value cell) {
      for (size_t i = 0; i < std::size(kColumns); ++i) {
        if (kColumns[i].first == column) row[i] = std::move(cell);
      }
    };
    const std::string database = context.database;
    const std::string_view language = languageName(routine.language);
    set("specific_catalog", value::text(database));
    set("specific_schema", value::text(sql::kPgCatalogSchema));
    set("specific_name", value::text(std::string(routine.name) + "_" + std::to_string(routine.oid)));
    set("routine_catalog", value::text(database));
    set("routine_schema", value::text(sql::kPgCatalogSchema));
    set("routine_name", value::text(routine.name));
    // Aggregates and window functions have no routine type in the standard's terms.
    if (routine.kind == 'f') set("routine_type", value::text("FUNCTION"));
    const PostgresTypeFacts* result = findType(routine.resultType);
    if (result == nullptr) {
      set("data_type", value::text("USER-DEFINED"));
    } else {
      set("data_type", value::text(result->elementOid != 0 && result->length == -1 ? "ARRAY" : result->dataType));
      set("type_udt_catalog", value::text(database));
      set("type_udt_schema", value::text(sql::kPgCatalogSchema));
      set("type_udt_name", value::text(result->name));
    }
    set("dtd_identifier", value::text("0"));
    set("routine_body", value::text(language == "sql" ? "SQL" : "EXTERNAL"));
    set("routine_definition", value::text(routine.source));
    if (language == "c") set("external_name", value::text(routine.source));
    set("external_language", value::text(upper(language)));
    set("parameter_style", value::text("GENERAL"));
    set("is_deterministic", value::yesOrNo(routine.volatility == 'i'));
    set("sql_data_access", value::text("MODIFIES"));
    set("is_null_call", value::yesOrNo(routine.strict));
    set("schema_level_routine", value::text("YES"));
    set("max_dynamic_result_sets", value::integer(0));
    set("security_type", value::text("INVOKER"));
    set("as_locator", value::text("NO"));
    set("is_udt_dependent", value::text("NO"));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

SystemRelation informationSchemaRoutines() {
  std::vector<sql::ColumnDescription> columns;
  for (const auto& [name, number] : kColumns) {
    columns.push_back({std::string(name), number ? type::integer() : type::text()});
  }
  return {std::string(sql::kInformationSchema), "routines", kRoutinesOid, 'v', std::move(columns), routineRows};
}

}  // namespace shoal::coordinator
