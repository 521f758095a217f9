#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "worker/storage/segment.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

// One segment on disk (docs/storage-format.md): a magic number, a JSON
// header describing the table's columns, the rows as blocks in the engine's
// chunk codec, and a CRC-32C over everything before it. A file that is
// truncated, altered or of another format fails to read with XX001 naming it.

/// Writes `segment` to `path` (through a temporary file, fsynced and renamed).
void writeSegmentFile(const std::filesystem::path& path, const Segment& segment, uint64_t storageId,
                      const std::string& tableName, const std::vector<StoredColumn>& columns);

/// Reads a segment written by writeSegmentFile, placing it on `numaNode`.
/// `columns` must match what the file says.
std::unique_ptr<Segment> readSegmentFile(const std::filesystem::path& path, const std::vector<StoredColumn>& columns,
                                         uint32_t numaNode, const NumaTopology& topology);

}  // namespace shoal::worker
