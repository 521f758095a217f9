#include "worker/storage/unique_keys.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "common/status.h"
#include "engine/aggregate/scalar_aggregate.h"
#include "engine/vector/chunk_codec.h"
#include "engine/vector/key_bytes.h"
#include "engine/vector/vector_hash.h"

namespace shoal::worker {

namespace {

/// A row of the checked write: the hash of its key, and where it is (an index into the write's segments).
struct NewRow {
  uint64_t hash;
  uint32_t segment;
  uint32_t row;
  bool operator<(const NewRow& other) const {
    return std::tie(hash, segment, row) < std::tie(other.hash, other.segment, other.row);
  }
};

/// Types whose zone maps order their values as keys compare: a segment whose range misses every new key
/// cannot hold a conflict.
bool zoneMapsOrderKeys(const engine::LogicalType& type) {
  switch (type.id()) {
    case engine::TypeId::kSmallInt:
    case engine::TypeId::kInteger:
    case engine::TypeId::kBigInt:
    case engine::TypeId::kDate:
    case engine::TypeId::kDecimal:
    case engine::TypeId::kTimestamp:
    case engine::TypeId::kTimestampTz:
      return true;
    default:
      return false;
  }
}

class KeyChecker {
 public:
  KeyChecker(TablePartition& partition, const KeyCheck& check)
      : partition_(partition), check_(check), versions_(partition.allVersions()) {
    for (const auto& stored : versions_.segments) {
      const bool ownNew = stored.commitSeq == StoredSegment::kUncommitted && stored.writeId == check.writeId;
      (ownNew ? written_ : others_).push_back(&stored);
    }
  }

  KeyCheckOutcome run() {
    if (written_.empty()) return {};
    // ON CONFLICT's arbiters first: a row they drop is not checked against the other keys (as in PostgreSQL,
    // where the arbiters' conflict decides before the insert meets the others).
    for (const auto& key : check_.keys) {
      if (key.arbiter) checkKey(key);
    }
    for (const auto& key : check_.keys) {
      if (!key.arbiter) checkKey(key);
    }
    KeyCheckOutcome outcome;
    if (dropped_.empty()) return outcome;
    std::vector<uint64_t> rowKeys(dropped_.begin(), dropped_.end());
    std::sort(rowKeys.begin(), rowKeys.end());
    outcome.rowsSkipped = partition_.deleteRows(check_.writeId, check_.transaction, rowKeys);
    if (check_.action == ConflictAction::kReport) outcome.reported = reportedRows(rowKeys);
    return outcome;
  }

 private:
  /// The key columns of rows [0, n) of `segment`.
  engine::Chunk readKeys(const Segment& segment, const UniqueKey& key) const {
    engine::Chunk keys;
    for (size_t column : key.columns) {
      keys.addColumn(engine::Vector::uninitialized(partition_.columns()[column].type, segment.size()));
    }
    segment.read(0, segment.size(), key.columns, keys);
    return keys;
  }

  static bool hasNull(const engine::Chunk& keys, size_t row) {
    for (size_t c = 0; c < keys.numColumns(); ++c) {
      if (keys.column(c).isNull(row)) return true;
    }
    return false;
  }

  static std::vector<uint64_t> hashes(const engine::Chunk& keys) {
    std::vector<uint64_t> out(keys.size());
    for (size_t c = 0; c < keys.numColumns(); ++c)
      engine::hashVector(keys.column(c), 0, keys.size(), out.data(), c > 0);
    return out;
  }

  static std::string bytesOf(const engine::Chunk& keys, size_t row) {
    std::string bytes;
    for (size_t c = 0; c < keys.numColumns(); ++c) engine::appendKeyBytes(keys.column(c), row, bytes);
    return bytes;
  }

