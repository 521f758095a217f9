#include "coordinator/catalog/postgres_types.h"

#include <array>

#include "common/check.h"

namespace shoal::coordinator {

using engine::TypeId;

namespace {

constexpr std::array<PostgresTypeFacts, 22> kTypes{{
    {16, "bool", "boolean", 1, true, 'B', true, 1000, 'c', 'p', false, "boolin", "boolout", "boolrecv", "boolsend", "-",
     "-"},
    {20, "int8", "bigint", 8, true, 'N', false, 1016, 'd', 'p', false, "int8in", "int8out", "int8recv", "int8send", "-",
     "-"},
    {21, "int2", "smallint", 2, true, 'N', false, 1005, 's', 'p', false, "int2in", "int2out", "int2recv", "int2send",
     "-", "-"},
    {22, "int2vector", "int2vector", -1, false, 'A', false, 0, 'i', 'p', false, "int2vectorin", "int2vectorout",
     "int2vectorrecv", "int2vectorsend", "-", "-", 21},
    {23, "int4", "integer", 4, true, 'N', false, 1007, 'i', 'p', false, "int4in", "int4out", "int4recv", "int4send",
     "-", "-"},
    {25, "text", "text", -1, false, 'S', true, 1009, 'i', 'x', true, "textin", "textout", "textrecv", "textsend", "-",
     "-"},
    {30, "oidvector", "oidvector", -1, false, 'A', false, 0, 'i', 'p', false, "oidvectorin", "oidvectorout",
     "oidvectorrecv", "oidvectorsend", "-", "-", 26},
    {701, "float8", "double precision", 8, true, 'N', true, 1022, 'd', 'p', false, "float8in", "float8out",
     "float8recv", "float8send", "-", "-"},
    {1000, "_bool", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 16},
    {1005, "_int2", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 21},
    {1007, "_int4", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 23},
    {1009, "_text", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', true, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 25},
    {1014, "_bpchar", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', true, "array_in", "array_out", "array_recv",
     "array_send", "bpchartypmodin", "bpchartypmodout", 1042},
    {1015, "_varchar", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', true, "array_in", "array_out", "array_recv",
     "array_send", "varchartypmodin", "varchartypmodout", 1043},
    {1016, "_int8", "ARRAY", -1, false, 'A', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 20},
    {1022, "_float8", "ARRAY", -1, false, 'A', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 701},
    {1042, "bpchar", "character", -1, false, 'S', false, 1014, 'i', 'x', true, "bpcharin", "bpcharout", "bpcharrecv",
     "bpcharsend", "bpchartypmodin", "bpchartypmodout"},
    {1043, "varchar", "character varying", -1, false, 'S', false, 1015, 'i', 'x', true, "varcharin", "varcharout",
     "varcharrecv", "varcharsend", "varchartypmodin", "varchartypmodout"},
    {1082, "date", "date", 4, true, 'D', false, 1182, 'i', 'p', false, "date_in", "date_out", "date_recv", "date_send",
     "-", "-"},
    {1182, "_date", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 1082},
    {1231, "_numeric", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "numerictypmodin", "numerictypmodout", 1700},
    {1700, "numeric", "numeric", -1, false, 'N', false, 1231, 'i', 'm', false, "numeric_in", "numeric_out",
     "numeric_recv", "numeric_send", "numerictypmodin", "numerictypmodout"},
}};

// Bytes a character takes at most in UTF8, the only server encoding.
constexpr int32_t kMaxBytesPerCharacter = 4;
// What PostgreSQL shows as the octet length of text and unbounded varchar (1 GB).
constexpr int32_t kUnboundedOctetLength = 1073741824;

}  // namespace

std::span<const PostgresTypeFacts> postgresTypes() {
  return kTypes;
}

const PostgresTypeFacts& postgresTypeFacts(const engine::LogicalType& type) {
  const int64_t oid = type.postgresOid();
  for (const auto& facts : kTypes) {
    if (facts.oid == oid) return facts;
  }
  SHOAL_UNREACHABLE("no pg_type facts for a Shoal type");
}

InformationSchemaSizes informationSchemaSizes(const engine::LogicalType& type) {
  InformationSchemaSizes sizes;
  switch (type.id()) {
    case TypeId::kSmallInt:
      return {std::nullopt, std::nullopt, 16, 2, 0, std::nullopt};
    case TypeId::kInteger:
      return {std::nullopt, std::nullopt, 32, 2, 0, std::nullopt};
    case TypeId::kBigInt:
      return {std::nullopt, std::nullopt, 64, 2, 0, std::nullopt};
    case TypeId::kDouble:
      return {std::nullopt, std::nullopt, 53, 2, std::nullopt, std::nullopt};
    case TypeId::kDecimal:
      return {std::nullopt, std::nullopt, type.precision(), 10, type.scale(), std::nullopt};
    case TypeId::kDate:
      sizes.datetimePrecision = 0;
      return sizes;
    case TypeId::kVarchar:
    case TypeId::kChar:
      if (type.maxLength() == 0) {
        sizes.characterOctetLength = kUnboundedOctetLength;
      } else {
        sizes.characterMaximumLength = static_cast<int32_t>(type.maxLength());
        sizes.characterOctetLength = static_cast<int32_t>(type.maxLength()) * kMaxBytesPerCharacter;
      }
      return sizes;
    case TypeId::kBoolean:
    case TypeId::kUnknown:
    case TypeId::kArray:
      return sizes;
  }
  return sizes;
}

}  // namespace shoal::coordinator
