#pragma once

#include <algorithm>

#include "proto/storage.pb.h"
#include "worker/storage/row_versions.h"

namespace shoal::worker {

/// The snapshot a request reads at; a request that names none reads the latest commits.
template <class Request>
ReadSnapshot readSnapshotOf(const Request& request) {
  if (!request.has_snapshot()) return ReadSnapshot{};
  ReadSnapshot snapshot{request.snapshot().commit_seq(),
                        {request.snapshot().own_writes().begin(), request.snapshot().own_writes().end()}};
  std::sort(snapshot.ownWrites.begin(), snapshot.ownWrites.end());
  return snapshot;
}

}  // namespace shoal::worker
