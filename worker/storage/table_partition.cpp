#include "worker/storage/table_partition.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "common/status.h"

namespace shoal::worker {

namespace {

/// How long deleteRows follows rows that compaction moved: a statement that found them longer ago fails 40001.
constexpr std::chrono::minutes kMoveMemory{10};

[[noreturn]] void failConcurrentUpdate(const std::string& tableName) {
  throw ShoalError(
      Status(SqlState::kSerializationFailure, "could not serialize access due to concurrent update")
          .withDetail(fmt::format("Another transaction changed a row of \"{}\" that this one changes.", tableName))
          .withHint("Retry the transaction."));
}

}  // namespace

std::vector<engine::LogicalType> TablePartition::columnTypes() const {
  std::vector<engine::LogicalType> types;
  for (const auto& column : columns_) types.push_back(column.type);
  return types;
}

uint64_t TablePartition::newSegmentId() {
  std::lock_guard lock(mutex_);
  return nextSegmentId_++;
}

void TablePartition::addCommitted(StoredSegment segment) {
  std::lock_guard lock(mutex_);
  nextSegmentId_ = std::max(nextSegmentId_, segment.id + 1);
  const uint64_t id = segment.id;
  segments_[id] = std::move(segment);
}

void TablePartition::addUncommitted(uint64_t writeId, std::shared_ptr<const Segment> segment, uint64_t id,
                                    std::string file) {
  std::lock_guard lock(mutex_);
  nextSegmentId_ = std::max(nextSegmentId_, id + 1);
  StoredSegment& stored = segments_[id];
  stored.segment = std::move(segment);
  stored.id = id;
  stored.commitSeq = StoredSegment::kUncommitted;
  stored.writeId = writeId;
  stored.file = std::move(file);
}

uint64_t TablePartition::deleteRows(uint64_t writeId, const ReadSnapshot& snapshot, std::span<const uint64_t> rowKeys) {
  std::lock_guard lock(mutex_);
  // Checked in full before any row is locked, so that a conflict leaves no lock behind.
  std::vector<uint64_t> toLock;
  toLock.reserve(rowKeys.size());
  for (uint64_t key : rowKeys) {
    // A row found before compaction moved it: follow it to its new segment. One it removed was deleted before
    // any snapshot in use, so not a row this write could see.
    bool gone = false;
    for (auto move = moved_.find(segmentOfRowKey(key)); move != moved_.end();
         move = moved_.find(segmentOfRowKey(key))) {
      const auto& rows = move->second.first.newRow;
      const uint32_t row = rowOfRowKey(key);
      if (row >= rows.size() || rows[row] < 0) {
        gone = true;
        break;
      }
      key = rowKeyOf(move->second.first.newSegmentId, static_cast<uint32_t>(rows[row]));
    }
    if (gone) continue;
    auto segment = segments_.find(segmentOfRowKey(key));
    if (segment == segments_.end()) failConcurrentUpdate(tableName_);
    const StoredSegment& stored = segment->second;
    const bool committed = stored.commitSeq != StoredSegment::kUncommitted;
    if (committed ? stored.commitSeq > snapshot.commitSeq : !snapshot.owns(stored.writeId)) {
      failConcurrentUpdate(tableName_);
    }
    if (stored.deletes) {
      const uint64_t deletedBy = stored.deletes->deletedBy(rowOfRowKey(key));
      if (deletedBy > snapshot.commitSeq) failConcurrentUpdate(tableName_);
      if (deletedBy != 0) continue;  // gone before the snapshot: not a row this write could see
    }
    if (auto lock = rowLocks_.find(key); lock != rowLocks_.end()) {
      if (lock->second == writeId || snapshot.owns(lock->second)) continue;
      failConcurrentUpdate(tableName_);
    }
    toLock.push_back(key);
  }
  std::sort(toLock.begin(), toLock.end());
  toLock.erase(std::unique(toLock.begin(), toLock.end()), toLock.end());
  std::vector<uint64_t>& pending = pendingDeletes_[writeId];
  for (uint64_t key : toLock) {
    rowLocks_.emplace(key, writeId);
    pending.push_back(key);
  }
  return toLock.size();
}

TablePartition::AllVersions TablePartition::allVersions() const {
  std::lock_guard lock(mutex_);
  AllVersions versions;
  for (const auto& [id, stored] : segments_) versions.segments.push_back(stored);
  versions.rowLocks = rowLocks_;
  return versions;
}

std::vector<VisibleSegment> TablePartition::visible(const ReadSnapshot& snapshot) const {
  std::lock_guard lock(mutex_);
  std::vector<VisibleSegment> result;
  std::unordered_map<uint64_t, size_t> positionOf;
  for (const auto& [id, stored] : segments_) {
    const bool committed = stored.commitSeq != StoredSegment::kUncommitted;
    if (committed ? stored.commitSeq > snapshot.commitSeq : !snapshot.owns(stored.writeId)) continue;
    VisibleSegment& segment = result.emplace_back(VisibleSegment{stored.segment, id, {}});
    if (stored.deletes) {
      for (size_t i = 0; i < stored.deletes->size(); ++i) {
        if (stored.deletes->commitSeqs[i] <= snapshot.commitSeq) segment.deletedRows.push_back(stored.deletes->rows[i]);
      }
    }
    positionOf[id] = result.size() - 1;
  }
  // The transaction's own deletes, not yet committed.
  std::unordered_set<size_t> touched;
  for (uint64_t writeId : snapshot.ownWrites) {
    auto pending = pendingDeletes_.find(writeId);
    if (pending == pendingDeletes_.end()) continue;
    for (uint64_t key : pending->second) {
      auto position = positionOf.find(segmentOfRowKey(key));
      if (position == positionOf.end()) continue;
      result[position->second].deletedRows.push_back(rowOfRowKey(key));
      touched.insert(position->second);
    }
  }
  for (size_t position : touched) {
    auto& rows = result[position].deletedRows;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }
  // A segment whose every row is gone is not worth a morsel.
  std::erase_if(result, [](const VisibleSegment& segment) { return segment.liveRows() == 0; });
  return result;
}

std::vector<std::shared_ptr<const Segment>> TablePartition::snapshot() const {
  std::vector<std::shared_ptr<const Segment>> segments;
  for (auto& segment : visible(ReadSnapshot{})) segments.push_back(std::move(segment.segment));
  return segments;
}

size_t TablePartition::numRows() const {
  size_t rows = 0;
  for (const auto& segment : visible(ReadSnapshot{})) rows += segment.liveRows();
  return rows;
}

size_t TablePartition::memoryBytes() const {
  std::lock_guard lock(mutex_);
  size_t bytes = 0;
  for (const auto& [id, stored] : segments_) bytes += stored.segment->memoryBytes();
  return bytes;
}

TablePartition::PendingChanges TablePartition::pendingChanges(std::span<const uint64_t> writeIds) const {
  std::lock_guard lock(mutex_);
  PendingChanges changes;
  auto ofWrites = [&](uint64_t writeId) {
    return std::find(writeIds.begin(), writeIds.end(), writeId) != writeIds.end();
  };
  for (const auto& [id, stored] : segments_) {
    if (stored.commitSeq == StoredSegment::kUncommitted && ofWrites(stored.writeId)) changes.segments.push_back(stored);
  }
  for (uint64_t writeId : writeIds) {
    auto pending = pendingDeletes_.find(writeId);
    if (pending != pendingDeletes_.end()) {
      changes.deletedRows.insert(changes.deletedRows.end(), pending->second.begin(), pending->second.end());
    }
  }
  return changes;
}

bool TablePartition::hasPendingChanges(std::span<const uint64_t> writeIds) const {
  std::lock_guard lock(mutex_);
  for (uint64_t writeId : writeIds) {
    if (pendingDeletes_.contains(writeId)) return true;
  }
  for (const auto& [id, stored] : segments_) {
    if (stored.commitSeq == StoredSegment::kUncommitted &&
        std::find(writeIds.begin(), writeIds.end(), stored.writeId) != writeIds.end()) {
      return true;
    }
  }
  return false;
}

void TablePartition::commit(std::span<const uint64_t> writeIds, uint64_t commitSeq, const Persist& persist) {
  std::lock_guard commitLock(commitMutex_);
  std::vector<StoredSegment> committed;
  std::vector<uint64_t> newDeletes;
  {
    std::lock_guard lock(mutex_);
    auto ofWrites = [&](uint64_t writeId) {
      return std::find(writeIds.begin(), writeIds.end(), writeId) != writeIds.end();
    };
    // Deleted rows per segment, with the new ones merged in by row.
    std::map<uint64_t, std::vector<uint32_t>> deletedBySegment;
    for (uint64_t writeId : writeIds) {
      auto pending = pendingDeletes_.find(writeId);
      if (pending == pendingDeletes_.end()) continue;
      for (uint64_t key : pending->second) deletedBySegment[segmentOfRowKey(key)].push_back(rowOfRowKey(key));
    }
    for (const auto& [id, stored] : segments_) {
      const bool committing = stored.commitSeq == StoredSegment::kUncommitted && ofWrites(stored.writeId);
      if (stored.commitSeq == StoredSegment::kUncommitted && !committing) continue;
      StoredSegment next = stored;
      if (committing) {
        next.commitSeq = commitSeq;
        next.writeId = 0;
      }
      if (auto rows = deletedBySegment.find(id); rows != deletedBySegment.end()) {
        auto merged = std::make_shared<DeleteVector>();
        std::sort(rows->second.begin(), rows->second.end());
        const DeleteVector empty;
        const DeleteVector& old = stored.deletes ? *stored.deletes : empty;
        size_t i = 0;
        for (uint32_t row : rows->second) {
          while (i < old.size() && old.rows[i] < row) {
            merged->rows.push_back(old.rows[i]);
            merged->commitSeqs.push_back(old.commitSeqs[i++]);
          }
          if (i < old.size() && old.rows[i] == row) continue;  // committed before (a repeated commit)
          merged->rows.push_back(row);
          merged->commitSeqs.push_back(commitSeq);
        }
        for (; i < old.size(); ++i) {
          merged->rows.push_back(old.rows[i]);
          merged->commitSeqs.push_back(old.commitSeqs[i]);
        }
        next.deletes = std::move(merged);
        newDeletes.push_back(id);
      }
      committed.push_back(std::move(next));
    }
  }
  if (persist) persist(committed, newDeletes, commitSeq);
  std::lock_guard lock(mutex_);
  for (auto& segment : committed) {
    const uint64_t id = segment.id;
    segments_[id] = std::move(segment);
  }
  for (uint64_t writeId : writeIds) {
    auto pending = pendingDeletes_.find(writeId);
    if (pending == pendingDeletes_.end()) continue;
    for (uint64_t key : pending->second) rowLocks_.erase(key);
    pendingDeletes_.erase(pending);
  }
}

std::vector<std::string> TablePartition::abort(uint64_t writeId) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> files;
  for (auto it = segments_.begin(); it != segments_.end();) {
    if (it->second.commitSeq == StoredSegment::kUncommitted && it->second.writeId == writeId) {
      if (!it->second.file.empty()) files.push_back(it->second.file);
      it = segments_.erase(it);
    } else {
      ++it;
    }
  }
  if (auto pending = pendingDeletes_.find(writeId); pending != pendingDeletes_.end()) {
    for (uint64_t key : pending->second) rowLocks_.erase(key);
    pendingDeletes_.erase(pending);
  }
  return files;
}

