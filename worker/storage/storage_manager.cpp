#include "worker/storage/storage_manager.h"

#include <algorithm>
#include <numeric>

#include "common/run_on_cores.h"
#include "common/status.h"

namespace shoal::worker {
namespace {

/// Rows [start, start + count) of `chunk` as a chunk of their own.
engine::Chunk sliceChunk(const engine::Chunk& chunk, size_t start, size_t count) {
  std::vector<uint32_t> rows(count);
  std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(start));
  engine::Chunk slice(count);
  for (size_t c = 0; c < chunk.numColumns(); ++c) {
    slice.addColumn(chunk.column(c).select(rows));
  }
  return slice;
}

void checkNotNull(const engine::Chunk& chunk, const std::vector<StoredColumn>& columns, const std::string& tableName) {
  for (size_t c = 0; c < columns.size(); ++c) {
    if (!columns[c].notNull) continue;
    if (!chunk.column(c).validity().allValid(chunk.size())) {
      SHOAL_USER_FAIL(SqlState::kNotNullViolation,
                      "null value in column \"{}\" of relation \"{}\" violates not-null constraint", columns[c].name,
                      tableName);
    }
  }
}

}  // namespace

void StorageManager::stage(uint64_t loadId, uint64_t storageId, const std::string& tableName,
                           const std::vector<StoredColumn>& columns, engine::Chunk chunk) {
  if (chunk.numColumns() != columns.size()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "rows for \"{}\" have {} columns, the table has {}", tableName,
                    chunk.numColumns(), columns.size());
  }
  for (size_t c = 0; c < chunk.numColumns(); ++c) {
    if (chunk.column(c).type() != columns[c].type) {
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "rows for column \"{}\" are {}, the column is {}", columns[c].name,
                      chunk.column(c).type().toString(), columns[c].type.toString());
    }
    chunk.column(c).resize(chunk.size());
  }
  checkNotNull(chunk, columns, tableName);
  std::shared_ptr<StagedPartition> staged;
  {
    std::lock_guard lock(mutex_);
    auto& slot = loads_[loadId][storageId];
    if (!slot) {
      slot = std::make_shared<StagedPartition>();
      slot->storageId = storageId;
      slot->tableName = tableName;
      slot->columns = columns;
      for (const auto& column : columns) {
        slot->types.push_back(column.type);
        slot->statistics.emplace_back(column.type);
      }
    }
    staged = slot;
  }
  std::vector<std::vector<engine::Chunk>> full;
  {
    std::lock_guard lock(staged->mutex);
    staged->rows += chunk.size();
    staged->pendingRows += chunk.size();
    staged->pending.push_back(std::move(chunk));
    full = takeSegmentChunks(*staged, false);
  }
  for (const auto& chunks : full) addSegment(*staged, chunks);
}

std::vector<std::vector<engine::Chunk>> StorageManager::takeSegmentChunks(StagedPartition& staged, bool flush) {
  std::vector<std::vector<engine::Chunk>> segments;
  while (staged.pendingRows >= kSegmentRows || (flush && staged.pendingRows > 0)) {
    // Take whole chunks up to the segment size, splitting the one that straddles the boundary.
    std::vector<engine::Chunk> segmentChunks;
    size_t rows = 0;
    size_t taken = 0;
    while (taken < staged.pending.size() && rows < kSegmentRows) {
      engine::Chunk& chunk = staged.pending[taken];
      if (rows + chunk.size() <= kSegmentRows) {
        rows += chunk.size();
        segmentChunks.push_back(std::move(chunk));
        ++taken;
      } else {
        size_t head = kSegmentRows - rows;
        segmentChunks.push_back(sliceChunk(chunk, 0, head));
        chunk = sliceChunk(chunk, head, chunk.size() - head);
        rows += head;
      }
    }
    staged.pending.erase(staged.pending.begin(), staged.pending.begin() + static_cast<ptrdiff_t>(taken));
    staged.pendingRows -= rows;
    segments.push_back(std::move(segmentChunks));
  }
  return segments;
}

