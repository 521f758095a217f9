#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/value.h"
#include "engine/vector/chunk.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// The schemas Shoal has: PostgreSQL's two system schemas and public, which holds every user table and view.
/// Their OIDs are PostgreSQL 15's, so that clients that know them (11 is pg_catalog) are not surprised.
using sql::kDatabaseOwnerRoleName;
using sql::kDatabaseOwnerRoleOid;
using sql::kInformationSchema;
using sql::kInformationSchemaNamespaceOid;
using sql::kOwnerRoleName;
using sql::kOwnerRoleOid;
using sql::kPgCatalogNamespaceOid;
using sql::kPgCatalogSchema;
using sql::kPublicNamespaceOid;
/// User tables and views take OIDs from here up (PostgreSQL's FirstNormalObjectId), by their catalog id.
inline constexpr int64_t kFirstUserOid = 16384;

/// What a system relation knows of the session that reads it.
using SystemRows = std::vector<std::vector<engine::Value>>;

struct SystemScanContext {
  /// The database the session connected to (current_database()).
  std::string database;
  /// The session's settings as pg_settings' rows (none outside a session).
  std::function<SystemRows()> settings;
  /// The session's user, for what its privileges let it see (empty outside a session: everything).
  std::string user = {};
};

/// One relation the coordinator computes from its own state when it is read: a pg_catalog relation, an
/// information_schema view or a shoal_* view. Its OID is fixed in the code, so it never changes.
///
/// Until the catalog types arrive (issue 26), oid columns are bigint, name and "char" columns are text,
/// smallint columns are integer, and array columns (relacl, reloptions) are text and NULL.
struct SystemRelation {
  std::string schema;
  std::string name;
  int64_t oid = 0;
  /// pg_class.relkind: 'r' for a catalog table, 'v' for a view.
  char kind = 'v';
  std::vector<sql::ColumnDescription> columns;
  /// The current rows, one value per column.
  std::function<SystemRows(const SystemScanContext&)> rows;

  sql::TableDescription description() const;
};

/// Rows of values into chunks of at most kVectorSize rows of the given column types.
std::vector<engine::Chunk> rowsToChunks(const std::vector<sql::ColumnDescription>& columns, const SystemRows& rows);

/// Values as the system relations spell them.
namespace system_value {
inline engine::Value text(std::string_view value) {
  return engine::Value::varchar(std::string(value));
}
/// A "char" column's value: one character, or '' for the zero byte.
inline engine::Value character(char c) {
  return c == 0 ? text("") : text(std::string(1, c));
}
inline engine::Value oid(int64_t value) {
  return engine::Value::bigInt(value);
}
inline engine::Value integer(int64_t value) {
  return engine::Value::integer(static_cast<int32_t>(value));
}
inline engine::Value boolean(bool value) {
  return engine::Value::boolean(value);
}
inline engine::Value yesOrNo(bool value) {
  return text(value ? "YES" : "NO");
}
inline engine::Value nullText() {
  return engine::Value::null(engine::LogicalType::text());
}
inline engine::Value nullInteger() {
  return engine::Value::null(engine::LogicalType::integer());
}
/// A text[] of `elements`, or NULL for nullopt (an ACL that is the default).
engine::Value textArray(const std::optional<std::vector<std::string>>& elements);
}  // namespace system_value

/// Column types as the system relations declare them.
namespace system_type {
inline engine::LogicalType oid() {
  return engine::LogicalType::bigInt();
}
inline engine::LogicalType name() {
  return engine::LogicalType::text();
}
inline engine::LogicalType text() {
  return engine::LogicalType::text();
}
inline engine::LogicalType smallInt() {
  return engine::LogicalType::smallInt();
}
inline engine::LogicalType integer() {
  return engine::LogicalType::integer();
}
inline engine::LogicalType boolean() {
  return engine::LogicalType::boolean();
}
inline engine::LogicalType real() {
  return engine::LogicalType::doublePrecision();
}
/// text[]; also what Shoal shows for PostgreSQL's aclitem[] (access privileges: "alice=r/shoal").
inline engine::LogicalType textArray() {
  return engine::LogicalType::array(engine::LogicalType::text());
}
}  // namespace system_type

}  // namespace shoal::coordinator
