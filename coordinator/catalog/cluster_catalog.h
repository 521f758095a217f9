#pragma once

#include "coordinator/catalog/system_catalog.h"
#include "coordinator/catalog/table_catalog.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// What the binder sees: the system relations of pg_catalog and information_schema, and the user schemas
/// with their tables and views. Outside a session, search_path has its default.
class ClusterCatalog final : public sql::CatalogReader {
 public:
  ClusterCatalog(const SystemCatalog& system, const TableCatalog& tables) : system_(system), tables_(tables) {}

  std::optional<sql::TableDescription> findTable(const sql::QualifiedName& name) const override;
  std::optional<sql::ViewDescription> findView(const sql::QualifiedName& name) const override;
  std::vector<sql::SchemaDescription> schemas() const override { return system_.schemas(); }
  std::vector<std::string> relationNames() const override;
  std::vector<sql::RelationVisibility> relationVisibility() const override;
  std::vector<sql::ObjectComment> comments() const override { return system_.comments(); }
  std::vector<sql::KeyDescription> keys() const override { return system_.keys(); }
  /// Privileges: user objects' from the table catalog; system relations and schemas may be read and used by
  /// every role (as PostgreSQL grants SELECT on its catalogs to PUBLIC).
  std::optional<sql::HeldPrivileges> relationPrivileges(std::string_view role,
                                                        const sql::QualifiedName& name) const override;
  std::optional<sql::HeldPrivileges> schemaPrivileges(std::string_view role, const std::string& schema) const override;
  std::optional<sql::HeldPrivileges> databasePrivileges(std::string_view role) const override {
    return tables_.databasePrivileges(std::string(role));
  }
  std::vector<std::pair<int64_t, std::string>> roles() const override;
  /// A view's columns: its query bound against this catalog (fails as reading the view would).
  std::vector<CatalogColumn> viewColumns(const ViewEntry& view) const;

 private:
  const SystemCatalog& system_;
  const TableCatalog& tables_;
};

}  // namespace shoal::coordinator
