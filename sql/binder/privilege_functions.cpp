#include "sql/binder/privilege_functions.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "common/status.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/object_identifiers.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

enum class ObjectKind { kTable, kSchema, kDatabase };

struct PrivilegeFunction {
  std::string_view name;
  ObjectKind kind;
  std::vector<std::string_view> privileges;  // in upper case
};

const std::vector<PrivilegeFunction>& privilegeFunctions() {
  static const std::vector<PrivilegeFunction> functions = {
      {"has_table_privilege",
       ObjectKind::kTable,
       {"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}},
      {"has_schema_privilege", ObjectKind::kSchema, {"CREATE", "USAGE"}},
      {"has_database_privilege", ObjectKind::kDatabase, {"CREATE", "CONNECT", "TEMPORARY", "TEMP"}},
  };
  return functions;
}

std::string trimmed(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\n");
  size_t end = text.find_last_not_of(" \t\n");
  return begin == std::string_view::npos ? "" : std::string(text.substr(begin, end - begin + 1));
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

/// A privilege list ("select, insert WITH GRANT OPTION") checked against those of `function`: the
/// privileges asked for, and those asked for with grant option.
std::pair<AclMode, AclMode> parsePrivileges(const PrivilegeFunction& function, std::string_view list) {
  std::pair<AclMode, AclMode> asked{0, 0};
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string_view item =
        list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::string privilege = trimmed(item);
    constexpr std::string_view kGrantOption = " WITH GRANT OPTION";
    bool withGrantOption = false;
    if (upper(privilege).ends_with(kGrantOption)) {
      privilege = trimmed(std::string_view(privilege).substr(0, privilege.size() - kGrantOption.size()));
      withGrantOption = true;
    }
    if (std::find(function.privileges.begin(), function.privileges.end(), upper(privilege)) ==
        function.privileges.end()) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "unrecognized privilege type: \"{}\"", privilege);
    }
    const AclMode bit = *privilegeNamed(privilege);
    (withGrantOption ? asked.second : asked.first) |= bit;
    if (comma == std::string_view::npos) return asked;
    start = comma + 1;
  }
}

/// PostgreSQL's answer: whether the role holds any of the privileges asked for.
bool holdsAny(const std::optional<HeldPrivileges>& held, std::pair<AclMode, AclMode> asked) {
  return held && ((held->privileges & asked.first) != 0 || (held->grantOptions & asked.second) != 0);
}

/// TRUE when `oid` is one of `granted`, FALSE when it is one of `denied`, else NULL: what PostgreSQL answers
/// for an OID that names nothing.
ExpressionPtr answerByOid(ExpressionPtr oid, const std::vector<int64_t>& granted, const std::vector<int64_t>& denied) {
  auto isOneOf = [&](const std::vector<int64_t>& oids) {
    std::vector<ExpressionPtr> terms;
    for (int64_t each : oids) {
      std::vector<ExpressionPtr> operands;
      operands.push_back(copyExpression(*oid));
      operands.push_back(constantOf(Value::bigInt(each)));
      terms.push_back(std::make_unique<engine::FunctionExpression>(ScalarFunction::kEqual, std::move(operands),
                                                                   LogicalType::boolean()));
    }
    return terms.empty() ? constantOf(Value::boolean(false)) : combineBalanced(ScalarFunction::kOr, std::move(terms));
  };
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(isOneOf(granted));
  arguments.push_back(constantOf(Value::boolean(true)));
  arguments.push_back(isOneOf(denied));
  arguments.push_back(constantOf(Value::boolean(false)));
  arguments.push_back(constantOf(Value::null(LogicalType::boolean())));
  return std::make_unique<engine::FunctionExpression>(ScalarFunction::kCase, std::move(arguments),
                                                      LogicalType::boolean());
}

}  // namespace

bool isPrivilegeFunction(std::string_view name) {
  const auto& functions = privilegeFunctions();
  return std::any_of(functions.begin(), functions.end(), [&](const auto& function) { return function.name == name; });
}

