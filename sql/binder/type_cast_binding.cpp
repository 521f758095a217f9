// ExpressionBinder's type names and casts: the SQL spellings of the types Shoal has (with their modifiers:
// numeric(p,s), varchar(n), timestamp(p)), CAST and ::, and COLLATE, which Shoal's byte-wise text accepts only
// for the C collation.

#include <fmt/format.h>

#include <algorithm>

#include "common/status.h"
#include "engine/expression/cast.h"
#include "engine/types/text_format.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/type_coercion.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;
using engine::Value;

LogicalType ExpressionBinder::typeFromName(const pg_query::TypeName& typeName) const {
  std::string name = lastName(typeName.names());
  std::vector<int> modifiers;
  for (const auto& modifier : typeName.typmods()) {
    if (!modifier.has_a_const() || !modifier.a_const().has_ival()) {
      fail(SqlState::kSyntaxError, typeName.location(), "type modifiers must be simple constants");
    }
    modifiers.push_back(modifier.a_const().ival().ival());
  }
  if (auto array = arrayTypeFromName(name, typeName)) return *array;
  try {
    if (name == "int2" || name == "smallint") return LogicalType::smallInt();
    if (name == "int2vector") return LogicalType::int2Vector();
    if (name == "oidvector") return LogicalType::oidVector();
    if (name == "int4" || name == "int" || name == "integer") {
      return LogicalType::integer();
    }
    if (name == "int8" || name == "bigint") return LogicalType::bigInt();
    // The grammar already spells REAL and FLOAT(1..24) float4, DOUBLE PRECISION and FLOAT(25..53) float8.
    if (name == "float4" || name == "real") return LogicalType::real();
    if (name == "float8" || name == "float") return LogicalType::doublePrecision();
    if (name == "numeric" || name == "decimal") {
      if (modifiers.empty()) return LogicalType::unknown();  // unconstrained: decided by the caller
      return LogicalType::decimal(modifiers[0], modifiers.size() > 1 ? modifiers[1] : 0);
    }
    // name (an identifier) and cstring (an I/O routine's text) are text here.
    if (name == "text" || name == "name" || name == "cstring") return LogicalType::text();
    if (name == "varchar") {
      if (!modifiers.empty() && modifiers[0] < 1) {
        fail(SqlState::kInvalidParameterValue, typeName.location(), "length for type varchar must be at least 1");
      }
      return LogicalType::varchar(modifiers.empty() ? 0 : modifiers[0]);
    }
    // bpchar without a length has none (its values keep what they hold); char and character mean char(1).
    if (name == "bpchar" && modifiers.empty()) return LogicalType::text();
    if (name == "bpchar" || name == "char" || name == "character") {
      int length = modifiers.empty() ? 1 : modifiers[0];
      if (length < 1) {
        fail(SqlState::kInvalidParameterValue, typeName.location(), "length for type char must be at least 1");
      }
      return LogicalType::character(static_cast<uint32_t>(length));
    }
    if (name == "date") return LogicalType::date();
    if (name == "timetz") {
      fail(SqlState::kFeatureNotSupported, typeName.location(),
           "time with time zone is not supported yet: use time or timestamp with time zone");
    }
    if (name == "timestamp" || name == "timestamptz" || name == "time") {
      const LogicalType base = name == "time"        ? LogicalType::time()
                               : name == "timestamp" ? LogicalType::timestamp()
                                                     : LogicalType::timestampTz();
      if (modifiers.empty()) return base;
      if (modifiers[0] < 0) {
        fail(SqlState::kInvalidParameterValue, typeName.location(),
             fmt::format("{}({}) precision must not be negative", base.toString(), modifiers[0]));
      }
      // Past 6 PostgreSQL warns and keeps 6, which is what microseconds hold anyway.
      return base.withFractionalDigits(std::min(modifiers[0], LogicalType::kMaxFractionalDigits));
    }
    if (name == "json") return LogicalType::json();
    if (name == "jsonb") return LogicalType::jsonb();
    if (name == "interval") return LogicalType::interval();
    if (name == "uuid") return LogicalType::uuid();
    if (name == "bytea") return LogicalType::bytea();  // its fields and precision restrict literals only
    if (name == "bool" || name == "boolean") return LogicalType::boolean();
  } catch (ShoalError& error) {
    fail(error.status().sqlState(), typeName.location(), error.status().message());
  }
  fail(SqlState::kUndefinedObject, typeName.location(), fmt::format("type \"{}\" does not exist", name));
}

