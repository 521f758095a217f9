#include "worker/storage/storage_manager.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "common/fault_points.h"
#include "common/run_on_cores.h"
#include "common/status.h"
#include "worker/storage/stored_columns_json.h"

#include <spdlog/spdlog.h>

namespace shoal::worker {

namespace {
/// PostgreSQL's SQLSTATE for a snapshot older than what the storage still holds.
constexpr std::string_view kSnapshotTooOld = "72000";
}  // namespace
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

std::shared_ptr<TablePartition> StorageManager::findOrCreate(uint64_t storageId, const std::string& tableName,
                                                             const std::vector<StoredColumn>& columns) {
  std::lock_guard lock(mutex_);
  auto& slot = partitions_[storageId];
  if (!slot) slot = std::make_shared<TablePartition>(storageId, tableName, columns);
  return slot;
}

void StorageManager::stage(uint64_t writeId, uint64_t storageId, const std::string& tableName,
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
    std::shared_ptr<TablePartition> partition = findOrCreate(storageId, tableName, columns);
    std::lock_guard lock(mutex_);
    auto& slot = writes_[writeId][storageId];
    if (!slot) {
      slot = std::make_shared<StagedPartition>();
      slot->partition = std::move(partition);
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
  for (const auto& chunks : full) addSegment(writeId, *staged, chunks);
}

uint64_t StorageManager::deleteRows(uint64_t writeId, const ReadSnapshot& snapshot, uint64_t storageId,
                                    std::span<const uint64_t> rowKeys) {
  std::shared_ptr<TablePartition> partition = find(storageId);
  if (!partition) {
    if (rowKeys.empty()) return 0;
    SHOAL_USER_FAIL(SqlState::kSerializationFailure, "could not serialize access due to concurrent update");
  }
  {
    std::lock_guard lock(mutex_);
    deletesOf_[writeId].insert(storageId);
  }
  return partition->deleteRows(writeId, snapshot, rowKeys);
}

void StorageManager::flush(uint64_t writeId, StagedPartition& staged) {
  std::vector<std::vector<engine::Chunk>> rest;
  {
    std::lock_guard lock(staged.mutex);
    rest = takeSegmentChunks(staged, true);
  }
  for (const auto& chunks : rest) addSegment(writeId, staged, chunks);
}

std::vector<VisibleSegment> StorageManager::visible(uint64_t storageId, const ReadSnapshot& snapshot) {
  {
    std::unique_lock lock(mutex_);
    auto undecided = [&] {
      for (uint64_t id : inDoubt_) {
        if (auto found = prepared_.find(id); found != prepared_.end() && found->second.storageIds.contains(storageId)) {
          return true;
        }
      }
      return false;
    };
    if (!decided_.wait_for(lock, inDoubtWait_, [&] { return !undecided(); })) {
      SHOAL_USER_FAIL(SqlState::kObjectNotInPrerequisiteState,
                      "a transaction that changed this table is in doubt on this worker since it restarted: the "
                      "coordinator has not decided it in {} ms",
                      inDoubtWait_.count());
    }
  }
  // Compaction kept only what snapshots from the horizon on read; an older one would miss rows. The coordinator
  // pins every snapshot in use, so this is only reached after it lost track (a restart with commits undecided).
  if (snapshot.commitSeq < horizon_.load()) {
    SHOAL_USER_FAIL(kSnapshotTooOld, "snapshot too old: this worker compacted row versions it would read");
  }
  std::shared_ptr<TablePartition> partition = find(storageId);
  if (!partition) return {};
  // The transaction's own rows still waiting as chunks become a segment now, so that it reads them.
  for (uint64_t writeId : snapshot.ownWrites) flushStaged(writeId, storageId);
  return partition->visible(snapshot);
}

void StorageManager::flushStaged(uint64_t writeId, uint64_t storageId) {
  std::shared_ptr<StagedPartition> staged;
  {
    std::lock_guard lock(mutex_);
    auto write = writes_.find(writeId);
    if (write == writes_.end()) return;
    auto found = write->second.find(storageId);
    if (found == write->second.end()) return;
    staged = found->second;
  }
  flush(writeId, *staged);
}

void StorageManager::advanceHorizon(uint64_t oldestSnapshot) {
  uint64_t known = horizon_.load();
  while (oldestSnapshot > known && !horizon_.compare_exchange_weak(known, oldestSnapshot)) {
  }
}

CompactionOutcome StorageManager::compactAll() {
  std::lock_guard lock(compactionMutex_);
  const uint64_t horizon = horizon_.load();
  CompactionOutcome total;
  if (horizon == 0) return total;  // not told yet
  std::set<uint64_t> inPrepared;   // a prepared record names their files: they stay until it is decided
  {
    std::lock_guard managerLock(mutex_);
    for (const auto& [id, prepared] : prepared_)
      inPrepared.insert(prepared.storageIds.begin(), prepared.storageIds.end());
  }
  for (const auto& partition : partitions()) {
    if (inPrepared.contains(partition->storageId())) continue;
    CompactionOutcome outcome =
        compactPartition(*partition, horizon, memory_, store_, [this] { return nextNumaNode(); });
    total.segmentsRewritten += outcome.segmentsRewritten;
    total.segmentsWritten += outcome.segmentsWritten;
    total.rowsRemoved += outcome.rowsRemoved;
  }
  return total;
}

KeyCheckOutcome StorageManager::checkUniqueKeys(uint64_t storageId, const KeyCheck& check) {
  std::shared_ptr<TablePartition> partition = find(storageId);
  if (!partition) return {};
  for (const auto& key : check.keys) {
    if (key.columns.empty() || std::any_of(key.columns.begin(), key.columns.end(),
                                           [&](size_t column) { return column >= partition->columns().size(); })) {
      SHOAL_USER_FAIL(SqlState::kProtocolViolation, "unique key \"{}\" names columns \"{}\" does not have", key.name,
                      partition->tableName());
    }
  }
  // The transaction's earlier writes too: an UPDATE's new versions that skipped their own check meet these rows.
  for (uint64_t writeId : check.transaction.ownWrites) flushStaged(writeId, storageId);
  flushStaged(check.writeId, storageId);
  std::lock_guard lock(partition->keyCheckMutex());
  KeyCheckOutcome outcome = worker::checkUniqueKeys(*partition, check);
  if (outcome.rowsSkipped > 0) {  // ON CONFLICT deleted rows of the write: its prepare and abort must find them
    std::lock_guard managerLock(mutex_);
    deletesOf_[check.writeId].insert(storageId);
  }
  return outcome;
}

std::vector<LoadedPartition> StorageManager::prepare(uint64_t transactionId, const std::vector<uint64_t>& writeIds) {
  std::map<uint64_t, LoadedPartition> changed;                                // by storage id
  std::vector<std::pair<uint64_t, std::shared_ptr<StagedPartition>>> staged;  // with their write ids
  std::set<uint64_t> storageIds;
  {
    std::lock_guard lock(mutex_);
    for (uint64_t writeId : writeIds) {
      if (auto write = writes_.find(writeId); write != writes_.end()) {
        for (auto& [storageId, partition] : write->second) {
          staged.emplace_back(writeId, partition);
          storageIds.insert(storageId);
        }
      }
      if (auto deletes = deletesOf_.find(writeId); deletes != deletesOf_.end()) {
        storageIds.insert(deletes->second.begin(), deletes->second.end());
      }
    }
  }
  // Each table's last segment is built, written and synced; tables are independent, so they go over the
  // cores, the disk waits of one under the building of another.
  runOnCores(staged.size(), [&](size_t i) {
    flush(staged[i].first, *staged[i].second);
    if (store_) {
      std::vector<std::string> files;
      {
        std::lock_guard lock(staged[i].second->mutex);
        files = staged[i].second->files;
      }
      store_->syncSegments(staged[i].second->partition->storageId(), files);
    }
  });
  for (auto& [writeId, partition] : staged) {
    std::lock_guard lock(partition->mutex);
    LoadedPartition& loaded = changed[partition->partition->storageId()];
    loaded.storageId = partition->partition->storageId();
    loaded.rows += partition->rows;
    if (loaded.columnStatistics.empty()) {
      for (const auto& statistics : partition->statistics) loaded.columnStatistics.push_back(statistics.serialize());
    } else {
      for (size_t c = 0; c < partition->statistics.size(); ++c) {
        ColumnStatistics merged = ColumnStatistics::deserialize(partition->types[c], loaded.columnStatistics[c]);
        merged.merge(partition->statistics[c]);
        loaded.columnStatistics[c] = merged.serialize();
      }
    }
  }
  nlohmann::json record = {
      {"transaction", transactionId}, {"writes", writeIds}, {"partitions", nlohmann::json::array()}};
  for (uint64_t storageId : storageIds) {
    std::shared_ptr<TablePartition> partition = find(storageId);
    if (!partition) continue;
    nlohmann::json segments = nlohmann::json::array();
    nlohmann::json deletes = nlohmann::json::array();
    uint64_t deleted = 0;
    for (uint64_t writeId : writeIds) {
      const uint64_t single[] = {writeId};
      TablePartition::PendingChanges changes = partition->pendingChanges(single);
      for (const auto& segment : changes.segments) {
        segments.push_back({{"id", segment.id}, {"file", segment.file}, {"write", writeId}});
      }
      if (!changes.deletedRows.empty()) deletes.push_back({{"write", writeId}, {"rows", changes.deletedRows}});
      deleted += changes.deletedRows.size();
    }
    LoadedPartition& loaded = changed[storageId];
    loaded.storageId = storageId;
    loaded.rowsDeleted = deleted;
    record["partitions"].push_back({{"storage_id", storageId},
                                    {"table", partition->tableName()},
                                    {"columns", storedColumnsToJson(partition->columns())},
                                    {"segments", std::move(segments)},
                                    {"deletes", std::move(deletes)}});
  }
  if (store_ && !storageIds.empty()) store_->writePrepared(transactionId, record);
  faultPoint("worker-after-prepare");
  {
    std::lock_guard lock(mutex_);
    prepared_[transactionId] = PreparedTransaction{writeIds, storageIds};
    for (uint64_t writeId : writeIds) {
      writes_.erase(writeId);
      deletesOf_.erase(writeId);
    }
  }
  std::vector<LoadedPartition> result;
  for (auto& [storageId, loaded] : changed) result.push_back(std::move(loaded));
  return result;
}

void StorageManager::commitPrepared(uint64_t transactionId, uint64_t commitSeq) {
  PreparedTransaction transaction;
  {
    std::lock_guard lock(mutex_);
    auto found = prepared_.find(transactionId);
    if (found == prepared_.end()) return;
    transaction = found->second;
  }
  faultPoint("worker-before-commit");
  bool first = true;
  for (uint64_t storageId : transaction.storageIds) {
    if (!first) faultPoint("worker-mid-commit");
    first = false;
    std::shared_ptr<TablePartition> partition = find(storageId);
    if (!partition) continue;  // dropped meanwhile
    TablePartition::Persist persist;
    if (store_) {
      persist = [&](std::vector<StoredSegment>& committed, const std::vector<uint64_t>& newDeletes, uint64_t seq) {
        store_->persistCommit(*partition, committed, newDeletes, seq);
      };
    }
    partition->commit(transaction.writeIds, commitSeq, persist);
  }
  if (store_ && !transaction.storageIds.empty()) store_->removePrepared(transactionId);
  if (store_) store_->releaseBuffers();
  for (uint64_t writeId : transaction.writeIds) memory_.loadEnded(writeId);
  std::lock_guard lock(mutex_);
  prepared_.erase(transactionId);
  inDoubt_.erase(transactionId);
  decided_.notify_all();
}

void StorageManager::abort(uint64_t writeId) {
  memory_.loadEnded(writeId);
  StagedWrite write;
  std::set<uint64_t> storageIds;
  {
    std::lock_guard lock(mutex_);
    if (auto found = writes_.find(writeId); found != writes_.end()) {
      write = std::move(found->second);
      writes_.erase(found);
    }
    if (auto found = deletesOf_.find(writeId); found != deletesOf_.end()) {
      storageIds = std::move(found->second);
      deletesOf_.erase(found);
    }
    for (const auto& [id, prepared] : prepared_) {
      if (std::find(prepared.writeIds.begin(), prepared.writeIds.end(), writeId) != prepared.writeIds.end()) {
        storageIds.insert(prepared.storageIds.begin(), prepared.storageIds.end());
      }
    }
  }
  for (auto& [storageId, staged] : write) {
    std::lock_guard stagedLock(staged->mutex);
    staged->aborted = true;  // a segment still being built is discarded when it arrives
    storageIds.insert(storageId);
  }
  for (uint64_t storageId : storageIds) {
    std::shared_ptr<TablePartition> partition = find(storageId);
    if (!partition) continue;
    std::vector<std::string> files = partition->abort(writeId);
    if (store_) store_->discardSegments(storageId, files);
  }
}

void StorageManager::abortTransaction(uint64_t transactionId, const std::vector<uint64_t>& writeIds) {
  std::vector<uint64_t> writes = writeIds;
  bool wasPrepared = false;
  {
    std::lock_guard lock(mutex_);
    if (auto found = prepared_.find(transactionId); found != prepared_.end()) {
      writes.insert(writes.end(), found->second.writeIds.begin(), found->second.writeIds.end());
      wasPrepared = !found->second.storageIds.empty();
    }
  }
  std::sort(writes.begin(), writes.end());
  writes.erase(std::unique(writes.begin(), writes.end()), writes.end());
  for (uint64_t writeId : writes) abort(writeId);
  if (store_ && wasPrepared) store_->removePrepared(transactionId);
  std::lock_guard lock(mutex_);
  prepared_.erase(transactionId);
  inDoubt_.erase(transactionId);
  decided_.notify_all();
}

std::vector<LoadedPartition> StorageManager::commit(uint64_t writeId, uint64_t commitSeq) {
  std::vector<LoadedPartition> loaded = prepare(writeId, {writeId});
  commitPrepared(writeId, commitSeq);
  return loaded;
}

std::map<uint64_t, std::vector<uint64_t>> StorageManager::preparedTransactions() const {
  std::lock_guard lock(mutex_);
  std::map<uint64_t, std::vector<uint64_t>> result;
  for (const auto& [id, transaction] : prepared_) result[id] = transaction.writeIds;
  return result;
}

void StorageManager::drop(uint64_t storageId) {
  std::lock_guard compaction(compactionMutex_);  // a compaction in flight would write the files again
  {
    std::lock_guard lock(mutex_);
    partitions_.erase(storageId);
  }
  if (store_) store_->remove(storageId);
}

void StorageManager::recover() {
  if (!store_) return;
  std::vector<nlohmann::json> records = store_->preparedRecords();
  std::set<std::pair<uint64_t, std::string>> keep;
  for (const auto& record : records) {
    for (const auto& partition : record.value("partitions", nlohmann::json::array())) {
      for (const auto& segment : partition.value("segments", nlohmann::json::array())) {
        keep.emplace(partition.at("storage_id").get<uint64_t>(), segment.at("file").get<std::string>());
      }
    }
  }
  for (auto& partition : store_->recover(memory_, keep)) adopt(std::move(partition));
  recoverPrepared(records);
}

void StorageManager::recoverPrepared(const std::vector<nlohmann::json>& records) {
  for (const auto& record : records) {
    const uint64_t transactionId = record.at("transaction").get<uint64_t>();
    PreparedTransaction transaction;
    transaction.writeIds = record.at("writes").get<std::vector<uint64_t>>();
    try {
      for (const auto& entry : record.at("partitions")) {
        const uint64_t storageId = entry.at("storage_id").get<uint64_t>();
        std::shared_ptr<TablePartition> partition =
            findOrCreate(storageId, entry.at("table").get<std::string>(), storedColumnsFromJson(entry.at("columns")));
        transaction.storageIds.insert(storageId);
        std::set<uint64_t> committedIds;
        for (const auto& segment : partition->committedSegments()) committedIds.insert(segment.id);
        for (const auto& segment : entry.at("segments")) {
          const uint64_t id = segment.at("id").get<uint64_t>();
          if (committedIds.contains(id)) continue;  // its commit reached the manifest before the crash
          const std::string file = segment.at("file").get<std::string>();
          partition->addUncommitted(segment.at("write").get<uint64_t>(),
                                    store_->readSegment(*partition, file, nextNumaNode(), memory_), id, file);
        }
        for (const auto& deletes : entry.at("deletes")) {
          const uint64_t writeId = deletes.at("write").get<uint64_t>();
          const std::vector<uint64_t> rows = deletes.at("rows").get<std::vector<uint64_t>>();
          // Rows whose delete already reached the manifest are skipped: deleted before this snapshot.
          partition->deleteRows(writeId, ReadSnapshot{ReadSnapshot::kLatest, transaction.writeIds}, rows);
        }
      }
    } catch (const std::exception& error) {
      spdlog::error("prepared transaction {} could not be rebuilt ({}); it will abort", transactionId, error.what());
    }
    spdlog::info("transaction {} is prepared and awaits the coordinator's decision", transactionId);
    std::lock_guard lock(mutex_);
    prepared_[transactionId] = std::move(transaction);
    inDoubt_.insert(transactionId);
  }
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

void StorageManager::addSegment(uint64_t writeId, StagedPartition& staged, const std::vector<engine::Chunk>& chunks) {
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
  const uint64_t segmentId = staged.partition->newSegmentId();
  std::string file;
  if (store_) file = store_->writeSegment(*staged.partition, segmentId, *segment);
  std::lock_guard lock(staged.mutex);
  if (staged.aborted) {
    if (store_) store_->discardSegments(staged.partition->storageId(), {file});
    return;
  }
  for (size_t c = 0; c < statistics.size(); ++c) staged.statistics[c].merge(statistics[c]);
  if (store_) staged.files.push_back(file);
  staged.partition->addUncommitted(writeId, std::move(segment), segmentId, std::move(file));
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
