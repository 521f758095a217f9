#include "coordinator/catalog/postgres_types.h"

#include <array>

#include "common/check.h"

namespace shoal::coordinator {

using engine::TypeId;

namespace {

constexpr std::array<PostgresTypeFacts, 43> kTypes{{
    {16, "bool", "boolean", 1, true, 'B', true, 1000, 'c', 'p', false, "boolin", "boolout", "boolrecv", "boolsend", "-",
     "-"},
    {17, "bytea", "bytea", -1, false, 'U', false, 1001, 'i', 'x', false, "byteain", "byteaout", "bytearecv",
     "byteasend", "-", "-"},
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
    // oid: Shoal's OID values are bigint, but routines' signatures name it (array_in(cstring, oid, integer)).
    {26, "oid", "oid", 4, true, 'N', true, 1028, 'i', 'p', false, "oidin", "oidout", "oidrecv", "oidsend", "-", "-"},
    {30, "oidvector", "oidvector", -1, false, 'A', false, 0, 'i', 'p', false, "oidvectorin", "oidvectorout",
     "oidvectorrecv", "oidvectorsend", "-", "-", 26},
    {114, "json", "json", -1, false, 'U', false, 199, 'i', 'x', false, "json_in", "json_out", "json_recv", "json_send",
     "-", "-"},
    {199, "_json", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 114},
    {700, "float4", "real", 4, true, 'N', false, 1021, 'i', 'p', false, "float4in", "float4out", "float4recv",
     "float4send", "-", "-"},
    {701, "float8", "double precision", 8, true, 'N', true, 1022, 'd', 'p', false, "float8in", "float8out",
     "float8recv", "float8send", "-", "-"},
    {1000, "_bool", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 16},
    {1001, "_bytea", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 17},
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
    {1021, "_float4", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 700},
    {1022, "_float8", "ARRAY", -1, false, 'A', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 701},
    {1028, "_oid", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 26},
    {1042, "bpchar", "character", -1, false, 'S', false, 1014, 'i', 'x', true, "bpcharin", "bpcharout", "bpcharrecv",
     "bpcharsend", "bpchartypmodin", "bpchartypmodout"},
    {1043, "varchar", "character varying", -1, false, 'S', false, 1015, 'i', 'x', true, "varcharin", "varcharout",
     "varcharrecv", "varcharsend", "varchartypmodin", "varchartypmodout"},
    {1082, "date", "date", 4, true, 'D', false, 1182, 'i', 'p', false, "date_in", "date_out", "date_recv", "date_send",
     "-", "-"},
    {1182, "_date", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 1082},
    {1083, "time", "time without time zone", 8, true, 'D', false, 1183, 'd', 'p', false, "time_in", "time_out",
     "time_recv", "time_send", "timetypmodin", "timetypmodout"},
    {1183, "_time", "ARRAY", -1, false, 'A', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "timetypmodin", "timetypmodout", 1083},
    {1114, "timestamp", "timestamp without time zone", 8, true, 'D', false, 1115, 'd', 'p', false, "timestamp_in",
     "timestamp_out", "timestamp_recv", "timestamp_send", "timestamptypmodin", "timestamptypmodout"},
    {1115, "_timestamp", "ARRAY", -1, false, 'A', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "timestamptypmodin", "timestamptypmodout", 1114},
    {1184, "timestamptz", "timestamp with time zone", 8, true, 'D', true, 1185, 'd', 'p', false, "timestamptz_in",
     "timestamptz_out", "timestamptz_recv", "timestamptz_send", "timestamptztypmodin", "timestamptztypmodout"},
    {1185, "_timestamptz", "ARRAY", -1, false, 'A', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "timestamptztypmodin", "timestamptztypmodout", 1184},
    {1186, "interval", "interval", 16, false, 'T', true, 1187, 'd', 'p', false, "interval_in", "interval_out",
     "interval_recv", "interval_send", "intervaltypmodin", "intervaltypmodout"},
    {1187, "_interval", "ARRAY", -1, false, 'A', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "intervaltypmodin", "intervaltypmodout", 1186},
    {1231, "_numeric", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "numerictypmodin", "numerictypmodout", 1700},
    // cstring[]: what the typmod input routines take (numerictypmodin).
    {1263, "_cstring", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 2275},
    {1700, "numeric", "numeric", -1, false, 'N', false, 1231, 'i', 'm', false, "numeric_in", "numeric_out",
     "numeric_recv", "numeric_send", "numerictypmodin", "numerictypmodout"},
    {2950, "uuid", "uuid", 16, false, 'U', false, 2951, 'c', 'p', false, "uuid_in", "uuid_out", "uuid_recv",
     "uuid_send", "-", "-"},
    {2951, "_uuid", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 2950},
    {3802, "jsonb", "jsonb", -1, false, 'U', false, 3807, 'i', 'x', false, "jsonb_in", "jsonb_out", "jsonb_recv",
     "jsonb_send", "-", "-"},
    {3807, "_jsonb", "ARRAY", -1, false, 'A', false, 0, 'i', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 3802},
}};

// PostgreSQL 15's pseudo-types (typtype 'p'): no value has them, but routines' signatures name them
// (array_length(anyarray, integer)), and clients that read pg_proc look them up in pg_type.
constexpr std::array<PostgresTypeFacts, 26> kPseudoTypes{{
    {32, "pg_ddl_command", "pg_ddl_command", 8, true, 'P', false, 0, 'd', 'p', false, "pg_ddl_command_in",
     "pg_ddl_command_out", "pg_ddl_command_recv", "pg_ddl_command_send", "-", "-", 0, 'p'},
    {269, "table_am_handler", "table_am_handler", 4, true, 'P', false, 0, 'i', 'p', false, "table_am_handler_in",
     "table_am_handler_out", "-", "-", "-", "-", 0, 'p'},
    {325, "index_am_handler", "index_am_handler", 4, true, 'P', false, 0, 'i', 'p', false, "index_am_handler_in",
     "index_am_handler_out", "-", "-", "-", "-", 0, 'p'},
    {705, "unknown", "unknown", -2, false, 'X', false, 0, 'c', 'p', false, "unknownin", "unknownout", "unknownrecv",
     "unknownsend", "-", "-", 0, 'p'},
    {2249, "record", "record", -1, false, 'P', false, 2287, 'd', 'x', false, "record_in", "record_out", "record_recv",
     "record_send", "-", "-", 0, 'p'},
    {2275, "cstring", "cstring", -2, false, 'P', false, 1263, 'c', 'p', false, "cstring_in", "cstring_out",
     "cstring_recv", "cstring_send", "-", "-", 0, 'p'},
    {2276, "any", "\"any\"", 4, true, 'P', false, 0, 'i', 'p', false, "any_in", "any_out", "-", "-", "-", "-", 0, 'p'},
    {2277, "anyarray", "anyarray", -1, false, 'P', false, 0, 'd', 'x', false, "anyarray_in", "anyarray_out",
     "anyarray_recv", "anyarray_send", "-", "-", 0, 'p'},
    {2278, "void", "void", 4, true, 'P', false, 0, 'i', 'p', false, "void_in", "void_out", "void_recv", "void_send",
     "-", "-", 0, 'p'},
    {2279, "trigger", "trigger", 4, true, 'P', false, 0, 'i', 'p', false, "trigger_in", "trigger_out", "-", "-", "-",
     "-", 0, 'p'},
    {2280, "language_handler", "language_handler", 4, true, 'P', false, 0, 'i', 'p', false, "language_handler_in",
     "language_handler_out", "-", "-", "-", "-", 0, 'p'},
    {2281, "internal", "internal", 8, true, 'P', false, 0, 'd', 'p', false, "internal_in", "internal_out", "-", "-",
     "-", "-", 0, 'p'},
    {2283, "anyelement", "anyelement", 4, true, 'P', false, 0, 'i', 'p', false, "anyelement_in", "anyelement_out", "-",
     "-", "-", "-", 0, 'p'},
    {2287, "_record", "record[]", -1, false, 'P', false, 0, 'd', 'x', false, "array_in", "array_out", "array_recv",
     "array_send", "-", "-", 2249, 'p'},
    {2776, "anynonarray", "anynonarray", 4, true, 'P', false, 0, 'i', 'p', false, "anynonarray_in", "anynonarray_out",
     "-", "-", "-", "-", 0, 'p'},
    {3115, "fdw_handler", "fdw_handler", 4, true, 'P', false, 0, 'i', 'p', false, "fdw_handler_in", "fdw_handler_out",
     "-", "-", "-", "-", 0, 'p'},
    {3310, "tsm_handler", "tsm_handler", 4, true, 'P', false, 0, 'i', 'p', false, "tsm_handler_in", "tsm_handler_out",
     "-", "-", "-", "-", 0, 'p'},
    {3500, "anyenum", "anyenum", 4, true, 'P', false, 0, 'i', 'p', false, "anyenum_in", "anyenum_out", "-", "-", "-",
     "-", 0, 'p'},
    {3831, "anyrange", "anyrange", -1, false, 'P', false, 0, 'd', 'x', false, "anyrange_in", "anyrange_out", "-", "-",
     "-", "-", 0, 'p'},
    {3838, "event_trigger", "event_trigger", 4, true, 'P', false, 0, 'i', 'p', false, "event_trigger_in",
     "event_trigger_out", "-", "-", "-", "-", 0, 'p'},
    {4537, "anymultirange", "anymultirange", -1, false, 'P', false, 0, 'd', 'x', false, "anymultirange_in",
     "anymultirange_out", "-", "-", "-", "-", 0, 'p'},
    {4538, "anycompatiblemultirange", "anycompatiblemultirange", -1, false, 'P', false, 0, 'd', 'x', false,
     "anycompatiblemultirange_in", "anycompatiblemultirange_out", "-", "-", "-", "-", 0, 'p'},
    {5077, "anycompatible", "anycompatible", 4, true, 'P', false, 0, 'i', 'p', false, "anycompatible_in",
     "anycompatible_out", "-", "-", "-", "-", 0, 'p'},
    {5078, "anycompatiblearray", "anycompatiblearray", -1, false, 'P', false, 0, 'd', 'x', false,
     "anycompatiblearray_in", "anycompatiblearray_out", "anycompatiblearray_recv", "anycompatiblearray_send", "-", "-",
     0, 'p'},
    {5079, "anycompatiblenonarray", "anycompatiblenonarray", 4, true, 'P', false, 0, 'i', 'p', false,
     "anycompatiblenonarray_in", "anycompatiblenonarray_out", "-", "-", "-", "-", 0, 'p'},
    {5080, "anycompatiblerange", "anycompatiblerange", -1, false, 'P', false, 0, 'd', 'x', false,
     "anycompatiblerange_in", "anycompatiblerange_out", "-", "-", "-", "-", 0, 'p'},
}};

// Bytes a character takes at most in UTF8, the only server encoding.
constexpr int32_t kMaxBytesPerCharacter = 4;
// What PostgreSQL shows as the octet length of text and unbounded varchar (1 GB).
constexpr int32_t kUnboundedOctetLength = 1073741824;

}  // namespace

std::span<const PostgresTypeFacts> postgresTypes() {
  return kTypes;
}

std::span<const PostgresTypeFacts> postgresPseudoTypes() {
  return kPseudoTypes;
}

const PostgresTypeFacts& postgresTypeFacts(const engine::LogicalType& type) {
  const int64_t oid = type.postgresOid();
  for (const auto& facts : kTypes) {
    if (facts.oid == oid) return facts;
  }
  for (const auto& facts : kPseudoTypes) {
    if (facts.oid == oid) return facts;  // record: a view's column can be one
  }
  SHOAL_UNREACHABLE("no pg_type facts for a Shoal type");
}

InformationSchemaSizes informationSchemaSizes(const engine::LogicalType& type) {
  InformationSchemaSizes sizes;
  if (type.isJson()) return sizes;  // json and jsonb have no length
  switch (type.id()) {
    case TypeId::kSmallInt:
      return {std::nullopt, std::nullopt, 16, 2, 0, std::nullopt};
    case TypeId::kInteger:
      return {std::nullopt, std::nullopt, 32, 2, 0, std::nullopt};
    case TypeId::kBigInt:
      return {std::nullopt, std::nullopt, 64, 2, 0, std::nullopt};
    case TypeId::kDouble:
      return {std::nullopt, std::nullopt, type.isReal() ? 24 : 53, 2, std::nullopt, std::nullopt};
    case TypeId::kDecimal:
      return {std::nullopt, std::nullopt, type.precision(), 10, type.scale(), std::nullopt};
    case TypeId::kDate:
      sizes.datetimePrecision = 0;
      return sizes;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTime:
      sizes.datetimePrecision = type.fractionalDigits();
      return sizes;
    case TypeId::kInterval:
      sizes.datetimePrecision = 6;
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
    case TypeId::kUuid:
    case TypeId::kBytea:
    case TypeId::kRecord:
      return sizes;
  }
  return sizes;
}

}  // namespace shoal::coordinator
