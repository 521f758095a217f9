#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "coordinator/membership/member_registry.h"
#include "engine/vector/chunk.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// The coordinator's catalog as the binder sees it. For now it holds the
/// system views (shoal_nodes); user tables arrive with the storage issue.
class SystemCatalog final : public sql::CatalogReader {
 public:
  explicit SystemCatalog(const MemberRegistry& registry) : registry_(registry) {}

  std::optional<sql::TableDescription> findTable(std::string_view name) const override;

  /// The current rows of a system view, in chunks of at most kVectorSize rows.
  std::vector<engine::Chunk> scan(std::string_view name) const;

 private:
  std::vector<engine::Chunk> scanNodes() const;

  const MemberRegistry& registry_;
};

}  // namespace shoal::coordinator
