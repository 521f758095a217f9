#include "sql/binder/object_identifiers.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <vector>

#include "common/check.h"
#include "common/status.h"
#include "engine/expression/sql_keywords.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/routine_functions.h"
#include "sql/catalog/builtin_routines.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

std::span<const std::pair<int64_t, std::string_view>> baseTypeNames() {
  static constexpr std::pair<int64_t, std::string_view> kNames[] = {
      {16, "boolean"},
      {17, "bytea"},
      {20, "bigint"},
      {21, "smallint"},
      {23, "integer"},
      {25, "text"},
      {700, "real"},
      {701, "double precision"},
      {1042, "character"},
      {1043, "character varying"},
      {1082, "date"},
      {1083, "time without time zone"},
      {1114, "timestamp without time zone"},
      {1184, "timestamp with time zone"},
      {1186, "interval"},
      {2950, "uuid"},
      {1700, "numeric"},
      {22, "int2vector"},
      {114, "json"},
      {3802, "jsonb"},
      {30, "oidvector"},
      // PostgreSQL's pseudo-types, which routines' signatures name (pg_type lists them).
      {32, "pg_ddl_command"},
      {269, "table_am_handler"},
      {325, "index_am_handler"},
      {705, "unknown"},
      {2249, "record"},
      {2275, "cstring"},
      {2276, "\"any\""},
      {2277, "anyarray"},
      {2278, "void"},
      {2279, "trigger"},
      {2280, "language_handler"},
      {2281, "internal"},
      {2283, "anyelement"},
      {2287, "record[]"},
      {2776, "anynonarray"},
      {3115, "fdw_handler"},
      {3310, "tsm_handler"},
      {3500, "anyenum"},
      {3831, "anyrange"},
      {3838, "event_trigger"},
      {4537, "anymultirange"},
      {4538, "anycompatiblemultirange"},
      {5077, "anycompatible"},
      {5078, "anycompatiblearray"},
      {5079, "anycompatiblenonarray"},
      {5080, "anycompatiblerange"},
  };
  return kNames;
}

namespace {

struct NamedOid {
  int64_t oid;
  std::string name;
};

/// format_type's names of the types Shoal has, and of their arrays, which regtype prints.
const std::vector<NamedOid>& typeNames() {
  static const std::vector<NamedOid> names = [] {
    std::vector<NamedOid> all;
    for (const auto& [oid, name] : baseTypeNames()) {
      all.push_back({oid, std::string(name)});
      const uint32_t arrayOid = engine::postgresArrayOid(static_cast<uint32_t>(oid));
      if (arrayOid != 0) all.push_back({arrayOid, std::string(name) + "[]"});
    }
    return all;
  }();
  return names;
}

std::vector<NamedOid> schemaNames(const CatalogReader& catalog) {
  std::vector<NamedOid> names;
  for (auto& schema : catalog.schemas()) names.push_back({schema.oid, engine::quoteIdentifier(schema.name)});
  return names;
}

std::vector<NamedOid> roleNames(const CatalogReader& catalog) {
  std::vector<NamedOid> names;
  for (auto& [oid, name] : catalog.roles()) names.push_back({oid, std::move(name)});
  return names;
}

std::vector<NamedOid> relationNames(const CatalogReader& catalog) {
  std::vector<NamedOid> names;
  for (const auto& relation : catalog.relationVisibility()) {
    std::string name = engine::quoteIdentifier(relation.name);
    if (!relation.visible) name = engine::quoteIdentifier(relation.schema) + "." + name;
    names.push_back({relation.oid, std::move(name)});
  }
  return names;
}

int64_t findNamed(const std::vector<NamedOid>& names, std::string_view name) {
  for (const auto& each : names) {
    if (each.name == name) return each.oid;
  }
  return -1;
}

}  // namespace

std::vector<int64_t> typeOids() {
  std::vector<int64_t> oids;
  for (const auto& type : typeNames()) oids.push_back(type.oid);
  return oids;
}

std::optional<ObjectIdentifierType> objectIdentifierType(std::string_view typeName) {
  if (typeName == "oid") return ObjectIdentifierType::kOid;
  if (typeName == "regclass") return ObjectIdentifierType::kRegclass;
  if (typeName == "regtype") return ObjectIdentifierType::kRegtype;
  if (typeName == "regnamespace") return ObjectIdentifierType::kRegnamespace;
  if (typeName == "regrole") return ObjectIdentifierType::kRegrole;
  if (typeName == "regproc" || typeName == "regprocedure") return ObjectIdentifierType::kRegproc;
  return std::nullopt;
}

