#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/logical_type.h"

namespace shoal::sql {

struct ColumnDescription {
  std::string name;
  engine::LogicalType type;
};

/// What the binder needs to know about a table or system view.
struct TableDescription {
  std::string name;
  std::vector<ColumnDescription> columns;
  /// System views (shoal_nodes) are computed on the coordinator; user tables live on the workers.
  bool isSystemView = true;
};

/// The binder's view of the catalog. The coordinator owns the catalog and
/// implements this interface, so that sql/ never depends on coordinator/.
class CatalogReader {
 public:
  virtual ~CatalogReader() = default;
  /// Looks a table up by its (already case-folded) name.
  virtual std::optional<TableDescription> findTable(std::string_view name) const = 0;
};

}  // namespace shoal::sql
