#pragma once

#include <cstdint>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::engine {

/// One row of one of several chunks, with a hash of its keys when the holder needs one (0 otherwise).
struct RowRef {
  uint64_t hash;
  uint32_t chunk;
  uint32_t row;
};

/// The rows of several chunks (of the same columns) in one chunk, in the order `rows` gives. Strings are not
/// copied: the new vectors keep the chunks' heaps alive. Operators that hold rows back (a window's buckets, an
/// aggregation's partitions) gather many chunks' rows at once, rather than copy each chunk piece by piece.
Chunk gatherRows(const std::vector<const Chunk*>& chunks, const std::vector<RowRef>& rows);

}  // namespace shoal::engine
