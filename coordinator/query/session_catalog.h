#pragma once

#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// The cluster's catalog as one session's statements see it: the same tables and views, and the session
/// itself, for current_user, current_database() and the like.
class SessionCatalog final : public sql::CatalogReader {
 public:
  SessionCatalog(const sql::CatalogReader& cluster, sql::SessionInfo session)
      : cluster_(cluster), session_(std::move(session)) {}

  std::optional<sql::TableDescription> findTable(std::string_view name) const override {
    return cluster_.findTable(name);
  }
  std::optional<sql::TableDescription> findSystemRelation(std::string_view schema,
                                                          std::string_view name) const override {
    return cluster_.findSystemRelation(schema, name);
  }
  std::optional<sql::ViewDescription> findView(std::string_view name) const override { return cluster_.findView(name); }
  std::vector<std::string> relationNames() const override { return cluster_.relationNames(); }
  std::vector<sql::RelationVisibility> relationVisibility() const override { return cluster_.relationVisibility(); }
  std::vector<sql::ObjectComment> comments() const override { return cluster_.comments(); }
  std::vector<sql::PrimaryKeyDescription> primaryKeys() const override { return cluster_.primaryKeys(); }
  const sql::SessionInfo* session() const override { return &session_; }

 private:
  const sql::CatalogReader& cluster_;
  const sql::SessionInfo session_;
};

}  // namespace shoal::coordinator
