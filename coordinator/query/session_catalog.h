#pragma once

#include "sql/binder/catalog_reader.h"
#include "sql/binder/search_path.h"

namespace shoal::coordinator {

/// The cluster's catalog as one session's statements see it: the same schemas, tables and views, looked up
/// through the session's search_path, and the session itself, for current_user, current_database() and the
/// like.
class SessionCatalog final : public sql::CatalogReader {
 public:
  SessionCatalog(const sql::CatalogReader& cluster, sql::SessionInfo session)
      : cluster_(cluster), session_(std::move(session)) {}

  std::optional<sql::TableDescription> findTable(const sql::QualifiedName& name) const override {
    return cluster_.findTable(name);
  }
  std::optional<sql::ViewDescription> findView(const sql::QualifiedName& name) const override {
    return cluster_.findView(name);
  }
  std::vector<sql::SchemaDescription> schemas() const override { return cluster_.schemas(); }
  std::vector<std::string> relationNames() const override { return cluster_.relationNames(); }
  std::vector<sql::RelationVisibility> relationVisibility() const override {
    auto relations = cluster_.relationVisibility();
    sql::markVisibility(relations, sql::lookupSchemas(*this));
    return relations;
  }
  std::vector<sql::ObjectComment> comments() const override { return cluster_.comments(); }
  std::vector<sql::KeyDescription> keys() const override { return cluster_.keys(); }
  const sql::SessionInfo* session() const override { return &session_; }
  std::optional<sql::HeldPrivileges> relationPrivileges(std::string_view role,
                                                        const sql::QualifiedName& name) const override {
    return cluster_.relationPrivileges(role, name);
  }
  std::optional<sql::HeldPrivileges> schemaPrivileges(std::string_view role, const std::string& schema) const override {
    return cluster_.schemaPrivileges(role, schema);
  }
  std::optional<sql::HeldPrivileges> databasePrivileges(std::string_view role) const override {
    return cluster_.databasePrivileges(role);
  }
  std::vector<std::pair<int64_t, std::string>> roles() const override { return cluster_.roles(); }

 private:
  const sql::CatalogReader& cluster_;
  const sql::SessionInfo session_;
};

}  // namespace shoal::coordinator
