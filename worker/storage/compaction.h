#pragma once

#include <cstdint>
#include <functional>

#include "worker/storage/partition_store.h"
#include "worker/storage/segment_memory.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

struct CompactionOutcome {
  uint64_t segmentsRewritten = 0;  // old segments replaced
  uint64_t segmentsWritten = 0;    // new ones
  uint64_t rowsRemoved = 0;        // deleted rows no snapshot needs any more
};

/// Garbage collection of old row versions: rewrites the committed segments of `partition` that hold rows
/// deleted at or before `horizon` (the oldest snapshot any reader may still use), or that are small, into
/// fewer segments without those rows. Every snapshot at or after `horizon` reads the same rows before and
/// after: a new segment carries the newest commit of what it replaces (at or before the horizon), and the rows
/// deleted after the horizon stay in its delete vector. A segment with a row a write is deleting is left alone,
/// as is one a commit changed while it was rewritten. The new segments are written and the manifest replaced
/// before anyone reads them; the old files go afterwards. `numaNode` places each new segment.
CompactionOutcome compactPartition(TablePartition& partition, uint64_t horizon, SegmentMemory& memory,
                                   PartitionStore* store, const std::function<uint32_t()>& numaNode);

}  // namespace shoal::worker
