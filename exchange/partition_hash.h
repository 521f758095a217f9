#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::exchange {

/// The CRC32-C of each row's key columns, as the paper's exchanges partition
/// by. Integers, dates and 64-bit decimals hash as their int64 value, so that
/// keys of INTEGER and BIGINT columns that are equal land together; NULL keys
/// hash as a fixed value. These values decide which worker stores which row:
/// they are part of the on-disk contract and must never change.
std::vector<uint32_t> hashRows(const engine::Chunk& chunk, std::span<const size_t> keyColumns);

/// The partition (0 .. numPartitions - 1) of each row of `chunk`.
std::vector<uint32_t> partitionRows(const engine::Chunk& chunk, std::span<const size_t> keyColumns,
                                    uint32_t numPartitions);

}  // namespace shoal::exchange
