#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "common/aligned_buffer.h"

#include "worker/storage/segment.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

// One segment on disk (docs/storage-format.md): a magic number, a JSON
// header describing the table's columns, each column in its in-memory
// encoding (plain or dictionary), and a CRC-32C over everything before it. A
// file that is truncated, altered or of another format fails to read with
// XX001 naming it.

/// Writes `segment` to `path`, bypassing the page cache (O_DIRECT) where the
/// file system allows it. `scratch` holds the file's bytes on their way; a
/// buffer kept for the next file saves its allocation. The file is not yet
/// durable: call syncFile before a manifest lists it.
void writeSegmentFile(const std::filesystem::path& path, const Segment& segment, uint64_t storageId,
                      const std::string& tableName, const std::vector<StoredColumn>& columns, AlignedBuffer& scratch);

/// Makes a written file's contents and size durable (fdatasync).
void syncFile(const std::filesystem::path& path);

/// Reads a segment written by writeSegmentFile, placing it on `numaNode`.
/// `columns` must match what the file says.
std::unique_ptr<Segment> readSegmentFile(const std::filesystem::path& path, const std::vector<StoredColumn>& columns,
                                         uint32_t numaNode, SegmentMemory& memory);

}  // namespace shoal::worker