std::pair<std::string, std::string> splitQualifiedName(std::string_view text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      if (quoted && i + 1 < text.size() && text[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else if (quoted || !std::isspace(static_cast<unsigned char>(c))) {
      parts.back() += quoted ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (parts.size() == 1) return {"", parts[0]};
  return {parts[parts.size() - 2], parts.back()};
}

std::optional<int64_t> findRelationOid(const CatalogReader& catalog, std::string_view text) {
  auto [schema, name] = splitQualifiedName(text);
  if (!schema.empty() && findNamed(schemaNames(catalog), engine::quoteIdentifier(schema)) < 0) {
    SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", schema);
  }
  // Unqualified: the one the search path finds first.
  for (const auto& relation : catalog.relationVisibility()) {
    if (relation.name != name) continue;
    if (schema.empty() ? relation.visible : relation.schema == schema) return relation.oid;
  }
  return std::nullopt;
}

int64_t objectIdentifierFromText(ObjectIdentifierType type, std::string_view text, const CatalogReader& catalog) {
  if (type != ObjectIdentifierType::kOid && text == "-") return 0;
  // Every type reads a number as the OID itself, as PostgreSQL does.
  int64_t number = 0;
  std::string_view digits = text;
  while (!digits.empty() && std::isspace(static_cast<unsigned char>(digits.front()))) digits.remove_prefix(1);
  while (!digits.empty() && std::isspace(static_cast<unsigned char>(digits.back()))) digits.remove_suffix(1);
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (!digits.empty() && error == std::errc() && end == digits.data() + digits.size() && number >= 0 &&
      number <= 4294967295LL) {
    return number;
  }
  switch (type) {
    case ObjectIdentifierType::kOid:
      SHOAL_USER_FAIL(SqlState::kInvalidTextRepresentation, "invalid input syntax for type oid: \"{}\"", text);
    case ObjectIdentifierType::kRegclass:
      if (auto oid = findRelationOid(catalog, text)) return *oid;
      SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", text);
    case ObjectIdentifierType::kRegnamespace: {
      const int64_t oid = findNamed(schemaNames(catalog), engine::quoteIdentifier(splitQualifiedName(text).second));
      if (oid >= 0) return oid;
      SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", text);
    }
    case ObjectIdentifierType::kRegrole: {
      const int64_t oid = findNamed(roleNames(catalog), splitQualifiedName(text).second);
      if (oid >= 0) return oid;
      SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", text);
    }
    case ObjectIdentifierType::kRegproc:
      return routineOidFromName(text);
    case ObjectIdentifierType::kRegtype:
      break;
  }
  SHOAL_UNREACHABLE("regtype input is parsed by the binder");
}

ExpressionPtr objectIdentifierName(ExpressionPtr oid, ObjectIdentifierType type, const CatalogReader& catalog) {
  std::vector<NamedOid> names;
  switch (type) {
    case ObjectIdentifierType::kOid:
      break;
    case ObjectIdentifierType::kRegproc:
      for (const auto& routine : builtinRoutines()) names.push_back({routine.oid, std::string(routine.name)});
      break;
    case ObjectIdentifierType::kRegclass:
      names = relationNames(catalog);
      break;
    case ObjectIdentifierType::kRegtype:
      names = typeNames();
      break;
    case ObjectIdentifierType::kRegnamespace:
      names = schemaNames(catalog);
      break;
    case ObjectIdentifierType::kRegrole:
      names = roleNames(catalog);
      break;
  }
  if (type != ObjectIdentifierType::kOid) names.push_back({0, "-"});
  // CASE WHEN oid = o1 THEN 'n1' ... ELSE oid::text END: NULL stays NULL, as every comparison is NULL.
  std::vector<ExpressionPtr> arguments;
  for (const auto& named : names) {
    std::vector<ExpressionPtr> operands;
    operands.push_back(copyExpression(*oid));
    operands.push_back(constantOf(Value::bigInt(named.oid)));
    arguments.push_back(functionOf(ScalarFunction::kEqual, LogicalType::boolean(), std::move(operands)));
    arguments.push_back(constantOf(Value::varchar(named.name)));
  }
  ExpressionPtr number = std::make_unique<engine::CastExpression>(std::move(oid), LogicalType::text());
  if (arguments.empty()) return number;
  arguments.push_back(std::move(number));
  return functionOf(ScalarFunction::kCase, LogicalType::text(), std::move(arguments));
}

}  // namespace shoal::sql
