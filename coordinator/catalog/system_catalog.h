#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "coordinator/catalog/table_catalog.h"
#include "coordinator/membership/member_registry.h"
#include "coordinator/query/query_log.h"
#include "engine/vector/chunk.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// The system views, computed on the coordinator: shoal_nodes (membership),
/// shoal_tables (user tables, their distribution and size),
/// shoal_column_statistics (what the optimizer knows of each column) and
/// shoal_queries (the statements clients ran, running and recent).
class SystemCatalog final : public sql::CatalogReader {
 public:
  SystemCatalog(const MemberRegistry& registry, const TableCatalog& tables, const QueryLog& queries)
      : registry_(registry), tables_(tables), queries_(queries) {}

  std::optional<sql::TableDescription> findTable(std::string_view name) const override;

  /// The current rows of a system view, in chunks of at most kVectorSize rows.
  std::vector<engine::Chunk> scan(std::string_view name) const;

 private:
  std::vector<engine::Chunk> scanNodes() const;
  std::vector<engine::Chunk> scanTables() const;
  std::vector<engine::Chunk> scanColumnStatistics() const;
  std::vector<engine::Chunk> scanQueries() const;

  const MemberRegistry& registry_;
  const TableCatalog& tables_;
  const QueryLog& queries_;
};

}  // namespace shoal::coordinator
