#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// search_path's value split into its names, as PostgreSQL reads it: separated by commas, unquoted names
/// lower-cased, quoted ones kept as written ("$user" stays "$user"). Fails with 22023 on a malformed list.
std::vector<std::string> parseSearchPath(std::string_view setting);

/// The schemas of the session's search path that exist, in order ("$user" standing for the schema named
/// as the user): what current_schemas(false) lists and where CREATE puts an unqualified name (the first).
std::vector<std::string> explicitSchemas(const CatalogReader& catalog);

/// The schemas an unqualified name is looked up in, in order (current_schemas(true)): the session's temporary
/// schema first when it exists (unless search_path places pg_temp), pg_catalog next unless search_path places
/// it, then explicitSchemas.
std::vector<std::string> lookupSchemas(const CatalogReader& catalog);

/// Where an existing relation named `name` (with `schema`, or searched for on the path when `schema` is
/// empty) lives: the first schema of the path holding a table or view of that name. Nullopt when there is
/// none; with `schema` given, only when that schema does not exist (the caller reports 3F000 or 42P01).
/// "pg_temp" names the session's temporary schema; another session's fails with 0A000.
std::optional<QualifiedName> resolveRelation(const CatalogReader& catalog, std::string_view schema,
                                             std::string_view name);

/// The schema and name a new relation gets: `schema` when given (3F000 when it does not exist, 42501 for a
/// system schema), else the first schema on the search path (3F000 when there is none).
QualifiedName creationName(const CatalogReader& catalog, std::string_view schema, std::string_view name);

/// The schema that holds the session's temporary tables and views, "pg_temp_<backend pid>", whether or not it
/// exists yet (the first CREATE TEMP makes it); empty outside a client session.
std::string temporarySchemaOf(const CatalogReader& catalog);

/// Whether `schema` holds some session's temporary relations (pg_temp_N).
bool isTemporarySchema(std::string_view schema);

/// The schema and name a new temporary relation gets: the session's temporary schema, when `schema` is empty,
/// "pg_temp" or that schema itself; 42P16 for any other schema, as PostgreSQL refuses it.
QualifiedName temporaryCreationName(const CatalogReader& catalog, std::string_view schema, std::string_view name);

/// Whether `schema` is one whose relations the coordinator computes (pg_catalog, information_schema).
bool isSystemSchema(std::string_view schema);

/// Sets each relation's `visible`: whether an unqualified name finds it through `lookup` (lookupSchemas).
void markVisibility(std::vector<RelationVisibility>& relations, const std::vector<std::string>& lookup);

/// The catalog a view's query is bound against: with the search path the view was created under, and its
/// owner's privileges (PostgreSQL reads a view's relations as the view's owner).
class ViewQueryCatalog final : public CatalogReader {
 public:
  ViewQueryCatalog(const CatalogReader& catalog, std::string searchPath, std::string owner)
      : catalog_(catalog), searchPath_(std::move(searchPath)), owner_(std::move(owner)) {}

  std::optional<TableDescription> findTable(const QualifiedName& name) const override {
    return catalog_.findTable(name);
  }
  std::optional<ViewDescription> findView(const QualifiedName& name) const override { return catalog_.findView(name); }
  std::vector<SchemaDescription> schemas() const override { return catalog_.schemas(); }
  std::string searchPathSetting() const override { return searchPath_; }
  std::vector<RelationVisibility> relationVisibility() const override;
  std::vector<ObjectComment> comments() const override { return catalog_.comments(); }
  std::vector<KeyDescription> keys() const override { return catalog_.keys(); }
  std::vector<std::string> relationNames() const override { return catalog_.relationNames(); }
  const SessionInfo* session() const override { return catalog_.session(); }
  std::string privilegeRole() const override { return owner_; }
  std::optional<HeldPrivileges> relationPrivileges(std::string_view role, const QualifiedName& name) const override {
    return catalog_.relationPrivileges(role, name);
  }
  std::optional<HeldPrivileges> schemaPrivileges(std::string_view role, const std::string& schema) const override {
    return catalog_.schemaPrivileges(role, schema);
  }
  std::optional<HeldPrivileges> databasePrivileges(std::string_view role) const override {
    return catalog_.databasePrivileges(role);
  }
  std::vector<std::pair<int64_t, std::string>> roles() const override { return catalog_.roles(); }

 private:
  const CatalogReader& catalog_;
  const std::string searchPath_;
  const std::string owner_;
};

}  // namespace shoal::sql
