#pragma once

// The rows a window operator holds and how it orders them: references to rows of kept chunks, gathered into
// one chunk, sorted on the partition hash and then the keys. Internal to engine/window.

#include <cstdint>
#include <vector>

#include "engine/sort/sort.h"
#include "engine/vector/chunk.h"
#include "engine/vector/row_gather.h"

namespace shoal::engine::window {

/// Sorts `rows` (each with the hash of its PARTITION BY values, 0 without PARTITION BY) on their partition hash, then
/// on `keys` (the PARTITION BY columns, then the ORDER BY ones); rows equal on all of them keep their order. With
/// `hashed` the hashes are spread (rows of different partitions rarely share one), so the rows sort first on the hash
/// alone, by radix, and only each run of one hash compares keys; else the whole sort compares keys.
void sortRows(const std::vector<const Chunk*>& chunks, const std::vector<SortColumn>& keys, bool hashed,
              std::vector<RowRef>& rows);

}  // namespace shoal::engine::window