bool TablePartition::replaceSegments(const std::vector<StoredSegment>& inputs, std::vector<StoredSegment> replacements,
                                     std::map<uint64_t, SegmentMove> moves, const PersistCompaction& persist) {
  std::lock_guard commitLock(commitMutex_);
  // Held through the persist, so that no write locks a row of an input between the check and the swap.
  std::lock_guard lock(mutex_);
  std::set<uint64_t> replaced;
  for (const auto& input : inputs) {
    auto found = segments_.find(input.id);
    if (found == segments_.end() || found->second.commitSeq != input.commitSeq ||
        found->second.deletes != input.deletes) {
      return false;
    }
    replaced.insert(input.id);
  }
  for (const auto& [key, write] : rowLocks_) {
    if (replaced.contains(segmentOfRowKey(key))) return false;
  }
  std::vector<StoredSegment> committed;
  for (const auto& [id, stored] : segments_) {
    if (stored.commitSeq != StoredSegment::kUncommitted && !replaced.contains(id)) committed.push_back(stored);
  }
  std::vector<uint64_t> newDeletes;
  for (auto& replacement : replacements) {
    if (replacement.deletes) newDeletes.push_back(replacement.id);
    committed.push_back(std::move(replacement));
  }
  std::sort(committed.begin(), committed.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  if (persist) persist(committed, newDeletes);
  for (uint64_t id : replaced) segments_.erase(id);
  // Moves are followed for a while: long enough for any statement that found rows before to delete them.
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(moved_, [&](const auto& entry) { return now - entry.second.second > kMoveMemory; });
  for (auto& [id, move] : moves) moved_[id] = {std::move(move), now};
  for (auto& stored : committed) {
    if (!segments_.contains(stored.id)) {
      const uint64_t id = stored.id;
      segments_[id] = std::move(stored);
    }
  }
  return true;
}

std::vector<StoredSegment> TablePartition::committedSegments() const {
  std::lock_guard lock(mutex_);
  std::vector<StoredSegment> committed;
  for (const auto& [id, stored] : segments_) {
    if (stored.commitSeq != StoredSegment::kUncommitted) committed.push_back(stored);
  }
  return committed;
}

void TablePartition::checkReadable(std::span<const engine::LogicalType> plannedTypes) const {
  if (std::string why = corruption(); !why.empty()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "table \"{}\" cannot be read on this worker: {}", tableName_, why);
  }
  std::vector<engine::LogicalType> types = columnTypes();
  if (!std::equal(types.begin(), types.end(), plannedTypes.begin(), plannedTypes.end())) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "table \"{}\" on this worker does not have the planned columns",
                    tableName_);
  }
}

}  // namespace shoal::worker
