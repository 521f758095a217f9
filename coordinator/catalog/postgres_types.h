#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "engine/types/logical_type.h"

namespace shoal::coordinator {

/// What pg_type and information_schema say of one of the PostgreSQL types Shoal has (PostgreSQL 15's values).
struct PostgresTypeFacts {
  int64_t oid;
  std::string_view name;      // pg_type.typname, information_schema's udt_name
  std::string_view dataType;  // information_schema.columns.data_type
  int16_t length;             // typlen: bytes, or -1 for variable length
  bool byValue;
  char category;  // typcategory: A array, B boolean, N numeric, S string, D date/time
  bool preferred;
  int64_t arrayOid;  // the type of its arrays (typarray)
  char align;
  char storage;
  bool collatable;  // typcollation is "default" (100)
  std::string_view input, output, receive, send, modifierInput, modifierOutput;
  int64_t elementOid = 0;  // typelem: an array type's element type, 0 for the others
  char kind = 'b';         // typtype: b base, p pseudo-type
};

/// Every type Shoal has, in OID order.
std::span<const PostgresTypeFacts> postgresTypes();
/// PostgreSQL's pseudo-types, which pg_type lists after them, in OID order.
std::span<const PostgresTypeFacts> postgresPseudoTypes();
/// The facts of a Shoal type (TEXT and VARCHAR(n) are two PostgreSQL types).
const PostgresTypeFacts& postgresTypeFacts(const engine::LogicalType& type);

/// The default collation's OID, which text columns carry.
inline constexpr int64_t kDefaultCollationOid = 100;

/// information_schema.columns' size facts of a type, NULL (nullopt) where PostgreSQL shows NULL.
struct InformationSchemaSizes {
  std::optional<int32_t> characterMaximumLength;
  std::optional<int32_t> characterOctetLength;
  std::optional<int32_t> numericPrecision;
  std::optional<int32_t> numericPrecisionRadix;
  std::optional<int32_t> numericScale;
  std::optional<int32_t> datetimePrecision;
};
InformationSchemaSizes informationSchemaSizes(const engine::LogicalType& type);

}  // namespace shoal::coordinator