  void checkKey(const UniqueKey& key) {
    // The write's rows, by hash; their key columns stay read for comparing bytes.
    std::vector<engine::Chunk> writtenKeys;
    std::vector<NewRow> rows;
    for (uint32_t s = 0; s < written_.size(); ++s) {
      const StoredSegment& stored = *written_[s];
      writtenKeys.push_back(readKeys(*stored.segment, key));
      const engine::Chunk& keys = writtenKeys.back();
      std::vector<uint64_t> hash = hashes(keys);
      for (uint32_t r = 0; r < keys.size(); ++r) {
        if (hasNull(keys, r) || dropped_.contains(rowKeyOf(stored.id, r))) continue;
        rows.push_back({hash[r], s, r});
      }
    }
    std::sort(rows.begin(), rows.end());
    auto rowKey = [&](const NewRow& row) { return rowKeyOf(written_[row.segment]->id, row.row); };
    auto bytesOfNew = [&](const NewRow& row) { return bytesOf(writtenKeys[row.segment], row.row); };

    // Rows of the write that repeat a key of an earlier one.
    for (size_t first = 0; first < rows.size();) {
      size_t end = first + 1;
      while (end < rows.size() && rows[end].hash == rows[first].hash) ++end;
      for (size_t j = first + 1; j < end; ++j) {
        const std::string bytes = bytesOfNew(rows[j]);
        for (size_t i = first; i < j; ++i) {
          if (dropped_.contains(rowKey(rows[i])) || bytesOfNew(rows[i]) != bytes) continue;
          if (key.arbiter && check_.action == ConflictAction::kSkip) {
            dropped_.insert(rowKey(rows[j]));
          } else if (key.arbiter && check_.action == ConflictAction::kReport) {
            throw ShoalError(
                Status(SqlState::kCardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time")
                    .withHint("Ensure that no rows proposed for insertion within the same command have "
                              "duplicate constrained values."));
          } else {
            failDuplicate(key, writtenKeys[rows[j].segment], rows[j].row);
          }
          break;
        }
      }
      first = end;
    }
    std::erase_if(rows, [&](const NewRow& row) { return dropped_.contains(rowKey(row)); });
    if (rows.empty()) return;

    // The range of the new keys' first column, to pass over segments that cannot hold one.
    const engine::LogicalType& firstType = partition_.columns()[key.columns[0]].type;
    std::optional<engine::Value> low, high;
    if (zoneMapsOrderKeys(firstType)) {
      for (const auto& row : rows) {
        engine::Value value = writtenKeys[row.segment].column(0).getValue(row.row);
        if (!low || engine::compareValues(value, *low) < 0) low = value;
        if (!high || engine::compareValues(value, *high) > 0) high = value;
      }
    }

    for (const StoredSegment* stored : others_) {
      if (low) {
        const ZoneMap& zone = stored->segment->column(key.columns[0]).zoneMap();
        if (zone.ranged && (zone.min.isNull() || engine::compareValues(zone.max, *low) < 0 ||
                            engine::compareValues(zone.min, *high) > 0)) {
          continue;
        }
      }
      const bool committed = stored->commitSeq != StoredSegment::kUncommitted;
      // Rows another transaction is adding may vanish, or stay.
      const bool segmentCertain = committed || check_.transaction.owns(stored->writeId);
      const engine::Chunk keys = readKeys(*stored->segment, key);
      const std::vector<uint64_t> hash = hashes(keys);
      for (uint32_t r = 0; r < keys.size(); ++r) {
        auto [match, matchEnd] = std::equal_range(rows.begin(), rows.end(), NewRow{hash[r], 0, 0},
                                                  [](const NewRow& a, const NewRow& b) { return a.hash < b.hash; });
        if (match == matchEnd || hasNull(keys, r)) continue;
        if (committed && stored->deletes && stored->deletes->deletedBy(r) != 0) continue;  // gone
        bool certain = segmentCertain;
        if (auto lock = versions_.rowLocks.find(rowKeyOf(stored->id, r)); lock != versions_.rowLocks.end()) {
          if (check_.transaction.owns(lock->second)) continue;  // this transaction deletes it
          certain = false;                                      // another one does, and may roll back
        }
        const std::string bytes = bytesOf(keys, r);
        for (auto candidate = match; candidate != matchEnd; ++candidate) {
          if (dropped_.contains(rowKey(*candidate)) || bytesOfNew(*candidate) != bytes) continue;
          if (!certain) failConcurrent(key);
          if (!key.arbiter || check_.action == ConflictAction::kFail) {
            failDuplicate(key, writtenKeys[candidate->segment], candidate->row);
          }
          // DO UPDATE reads at the statement's snapshot: a row committed since is one it cannot update.
          if (check_.action == ConflictAction::kReport && committed &&
              stored->commitSeq > check_.transaction.commitSeq) {
            failConcurrent(key);
          }
          dropped_.insert(rowKey(*candidate));
        }
      }
    }
  }

  [[noreturn]] void failDuplicate(const UniqueKey& key, const engine::Chunk& keys, size_t row) const {
    std::string names;
    std::string values;
    for (size_t c = 0; c < key.columns.size(); ++c) {
      if (c > 0) {
        names += ", ";
        values += ", ";
      }
      names += partition_.columns()[key.columns[c]].name;
      keys.column(c).appendText(row, values);
    }
    throw ShoalError(Status(SqlState::kUniqueViolation,
                            fmt::format("duplicate key value violates unique constraint \"{}\"", key.name))
                         .withDetail(fmt::format("Key ({})=({}) already exists.", names, values)));
  }

  [[noreturn]] void failConcurrent(const UniqueKey& key) const {
    throw ShoalError(
        Status(SqlState::kSerializationFailure, "could not serialize access due to concurrent update")
            .withDetail(fmt::format("Another transaction is writing a row of \"{}\" with the same value of \"{}\".",
                                    partition_.tableName(), key.name))
            .withHint("Retry the transaction."));
  }

  /// The dropped rows of the write, every column, as chunks encoded back to back (encoded here, while the
  /// segments their strings point into are held).
  std::string reportedRows(const std::vector<uint64_t>& rowKeys) const {
    std::vector<size_t> all(partition_.columns().size());
    std::iota(all.begin(), all.end(), size_t{0});
    std::string encoded;
    for (const StoredSegment* stored : written_) {
      std::vector<uint32_t> rows;
      for (uint64_t key : rowKeys) {
        if (segmentOfRowKey(key) == stored->id) rows.push_back(rowOfRowKey(key));
      }
      if (rows.empty()) continue;
      engine::Chunk whole;
      for (const auto& column : partition_.columns()) {
        whole.addColumn(engine::Vector::uninitialized(column.type, stored->segment->size()));
      }
      stored->segment->read(0, stored->segment->size(), all, whole);
      engine::encodeChunkRows(whole, rows, encoded);
    }
    return encoded;
  }

  TablePartition& partition_;
  const KeyCheck& check_;
  const TablePartition::AllVersions versions_;
  std::vector<const StoredSegment*> written_;  // the checked write's segments
  std::vector<const StoredSegment*> others_;   // every other
  std::unordered_set<uint64_t> dropped_;       // row keys of the write's rows ON CONFLICT drops
};

}  // namespace

KeyCheckOutcome checkUniqueKeys(TablePartition& partition, const KeyCheck& check) {
  return KeyChecker(partition, check).run();
}

}  // namespace shoal::worker
