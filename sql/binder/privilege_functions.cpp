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

/// Checks a privilege list ("select, insert WITH GRANT OPTION") against those of `function`.
void checkPrivileges(const PrivilegeFunction& function, std::string_view list) {
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string_view item =
        list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::string privilege = trimmed(item);
    constexpr std::string_view kGrantOption = " WITH GRANT OPTION";
    if (upper(privilege).ends_with(kGrantOption)) {
      privilege = trimmed(std::string_view(privilege).substr(0, privilege.size() - kGrantOption.size()));
    }
    if (std::find(function.privileges.begin(), function.privileges.end(), upper(privilege)) ==
        function.privileges.end()) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "unrecognized privilege type: \"{}\"", privilege);
    }
    if (comma == std::string_view::npos) return;
    start = comma + 1;
  }
}

/// TRUE when `oid` is one of `oids`, else NULL: what PostgreSQL answers for an OID that names nothing.
ExpressionPtr trueForKnownOids(ExpressionPtr oid, const std::vector<int64_t>& oids) {
  std::vector<ExpressionPtr> terms;
  for (int64_t each : oids) {
    std::vector<ExpressionPtr> operands;
    operands.push_back(copyExpression(*oid));
    operands.push_back(constantOf(Value::bigInt(each)));
    terms.push_back(std::make_unique<engine::FunctionExpression>(ScalarFunction::kEqual, std::move(operands),
                                                                 LogicalType::boolean()));
  }
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(terms.empty() ? constantOf(Value::boolean(false))
                                    : combineBalanced(ScalarFunction::kOr, std::move(terms)));
  arguments.push_back(constantOf(Value::boolean(true)));
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
  // The role, when given: one that exists (every role has every privilege on everything here).
  bool anyNull = privileges->isNull();
  if (arguments.size() == 3 && !arguments[0]->type().isIntegral()) {
    std::optional<Value> role = literalBeneathCasts(*arguments[0]);
    if (!role) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "{}'s role must be a constant", name);
    if (role->isNull()) {
      anyNull = true;
    } else {
      const std::string roleName = role->asString();
      const SessionInfo* session = catalog.session();
      if (roleName != kOwnerRoleName && roleName != kDatabaseOwnerRoleName && !(session && roleName == session->user)) {
        SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", roleName);
      }
    }
  }
  ExpressionPtr& object = arguments[objectIndex];
  if (object->type().isIntegral()) {  // an OID
    if (!privileges->isNull()) checkPrivileges(function, privileges->asString());
    if (anyNull) return null();
    std::vector<int64_t> oids;
    switch (function.kind) {
      case ObjectKind::kTable:
        for (const auto& relation : catalog.relationVisibility()) oids.push_back(relation.oid);
        break;
      case ObjectKind::kSchema:
        for (const auto& schema : catalog.schemas()) oids.push_back(schema.oid);
        break;
      case ObjectKind::kDatabase:
        oids = {kDatabaseOid};
        break;
    }
    return trueForKnownOids(std::make_unique<engine::CastExpression>(std::move(object), LogicalType::bigInt()), oids);
  }
  std::optional<Value> objectName = literalBeneathCasts(*object);
  if (!objectName)
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "{}'s object must be a constant name or an OID", name);
  if (objectName->isNull()) return null();
  const std::string text = objectName->asString();
  switch (function.kind) {
    case ObjectKind::kTable:
      if (!findRelationOid(catalog, text))
        SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", text);
      break;
    case ObjectKind::kSchema: {
      const auto schemas = catalog.schemas();
      if (std::none_of(schemas.begin(), schemas.end(), [&](const auto& schema) { return schema.name == text; })) {
        SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", text);
      }
      break;
    }
    case ObjectKind::kDatabase: {
      const SessionInfo* session = catalog.session();
      if (!session || text != session->database) {
        SHOAL_USER_FAIL(SqlState::kInvalidCatalogName, "database \"{}\" does not exist", text);
      }
      break;
    }
  }
  if (privileges->isNull()) return null();
  checkPrivileges(function, privileges->asString());
  return anyNull ? null() : constantOf(Value::boolean(true));
}

}  // namespace shoal::sql
