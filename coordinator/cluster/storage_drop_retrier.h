#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "coordinator/cluster/cluster_context.h"

namespace shoal::coordinator {

/// Finishes drops that a worker missed: DROP TABLE, TRUNCATE or DROP SCHEMA while a worker was down leave
/// its storage of the table behind, listed in the catalog (TableCatalog::pendingDrops). Every second this
/// asks each such worker that is up again to drop that storage, and takes it off the list once it has, so
/// a dropped table leaves no orphaned files behind, across coordinator restarts too.
class StorageDropRetrier {
 public:
  explicit StorageDropRetrier(ClusterContext& cluster);
  ~StorageDropRetrier();
  StorageDropRetrier(const StorageDropRetrier&) = delete;
  StorageDropRetrier& operator=(const StorageDropRetrier&) = delete;

  /// One pass over the pending drops (also what the thread does every second).
  void retryOnce();

 private:
  void run();

  ClusterContext& cluster_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace shoal::coordinator