ExpressionPtr ExpressionBinder::bindTypeCast(const pg_query::Node& node) {
  const auto& cast = node.type_cast();
  if (auto type = objectIdentifierCast(node)) return bindObjectIdentifierCast(cast, *type);
  LogicalType target = typeFromName(cast.type_name());
  if (target.id() == TypeId::kInterval) return bindIntervalCast(cast);
  if (target.isString()) {
    // A reg* value cast to text is its name (c.oid::regclass::text).
    auto inner = objectIdentifierCast(cast.arg());
    if (inner && catalog_ != nullptr) {
      return coerce(objectIdentifierName(bind(cast.arg()), *inner, *catalog_), target, cast.location());
    }
  }
  if (target.id() == TypeId::kDouble && cast.arg().has_a_const() && cast.arg().a_const().has_fval()) {
    // 1.5e300::float8 reads the literal as a double directly: it may not fit a 38-digit numeric.
    auto literal = std::make_unique<ConstantExpression>(Value::unknownLiteral(cast.arg().a_const().fval().fval()));
    return coerce(std::move(literal), target, cast.arg().a_const().location());
  }
  if (target.isArray() && cast.arg().has_a_array_expr()) {
    return bindArrayConstructor(cast.arg().a_array_expr(), target.elementType());
  }
  ExpressionPtr child = bind(cast.arg());
  if (child->type().isVector() && target.isArray() && !target.isVector() &&
      target.elementType() == child->type().elementType()) {
    target = LogicalType::zeroBasedArray(target.elementType());  // int2vector::int2[] keeps subscripts from 0
  }
  if (target.id() == TypeId::kUnknown) {
    // Unconstrained NUMERIC keeps the exact digits of what it converts.
    if (isUnknown(child) && child->kind() == ExpressionKind::kConstant &&
        !static_cast<const ConstantExpression&>(*child).value().isNull()) {
      try {
        Value literal = engine::parseNumericLiteral(static_cast<const ConstantExpression&>(*child).value().asString());
        target = literal.type().id() == TypeId::kDecimal ? literal.type() : asDecimal(literal.type());
      } catch (ShoalError& error) {
        fail(error.status().sqlState(), cast.arg().has_a_const() ? cast.arg().a_const().location() : cast.location(),
             error.status().message());
      }
    } else if (child->type().isIntegral() || child->type().id() == TypeId::kDecimal) {
      target = asDecimal(child->type());
    } else {
      constexpr int kDefaultNumericScale = 16;
      target = LogicalType::decimal(LogicalType::kMaxDecimalPrecision, kDefaultNumericScale);
    }
  }
  if (target.isString() && target.maxLength() > 0) {
    // An explicit cast to VARCHAR(n) truncates, even for a literal.
    child = coerce(std::move(child), LogicalType::text(), cast.location());
  }
  // A literal that does not convert is pointed at itself, as PostgreSQL points at it ('40000'::int2).
  return coerce(std::move(child), target, cast.arg().has_a_const() ? cast.arg().a_const().location() : cast.location());
}

ExpressionPtr ExpressionBinder::bindCollate(const pg_query::Node& node) {
  const auto& collate = node.collate_clause();
  std::string collation = lastName(collate.collname());
  ExpressionPtr argument = resolveUnknown(bind(collate.arg()), collate.location());
  if (!argument->type().isString()) {
    fail(SqlState::kDatatypeMismatch, collate.location(),
         fmt::format("collations are not supported by type {}", argument->type().toString()));
  }
  // Text compares byte-wise everywhere in Shoal: the C collation, which "default", "C", "POSIX" and "ucs_basic"
  // (C for UTF8) name. psql's \d spells COLLATE pg_catalog.default in every pattern match.
  if (collation != "default" && collation != "C" && collation != "POSIX" && collation != "ucs_basic") {
    fail(SqlState::kFeatureNotSupported, collate.location(),
         fmt::format("collation \"{}\" is not supported: Shoal compares text byte by byte (collation \"C\")",
                     collation));
  }
  return argument;
}

}  // namespace shoal::sql