ExpressionPtr bindPrivilegeFunction(std::string_view name, std::vector<ExpressionPtr> arguments,
                                    const CatalogReader& catalog) {
  const auto& functions = privilegeFunctions();
  const PrivilegeFunction& function =
      *std::find_if(functions.begin(), functions.end(), [&](const auto& each) { return each.name == name; });
  const auto null = [] { return constantOf(Value::null(LogicalType::boolean())); };
  const size_t objectIndex = arguments.size() - 2;
  // The privileges: a constant, checked now.
  std::optional<Value> privileges = literalBeneathCasts(*arguments.back());
  if (!privileges) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "{}'s privileges must be a constant", name);
  // The role: the one given (by name or OID), or the session's.
  bool anyNull = privileges->isNull();
  std::string role = catalog.session() != nullptr ? catalog.session()->user : std::string(kOwnerRoleName);
  if (arguments.size() == 3) {
    std::optional<Value> given = literalBeneathCasts(*arguments[0]);
    if (!given) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "{}'s role must be a constant", name);
    if (given->isNull()) {
      anyNull = true;
    } else if (arguments[0]->type().isIntegral()) {
      const int64_t oid = std::holds_alternative<int64_t>(given->storage())   ? given->asInt64()
                          : std::holds_alternative<int32_t>(given->storage()) ? given->asInt32()
                                                                              : -1;
      auto named = catalog.roleName(oid);
      if (!named) anyNull = true;  // an OID that names no role: NULL, as in PostgreSQL
      if (named) role = *named;
    } else {
      role = given->asString();
      if (!catalog.databasePrivileges(role))
        SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", role);
    }
  }
  ExpressionPtr& object = arguments[objectIndex];
  if (object->type().isIntegral()) {  // an OID
    std::pair<AclMode, AclMode> asked{0, 0};
    if (!privileges->isNull()) asked = parsePrivileges(function, privileges->asString());
    if (anyNull) return null();
    std::vector<int64_t> granted, denied;
    auto answer = [&](int64_t oid, const std::optional<HeldPrivileges>& held) {
      (holdsAny(held, asked) ? granted : denied).push_back(oid);
    };
    switch (function.kind) {
      case ObjectKind::kTable:
        for (const auto& relation : catalog.relationVisibility()) {
          answer(relation.oid, catalog.relationPrivileges(role, {relation.schema, relation.name}));
        }
        break;
      case ObjectKind::kSchema:
        for (const auto& schema : catalog.schemas()) answer(schema.oid, catalog.schemaPrivileges(role, schema.name));
        break;
      case ObjectKind::kDatabase:
        answer(kDatabaseOid, catalog.databasePrivileges(role));
        break;
    }
    return answerByOid(std::make_unique<engine::CastExpression>(std::move(object), LogicalType::bigInt()), granted,
                       denied);
  }
  std::optional<Value> objectName = literalBeneathCasts(*object);
  if (!objectName)
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "{}'s object must be a constant name or an OID", name);
  if (objectName->isNull()) return null();
  const std::string text = objectName->asString();
  std::optional<HeldPrivileges> held;
  switch (function.kind) {
    case ObjectKind::kTable: {
      auto oid = findRelationOid(catalog, text);
      if (!oid) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", text);
      for (const auto& relation : catalog.relationVisibility()) {
        if (relation.oid == *oid) held = catalog.relationPrivileges(role, {relation.schema, relation.name});
      }
      break;
    }
    case ObjectKind::kSchema: {
      const auto schemas = catalog.schemas();
      if (std::none_of(schemas.begin(), schemas.end(), [&](const auto& schema) { return schema.name == text; })) {
        SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", text);
      }
      held = catalog.schemaPrivileges(role, text);
      break;
    }
    case ObjectKind::kDatabase: {
      const SessionInfo* session = catalog.session();
      if (!session || text != session->database) {
        SHOAL_USER_FAIL(SqlState::kInvalidCatalogName, "database \"{}\" does not exist", text);
      }
      held = catalog.databasePrivileges(role);
      break;
    }
  }
  if (privileges->isNull()) return null();
  const auto asked = parsePrivileges(function, privileges->asString());
  return anyNull ? null() : constantOf(Value::boolean(holdsAny(held, asked)));
}

}  // namespace shoal::sql
