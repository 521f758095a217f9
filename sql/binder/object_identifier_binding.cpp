// ExpressionBinder's binding of the object identifier types (object_identifiers.h): x::regclass,
// to_regtype(x), and their names in the select list and as text.

#include <fmt/format.h>

#include <map>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;
using engine::Value;

namespace {

std::string lastNameOf(const google::protobuf::RepeatedPtrField<pg_query::Node>& names) {
  return names.empty() ? std::string() : names.rbegin()->string().sval();
}

/// The type to_regclass(), to_regtype() ... give: the name without "to_".
std::optional<ObjectIdentifierType> lookupFunctionType(std::string_view function) {
  if (!function.starts_with("to_reg")) return std::nullopt;
  auto type = objectIdentifierType(function.substr(3));
  return type == ObjectIdentifierType::kOid ? std::nullopt : type;
}

/// Whether a failure to resolve a name says that nothing has that name (to_regclass() answers NULL then).
bool namesNothing(const ShoalError& error) {
  const auto state = error.status().sqlState();
  return state == SqlState::kUndefinedTable || state == SqlState::kUndefinedObject ||
         state == SqlState::kInvalidSchemaName || state == SqlState::kUndefinedFunction ||
         state == SqlState::kFeatureNotSupported;
}

}  // namespace

std::optional<ObjectIdentifierType> ExpressionBinder::objectIdentifierCast(const pg_query::Node& node) {
  if (node.has_func_call() && node.func_call().args_size() == 1) {
    const std::string function = lastNameOf(node.func_call().funcname());
    if (function == "pg_typeof") return ObjectIdentifierType::kRegtype;
    return lookupFunctionType(function);
  }
  if (!node.has_type_cast() || !node.type_cast().type_name().array_bounds().empty()) return std::nullopt;
  return objectIdentifierType(lastNameOf(node.type_cast().type_name().names()));
}

bool ExpressionBinder::isObjectIdentifierLookup(std::string_view function) {
  return lookupFunctionType(function).has_value();
}

ExpressionPtr ExpressionBinder::bindOutput(const pg_query::Node& node) {
  // A reg* value in the select list prints its name ('lineitem'::regclass shows lineitem).
  auto type = objectIdentifierCast(node);
  if (type && *type != ObjectIdentifierType::kOid && catalog_ != nullptr) {
    return objectIdentifierName(bind(node), *type, *catalog_);
  }
  return bind(node);
}

ExpressionPtr ExpressionBinder::bindObjectIdentifierCast(const pg_query::TypeCast& cast, ObjectIdentifierType type) {
  const std::string typeName = lastNameOf(cast.type_name().names());
  ExpressionPtr child = bind(cast.arg());
  if (child->type().isIntegral()) return coerce(std::move(child), LogicalType::bigInt(), cast.location());
  if (!child->type().isString() && child->type().id() != TypeId::kUnknown) {
    fail(SqlState::kCannotCoerce, cast.location(),
         fmt::format("cannot cast type {} to {}", child->type().toString(), typeName));
  }
  const int location = cast.arg().has_a_const() ? cast.arg().a_const().location() : cast.location();
  return resolveObjectIdentifier(std::move(child), type, typeName, location, false);
}

ExpressionPtr ExpressionBinder::bindObjectIdentifierLookup(std::string_view function,
                                                           std::vector<ExpressionPtr> arguments, int location) {
  // to_regclass(text) and the like: the OID, or NULL where the cast would fail because nothing has the name.
  const ObjectIdentifierType type = *lookupFunctionType(function);
  return resolveObjectIdentifier(std::move(arguments[0]), type, function.substr(3), location, true);
}

ExpressionPtr ExpressionBinder::resolveObjectIdentifier(ExpressionPtr text, ObjectIdentifierType type,
                                                        std::string_view typeName, int location, bool nullWhenMissing) {
  std::optional<Value> name = literalBeneathCasts(*text);
  if (!name && text->kind() == ExpressionKind::kParameter) {
    // $1::regclass: resolved once the value is known (the session binds such a statement again to run it).
    text = coerce(std::move(text), LogicalType::text(), location);
    const size_t index = static_cast<const engine::ParameterExpression&>(*text).index();
    if (index >= parameterValues_.size()) {
      return std::make_unique<engine::CastExpression>(std::move(text), LogicalType::bigInt());
    }
    const Value& value = parameterValues_[index];
    name = value.isNull() ? Value::null(LogicalType::text()) : Value::varchar(value.toString());
  }
  if (!name) {
    if (type == ObjectIdentifierType::kOid) return coerce(std::move(text), LogicalType::bigInt(), location);
    fail(SqlState::kFeatureNotSupported, location, fmt::format("only a constant can be cast to {} so far", typeName));
  }
  const auto null = [] { return std::make_unique<ConstantExpression>(Value::null(LogicalType::bigInt())); };
  if (name->isNull()) return null();
  if (type != ObjectIdentifierType::kOid && catalog_ == nullptr) {
    fail(SqlState::kFeatureNotSupported, location, fmt::format("type {} is not supported here", typeName));
  }
  try {
    const std::string& spelled = name->asString();
    const int64_t oid = type == ObjectIdentifierType::kRegtype && spelled != "-"
                            ? typeOidFromText(spelled)
                            : objectIdentifierFromText(type, spelled, *catalog_);
    return std::make_unique<ConstantExpression>(Value::bigInt(oid));
  } catch (ShoalError& error) {
    if (nullWhenMissing && namesNothing(error)) return null();
    fail(error.status().sqlState(), location, error.status().message());
  }
}

int64_t ExpressionBinder::typeOidFromText(const std::string& text) const {
  // As PostgreSQL's regtypein: the text is parsed as a type name of SQL's grammar ('int4', 'double precision').
  auto invalid = [&] { SHOAL_USER_FAIL(SqlState::kSyntaxError, "invalid type name \"{}\"", text); };
  std::optional<ParsedScript> script;
  try {
    script = ParsedScript::parse("SELECT NULL::" + text);
  } catch (ShoalError&) {
    invalid();
  }
  if (script->numStatements() != 1 || !script->statement(0).has_select_stmt()) invalid();
  const auto& select = script->statement(0).select_stmt();
  if (select.target_list_size() != 1 || !select.target_list(0).res_target().val().has_type_cast() ||
      !select.target_list(0).res_target().name().empty() || select.from_clause_size() != 0 ||
      select.has_where_clause()) {
    invalid();
  }
  const pg_query::TypeName& typeName = select.target_list(0).res_target().val().type_cast().type_name();
  const std::string name = lastNameOf(typeName.names());
  static const std::map<std::string, int64_t, std::less<>> kOtherTypes = {
      {"oid", 26},       {"regclass", 2205}, {"regtype", 2206},      {"regnamespace", 4089},
      {"regrole", 4096}, {"regproc", 24},    {"regprocedure", 2202}, {"varchar", 1043}};
  if (auto other = kOtherTypes.find(name); other != kOtherTypes.end() && typeName.array_bounds().empty()) {
    return other->second;
  }
  try {
    const LogicalType type = typeFromName(typeName);
    return type.id() == TypeId::kUnknown ? 1700 : type.postgresOid();  // unconstrained numeric
  } catch (ShoalError& error) {                                        // its position would be the synthetic query's
    throw ShoalError(Status(error.status().sqlState(), error.status().message()));
  }
}

}  // namespace shoal::sql
