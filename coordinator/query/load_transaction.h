#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"

namespace shoal::coordinator {

/// One all-or-nothing load into one or more tables. Workers stage the rows
/// under the load id as they arrive; commit asks every worker that holds a
/// partition to make them visible, then records the new row counts in the
/// catalog. Unless committed, the load is aborted on destruction, so an error
/// anywhere leaves nothing of it behind.
class LoadTransaction {
 public:
  /// What commit does with the rows the workers committed: by default TableCatalog::recordLoad. ALTER TABLE,
  /// which loads new storage of a table, puts that storage in the table's place instead. An exception from it
  /// fails the commit (the workers' rows stay: the caller drops their storage).
  using Recorder = std::function<void(const std::vector<TableCatalog::LoadedTable>&)>;

  LoadTransaction(ClusterContext& cluster, std::vector<std::shared_ptr<const TableEntry>> tables,
                  Recorder recorder = {});
  ~LoadTransaction();
  LoadTransaction(const LoadTransaction&) = delete;
  LoadTransaction& operator=(const LoadTransaction&) = delete;

  uint64_t loadId() const { return loadId_; }
  /// Tells every worker of the load that it will store its share of about `totalBytes` (PrepareLoad), so that
  /// it can ready memory while the rows are still being produced. A hint: a worker that misses it loads anyway.
  void announce(uint64_t totalBytes);
  /// Returns the rows the load added, over all tables.
  uint64_t commit();
  void abort();

 private:
  ClusterContext& cluster_;
  std::vector<std::shared_ptr<const TableEntry>> tables_;
  std::set<std::string> addresses_;
  uint64_t loadId_;
  Recorder recorder_;
  bool finished_ = false;
};

}  // namespace shoal::coordinator