void StorageManager::addSegment(StagedPartition& staged, const std::vector<engine::Chunk>& chunks) {
  std::shared_ptr<const Segment> segment = Segment::build(staged.types, chunks, nextNumaNode(), memory_);
  std::vector<ColumnStatistics> statistics;
  for (size_t c = 0; c < staged.types.size(); ++c) {
    statistics.emplace_back(staged.types[c]);
    const ColumnSegment& column = segment->column(c);
    if (!column.dictionary().empty()) {
      // The dictionary holds each distinct value once: hashing it instead of every row gives the same sketch.
      const auto entries = column.dictionary();
      engine::Vector distinct(staged.types[c], entries.size());
      std::copy(entries.begin(), entries.end(), distinct.data<engine::StringRef>());
      statistics.back().update(distinct, entries.size());
      const uint64_t nulls = column.zoneMap().nullCount;
      statistics.back().addRepeatedRows(column.size() - nulls - entries.size(), nulls);
      continue;
    }
    if (auto distinct = column.distinctNarrowValues()) {
      // The same for a narrow integer column (dates, quantities, small keys): its few distinct values.
      statistics.back().update(*distinct, distinct->size());
      const uint64_t nulls = column.zoneMap().nullCount;
      statistics.back().addRepeatedRows(column.size() - nulls - distinct->size(), nulls);
      continue;
    }
    // The segment's zone map is the range of these very rows: only the sketch needs them again.
    for (const auto& chunk : chunks) statistics.back().updateDistinct(chunk.column(c), chunk.size());
    statistics.back().widenRange(column.zoneMap().min, column.zoneMap().max);
  }
  std::string file;
  if (store_) file = store_->writeSegment(staged.storageId, staged.tableName, staged.columns, *segment);
  std::lock_guard lock(staged.mutex);
  if (staged.aborted) {
    if (store_) store_->discardSegments(staged.storageId, {file});
    return;
  }
  for (size_t c = 0; c < statistics.size(); ++c) staged.statistics[c].merge(statistics[c]);
  staged.segments.push_back(std::move(segment));
  if (store_) staged.files.push_back(std::move(file));
}

std::vector<LoadedPartition> StorageManager::commit(uint64_t loadId) {
  // Whatever the load readied and did not use goes back once its last segments are built.
  struct EndLoad {
    SegmentMemory& memory;
    uint64_t loadId;
    ~EndLoad() { memory.loadEnded(loadId); }
  } endLoad{memory_, loadId};
  StagedLoad load;
  {
    std::lock_guard lock(mutex_);
    auto it = loads_.find(loadId);
    if (it == loads_.end()) return {};
    load = std::move(it->second);
    loads_.erase(it);
  }
  std::vector<std::shared_ptr<StagedPartition>> staged;
  for (auto& [storageId, partition] : load) staged.push_back(partition);
  std::vector<LoadedPartition> loaded(staged.size());
  // The load's last rows wait here: each table's partial last segment is built, written and synced, and its
  // manifest replaced. Tables are independent, so they go over the cores, the disk waits of one under the
  // building of another.
  runOnCores(staged.size(), [&](size_t i) { loaded[i] = commitPartition(*staged[i]); });
  if (store_) store_->releaseBuffers();
  return loaded;
}

LoadedPartition StorageManager::commitPartition(StagedPartition& staged) {
  std::vector<std::vector<engine::Chunk>> rest;
  {
    std::lock_guard stagedLock(staged.mutex);
    rest = takeSegmentChunks(staged, true);
  }
  for (const auto& chunks : rest) addSegment(staged, chunks);
  std::lock_guard stagedLock(staged.mutex);
  std::shared_ptr<TablePartition> partition;
  {
    std::lock_guard lock(mutex_);
    auto& slot = partitions_[staged.storageId];
    if (!slot) slot = std::make_shared<TablePartition>(staged.storageId, staged.tableName, staged.columns);
    partition = slot;
  }
  if (store_) store_->commitSegments(*partition, staged.files);
  partition->appendSegments(std::move(staged.segments));
  LoadedPartition result{staged.storageId, staged.rows, {}};
  for (const auto& statistics : staged.statistics) result.columnStatistics.push_back(statistics.serialize());
  return result;
}

void StorageManager::abort(uint64_t loadId) {
  memory_.loadEnded(loadId);
  StagedLoad load;
  {
    std::lock_guard lock(mutex_);
    auto it = loads_.find(loadId);
    if (it == loads_.end()) return;
    load = std::move(it->second);
    loads_.erase(it);
  }
  for (auto& [storageId, staged] : load) {
    std::lock_guard stagedLock(staged->mutex);
    staged->aborted = true;  // a segment still being built is discarded when it arrives
    if (store_) store_->discardSegments(storageId, staged->files);
  }
}

void StorageManager::drop(uint64_t storageId) {
  {
    std::lock_guard lock(mutex_);
    partitions_.erase(storageId);
  }
  if (store_) store_->remove(storageId);
}

void StorageManager::recover() {
  if (!store_) return;
  for (auto& partition : store_->recover(memory_)) adopt(std::move(partition));
}

std::shared_ptr<TablePartition> StorageManager::find(uint64_t storageId) const {
  std::lock_guard lock(mutex_);
  auto it = partitions_.find(storageId);
  return it == partitions_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<TablePartition>> StorageManager::partitions() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<TablePartition>> all;
  for (const auto& [id, partition] : partitions_) all.push_back(partition);
  return all;
}

void StorageManager::adopt(std::shared_ptr<TablePartition> partition) {
  std::lock_guard lock(mutex_);
  partitions_[partition->storageId()] = std::move(partition);
}

}  // namespace shoal::worker
