#pragma once

#include "common/periodic_task.h"
#include "coordinator/cluster/cluster_context.h"

namespace shoal::coordinator {

/// Finishes drops that a worker missed: DROP TABLE, TRUNCATE or DROP SCHEMA while a worker was down leave
/// its storage of the table behind, listed in the catalog (TableCatalog::pendingDrops). Every second this
/// asks each such worker that is up again to drop that storage, and takes it off the list once it has, so
/// a dropped table leaves no orphaned files behind, across coordinator restarts too.
class StorageDropRetrier {
 public:
  explicit StorageDropRetrier(ClusterContext& cluster);

  /// One pass over the pending drops (also what the task does every second).
  void retryOnce();

 private:
  ClusterContext& cluster_;
  PeriodicTask task_;  // last: it runs retryOnce(), which uses cluster_
};

}  // namespace shoal::coordinator
