#pragma once

// Tables of one BIGINT column "id" for the storage tests: rows to stage, the ids a snapshot sees, and the row
// keys (as UPDATE and DELETE name rows) of chosen ids.

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "worker/storage/storage_manager.h"

namespace shoal::worker::testing {

inline std::vector<StoredColumn> idColumn() {
  return {{"id", engine::LogicalType::bigInt(), true}};
}

/// Rows first, first + 1, ..., first + count - 1.
inline engine::Chunk idRows(int64_t first, size_t count) {
  engine::Vector values(engine::LogicalType::bigInt(), count);
  for (size_t i = 0; i < count; ++i) values.data<int64_t>()[i] = first + static_cast<int64_t>(i);
  engine::Chunk chunk(count);
  chunk.addColumn(std::move(values));
  return chunk;
}

/// Calls `visit(id, rowKey)` for every row of storage 1 that `snapshot` sees (the id is column 0).
inline void forEachVisible(StorageManager& storage, const ReadSnapshot& snapshot,
                           const std::function<void(int64_t, uint64_t)>& visit) {
  for (const auto& segment : storage.visible(1, snapshot)) {
    engine::Vector values(engine::LogicalType::bigInt(), segment.segment->size());
    segment.segment->column(0).read(0, segment.segment->size(), values);
    auto deleted = segment.deletedRows.begin();
    for (uint32_t row = 0; row < segment.segment->size(); ++row) {
      if (deleted != segment.deletedRows.end() && *deleted == row) {
        ++deleted;
        continue;
      }
      visit(values.data<int64_t>()[row], rowKeyOf(segment.id, row));
    }
  }
}

/// The ids `snapshot` sees in storage 1, sorted.
inline std::vector<int64_t> visibleIds(StorageManager& storage, const ReadSnapshot& snapshot) {
  std::vector<int64_t> ids;
  forEachVisible(storage, snapshot, [&](int64_t id, uint64_t) { ids.push_back(id); });
  std::sort(ids.begin(), ids.end());
  return ids;
}

/// The row keys of the latest rows whose id satisfies `wanted`.
inline std::vector<uint64_t> rowKeysWhere(StorageManager& storage, const std::function<bool(int64_t)>& wanted) {
  std::vector<uint64_t> keys;
  forEachVisible(storage, {}, [&](int64_t id, uint64_t key) {
    if (wanted(id)) keys.push_back(key);
  });
  return keys;
}

/// The row key of the one latest row holding `id`.
inline uint64_t rowKeyOfId(StorageManager& storage, int64_t id) {
  const auto keys = rowKeysWhere(storage, [&](int64_t value) { return value == id; });
  if (keys.size() != 1) throw std::runtime_error("not one row " + std::to_string(id));
  return keys[0];
}

}  // namespace shoal::worker::testing
