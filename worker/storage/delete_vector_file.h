#pragma once

#include <filesystem>
#include <memory>

#include "worker/storage/row_versions.h"

namespace shoal::worker {

// One segment's delete vector on disk (docs/storage-format.md): the magic `SHOALDEL`, the number of rows N,
// N 4-byte row positions, N 8-byte commit sequence numbers, and a CRC-32C of everything before it. Each
// commit that deletes rows of a segment writes its whole vector anew, under a name with its sequence number.

/// Writes `deletes` to `path` and fsyncs it.
void writeDeleteVectorFile(const std::filesystem::path& path, const DeleteVector& deletes);

/// Reads a file writeDeleteVectorFile wrote; XX001 naming it when it is damaged.
std::shared_ptr<const DeleteVector> readDeleteVectorFile(const std::filesystem::path& path);

}  // namespace shoal::worker
