#pragma once

#include <atomic>
#include <span>

#include "coordinator/catalog/system_catalog.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

/// Runs a one-table SELECT on the coordinator itself: scan (a system view, or
/// one empty row without FROM) → filter → offset/limit → project, a vector at
/// a time. Distributed plans replace it for user tables.
class SelectExecutor {
 public:
  /// `cancelRequested` is checked between chunks; when set, the query fails with 57014.
  SelectExecutor(const SystemCatalog& catalog, std::span<const engine::Value> parameters,
                 const std::atomic<bool>& cancelRequested)
      : catalog_(catalog), parameters_(parameters), cancelRequested_(cancelRequested) {}

  QueryResult run(const sql::BoundSelect& select) const;

 private:
  const SystemCatalog& catalog_;
  std::span<const engine::Value> parameters_;
  const std::atomic<bool>& cancelRequested_;
};

}  // namespace shoal::coordinator
