#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::engine {

// A compact columnar byte layout of a Chunk, for shipping rows between
// processes over the control plane (loading, scan results). Per column: the
// type id, a NULL flag and bitmap when any row is NULL, then the fixed-width
// values, or for strings their lengths followed by their bytes.

/// Appends `chunk` to `out`.
void encodeChunk(const Chunk& chunk, std::string& out);
/// Appends the listed rows of `chunk`, in that order, as a chunk of their own.
void encodeChunkRows(const Chunk& chunk, std::span<const uint32_t> rows, std::string& out);

/// Reads a chunk whose columns must have `types`. Malformed bytes fail with
/// XX001 (data corrupted), never read out of bounds.
Chunk decodeChunk(std::string_view bytes, std::span<const LogicalType> types);
/// decodeChunk, with long strings left in `bytes` rather than copied: the
/// chunk's string columns keep the buffer alive.
Chunk decodeChunk(std::shared_ptr<const std::string> bytes, std::span<const LogicalType> types);
/// Reads chunks encoded back to back (appended to one string by encodeChunk
/// or encodeChunkRows), their long strings left in `bytes` as above.
std::vector<Chunk> decodeChunks(std::shared_ptr<const std::string> bytes, std::span<const LogicalType> types);

}  // namespace shoal::engine
