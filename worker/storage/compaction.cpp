#include "worker/storage/compaction.h"

#include <algorithm>
#include <numeric>
#include <set>

#include <spdlog/spdlog.h>

namespace shoal::worker {

namespace {

/// A segment with at most this share of kSegmentRows live is merged with its neighbours.
constexpr size_t kSmallSegmentRows = kSegmentRows / 4;
/// A segment is rewritten alone once this share of its rows (1 in N) is garbage: a scan pays for every row it
/// skips, and rewriting one segment costs about as much as a few scans of it.
constexpr size_t kGarbageShare = 16;

struct Candidate {
  const StoredSegment* stored;
  std::vector<uint32_t> liveRows;                          // not deleted at or before the horizon
  std::vector<std::pair<uint32_t, uint64_t>> lateDeletes;  // deleted after it: row, commit
};

/// Rows of `stored` deleted at or before the horizon: no snapshot from it on reads them.
size_t garbageOf(const StoredSegment& stored, uint64_t horizon) {
  if (!stored.deletes) return 0;
  return static_cast<size_t>(std::count_if(stored.deletes->commitSeqs.begin(), stored.deletes->commitSeqs.end(),
                                           [&](uint64_t seq) { return seq <= horizon; }));
}

Candidate candidateOf(const StoredSegment& stored, uint64_t horizon) {
  Candidate candidate{&stored, {}, {}};
  const DeleteVector empty;
  const DeleteVector& deletes = stored.deletes ? *stored.deletes : empty;
  size_t next = 0;
  for (uint32_t row = 0; row < stored.segment->size(); ++row) {
    if (next < deletes.size() && deletes.rows[next] == row) {
      const uint64_t seq = deletes.commitSeqs[next++];
      if (seq <= horizon) continue;
      candidate.lateDeletes.emplace_back(row, seq);
    }
    candidate.liveRows.push_back(row);
  }
  return candidate;
}

/// The segments to rewrite, in groups that each become one segment: a segment with enough garbage alone, and
/// small ones together up to a segment's rows. Groups that would change nothing are left out.
std::vector<std::vector<Candidate>> groupsToRewrite(const TablePartition::AllVersions& versions, uint64_t horizon) {
  std::set<uint64_t> locked;
  for (const auto& [key, write] : versions.rowLocks) locked.insert(segmentOfRowKey(key));
  std::vector<std::vector<Candidate>> groups;
  std::vector<Candidate> small;
  size_t smallRows = 0;
  bool smallHasGarbage = false;
  auto closeSmall = [&] {
    if (small.size() > 1 || smallHasGarbage) groups.push_back(std::move(small));
    small.clear();
    smallRows = 0;
    smallHasGarbage = false;
  };
  for (const auto& stored : versions.segments) {
    if (stored.commitSeq == StoredSegment::kUncommitted || stored.commitSeq > horizon) continue;
    if (locked.contains(stored.id)) continue;
    const size_t size = stored.segment->size();
    const size_t garbage = garbageOf(stored, horizon);
    const size_t live = size - garbage;
    if (live <= kSmallSegmentRows) {
      if (smallRows + live > kSegmentRows) closeSmall();
      smallRows += live;
      smallHasGarbage = smallHasGarbage || garbage > 0;
      small.push_back(candidateOf(stored, horizon));
    } else if (garbage * kGarbageShare >= size) {
      groups.push_back({candidateOf(stored, horizon)});
    }
  }
  closeSmall();
  return groups;
}

/// The new segment of `group` (null when no row is left), with its late deletes.
std::optional<StoredSegment> rewrite(TablePartition& partition, const std::vector<Candidate>& group,
                                     SegmentMemory& memory, uint32_t numaNode) {
  const std::vector<engine::LogicalType> types = partition.columnTypes();
  std::vector<size_t> all(types.size());
  std::iota(all.begin(), all.end(), size_t{0});
  std::vector<engine::Chunk> chunks;
  auto deletes = std::make_shared<DeleteVector>();
  uint64_t newest = 0;
  uint32_t position = 0;
  for (const auto& candidate : group) {
    newest = std::max(newest, candidate.stored->commitSeq);
    const Segment& segment = *candidate.stored->segment;
    engine::Chunk whole;
    for (const auto& type : types) whole.addColumn(engine::Vector::uninitialized(type, segment.size()));
    segment.read(0, segment.size(), all, whole);
    engine::Chunk live(candidate.liveRows.size());
    for (size_t c = 0; c < types.size(); ++c) live.addColumn(whole.column(c).select(candidate.liveRows));
    size_t late = 0;
    for (size_t i = 0; i < candidate.liveRows.size(); ++i) {
      if (late < candidate.lateDeletes.size() && candidate.lateDeletes[late].first == candidate.liveRows[i]) {
        deletes->rows.push_back(position + static_cast<uint32_t>(i));
        deletes->commitSeqs.push_back(candidate.lateDeletes[late++].second);
      }
    }
    position += static_cast<uint32_t>(candidate.liveRows.size());
    if (live.size() > 0) chunks.push_back(std::move(live));
  }
  if (position == 0) return std::nullopt;
  StoredSegment stored;
  stored.segment = Segment::build(types, chunks, numaNode, memory);
  stored.id = partition.newSegmentId();
  stored.commitSeq = newest;
  if (!deletes->rows.empty()) stored.deletes = std::move(deletes);
  return stored;
}

}  // namespace

CompactionOutcome compactPartition(TablePartition& partition, uint64_t horizon, SegmentMemory& memory,
                                   PartitionStore* store, const std::function<uint32_t()>& numaNode) {
  CompactionOutcome outcome;
  if (!partition.corruption().empty()) return outcome;
  const TablePartition::AllVersions versions = partition.allVersions();
  for (const auto& group : groupsToRewrite(versions, horizon)) {
    std::optional<StoredSegment> replacement = rewrite(partition, group, memory, numaNode());
    const uint64_t newSegmentId = replacement ? replacement->id : 0;
    std::vector<StoredSegment> replacements;
    std::vector<std::string> newFiles;
    if (replacement) {
      if (store) {
        replacement->file = store->writeSegment(partition, replacement->id, *replacement->segment);
        newFiles.push_back(replacement->file);
        store->syncSegments(partition.storageId(), newFiles);
      }
      replacements.push_back(std::move(*replacement));
    }
    std::vector<StoredSegment> inputs;
    std::vector<std::string> oldFiles;
    uint64_t removed = 0;
    for (const auto& candidate : group) {
      inputs.push_back(*candidate.stored);
      removed += candidate.stored->segment->size() - candidate.liveRows.size();
      for (const auto* file : {&candidate.stored->file, &candidate.stored->deleteFile}) {
        if (!file->empty()) oldFiles.push_back(*file);
      }
    }
    TablePartition::PersistCompaction persist;
    if (store) {
      persist = [&](std::vector<StoredSegment>& committed, const std::vector<uint64_t>& newDeletes) {
        store->persistCommit(partition, committed, newDeletes, horizon);
      };
    }
    // Where each old row went, for statements that found it before the swap.
    std::map<uint64_t, TablePartition::SegmentMove> moves;
    int32_t next = 0;
    for (const auto& candidate : group) {
      TablePartition::SegmentMove& move = moves[candidate.stored->id];
      move.newSegmentId = newSegmentId;
      move.newRow.assign(candidate.stored->segment->size(), -1);
      for (uint32_t row : candidate.liveRows) move.newRow[row] = next++;
    }
    if (!partition.replaceSegments(inputs, std::move(replacements), std::move(moves), persist)) {
      if (store) store->discardSegments(partition.storageId(), newFiles);  // a commit got there first
      continue;
    }
    if (store) store->discardSegments(partition.storageId(), oldFiles);
    outcome.segmentsRewritten += inputs.size();
    outcome.segmentsWritten += replacement ? 1 : 0;
    outcome.rowsRemoved += removed;
  }
  if (outcome.segmentsRewritten > 0) {
    spdlog::info("compacted table {} (storage {}): {} segments into {}, {} deleted rows removed", partition.tableName(),
                 partition.storageId(), outcome.segmentsRewritten, outcome.segmentsWritten, outcome.rowsRemoved);
  }
  return outcome;
}

}  // namespace shoal::worker
