#include "engine/aggregate/hash_aggregation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "common/status.h"
#include "engine/aggregate/aggregate_states.h"
#include "engine/aggregate/group_store.h"
#include "engine/pipeline/query_memory.h"
#include "engine/types/interval.h"
#include "engine/vector/row_gather.h"
#include "engine/vector/vector_hash.h"

namespace shoal::engine {

using namespace aggregation;  // the group rows and their states (group_store.h, aggregate_states.h)

namespace {

size_t alignUp(size_t offset, size_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

}  // namespace

/// Where the hash, the keys and the aggregate states sit in a group row.
struct HashAggregation::Layout {
  static constexpr size_t kHashOffset = aggregation::kGroupHashOffset;
  static constexpr size_t kNullFlagsOffset = sizeof(uint64_t);

  Layout(const std::vector<LogicalType>& keyTypes, size_t numAggregates) {
    size_t offset = kNullFlagsOffset + keyTypes.size();
    for (const auto& type : keyTypes) {
      PhysicalType physical = type.physicalType();
      size_t width = physicalTypeWidth(physical);
      offset = alignUp(offset, std::min<size_t>(width, 16));
      keyPhysical.push_back(physical);
      keyIsInterval.push_back(type.id() == TypeId::kInterval);
      keyOffsets.push_back(offset);
      offset += width;
    }
    offset = alignUp(offset, 16);
    for (size_t i = 0; i < numAggregates; ++i) {
      stateOffsets.push_back(offset);
      offset += sizeof(AggregateState);
    }
    statesOffset = stateOffsets.empty() ? offset : stateOffsets[0];
    rowWidth = alignUp(std::max<size_t>(offset, 16), 16);
  }

  std::vector<PhysicalType> keyPhysical;
  std::vector<uint8_t> keyIsInterval;  // intervals are equal by span: '1 mon' = '30 days'
  std::vector<size_t> keyOffsets;
  std::vector<size_t> stateOffsets;
  size_t statesOffset = 0;
  size_t rowWidth = 0;
};

namespace {

using Layout = HashAggregation::Layout;

struct LocalTable final : LocalSinkState {
  explicit LocalTable(size_t rowWidth) : store(HashAggregation::kPartitions, rowWidth) {}
  GroupStore store;
  /// Once the groups outgrow the cache, input chunks wait here, their rows ordered by partition, until enough
  /// came to fold each partition's rows in together while that partition's groups are in cache.
  bool holdingBack = false;
  /// Held chunks, each with its rows ordered by partition: partition p's rows are [starts[p], starts[p + 1]).
  struct HeldChunk {
    Chunk rows;
    std::array<uint32_t, HashAggregation::kPartitions + 1> starts;
  };
  std::vector<HeldChunk> held;
  size_t heldCount = 0;
  size_t heldBytes = 0;
};

/// The size of a thread's groups past which its input is held back and folded in partition by partition: about
/// what the core's cache holds (20k groups of TPC-H's partkey aggregate directly at 2.5x the speed of 200k).
constexpr size_t kCachedGroupBytes = size_t{2} << 20;
/// Held rows are folded in once there are this many times the groups (each partition's groups then serve
/// several rows each while in cache), within these bounds.
constexpr size_t kHeldRowsPerGroup = 4;
constexpr size_t kMinimumHeldRows = size_t{256} << 10;
constexpr size_t kMaximumHeldRows = size_t{1} << 20;

size_t partitionOf(uint64_t hash) {
  static_assert(HashAggregation::kPartitions <= 256, "a row's partition is kept in a byte");
  return hash >> (64 - HashAggregation::kPartitionBits);
}

size_t groupBytes(const GroupStore& store) {
  size_t bytes = 0;
  for (const auto& partition : store.partitions) bytes += partition.memoryBytes();
  return bytes;
}

size_t groupCount(const GroupStore& store) {
  size_t groups = 0;
  for (const auto& partition : store.partitions) groups += partition.size();
  return groups;
}

/// Whether key `k` of an input row equals the group row's.
bool keyEquals(const Vector& column, size_t row, PhysicalType physical, const uint8_t* groupValue, bool groupNull) {
  bool null = column.isNull(row);
  if (null != groupNull) return false;
  if (null) return true;
  switch (physical) {
    case PhysicalType::kBool:
      return column.data<uint8_t>()[row] == *groupValue;
    case PhysicalType::kInt32:
      return std::memcmp(column.data<int32_t>() + row, groupValue, 4) == 0;
    case PhysicalType::kInt64:
      return std::memcmp(column.data<int64_t>() + row, groupValue, 8) == 0;
    case PhysicalType::kInt128: {
      if (column.type().id() != TypeId::kInterval)
        return std::memcmp(column.data<__int128>() + row, groupValue, 16) == 0;
      __int128 stored;
      std::memcpy(&stored, groupValue, sizeof(stored));
      return intervalSpan(column.data<__int128>()[row]) == intervalSpan(stored);
    }
    case PhysicalType::kDouble: {
      double value = normalizedDouble(column.data<double>()[row]);
      return std::memcmp(&value, groupValue, 8) == 0;
    }
    case PhysicalType::kString: {
      StringRef stored;
      std::memcpy(&stored, groupValue, sizeof(stored));
      return column.data<StringRef>()[row] == stored;
    }
  }
  return false;
}

/// Writes key `k` of an input row into a new group row.
void storeKey(const Vector& column, size_t row, PhysicalType physical, uint8_t* groupValue, uint8_t& groupNull,
              StringHeap& heap) {
  if (column.isNull(row)) {
    groupNull = 1;
    return;
  }
  switch (physical) {
    case PhysicalType::kBool:
      *groupValue = column.data<uint8_t>()[row];
      break;
    case PhysicalType::kInt32:
      std::memcpy(groupValue, column.data<int32_t>() + row, 4);
      break;
    case PhysicalType::kInt64:
      std::memcpy(groupValue, column.data<int64_t>() + row, 8);
      break;
    case PhysicalType::kInt128:
      std::memcpy(groupValue, column.data<__int128>() + row, 16);
      break;
    case PhysicalType::kDouble: {
      double value = normalizedDouble(column.data<double>()[row]);
      std::memcpy(groupValue, &value, 8);
      break;
    }
    case PhysicalType::kString: {
      const StringRef& text = column.data<StringRef>()[row];
      StringRef owned = text.isInline() ? text : heap.add(text.view());
      std::memcpy(groupValue, &owned, sizeof(owned));
      break;
    }
  }
}

/// Whether two group rows have the same keys.
bool rowKeysEqual(const Layout& layout, const uint8_t* a, const uint8_t* b) {
  const size_t numKeys = layout.keyPhysical.size();
  if (std::memcmp(a + Layout::kNullFlagsOffset, b + Layout::kNullFlagsOffset, numKeys) != 0) return false;
  for (size_t k = 0; k < numKeys; ++k) {
    if (a[Layout::kNullFlagsOffset + k]) continue;
    const uint8_t* x = a + layout.keyOffsets[k];
    const uint8_t* y = b + layout.keyOffsets[k];
    if (layout.keyPhysical[k] == PhysicalType::kString) {
      StringRef left;
      StringRef right;
      std::memcpy(&left, x, sizeof(left));
      std::memcpy(&right, y, sizeof(right));
      if (!(left == right)) return false;
    } else if (layout.keyIsInterval[k]) {
      __int128 left;
      __int128 right;
      std::memcpy(&left, x, sizeof(left));
      std::memcpy(&right, y, sizeof(right));
      if (intervalSpan(left) != intervalSpan(right)) return false;
    } else if (std::memcmp(x, y, physicalTypeWidth(layout.keyPhysical[k])) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

class HashAggregationSink final : public ChunkSink {
 public:
  explicit HashAggregationSink(HashAggregation& aggregation) : aggregation_(aggregation) {}

  std::unique_ptr<LocalSinkState> makeLocalState() const override {
    return std::make_unique<LocalTable>(aggregation_.layout_->rowWidth);
  }

  void consume(Chunk& chunk, LocalSinkState& state) const override {
    auto& table = static_cast<LocalTable&>(state);
    if (table.holdingBack) return holdBack(chunk, table);
    const size_t repeats = consumeRows(chunk, table.store);
    // Input in runs of one group (lineitem by l_orderkey) finds its groups in cache as it comes.
    table.holdingBack =
        !aggregation_.keyTypes_.empty() && groupBytes(table.store) > kCachedGroupBytes && repeats * 2 < chunk.size();
  }

  void combine(LocalSinkState& state) override {
    auto& table = static_cast<LocalTable&>(state);
    foldHeldRows(table);
    // The threads' tables are merged partition by partition in the source, in parallel.
    aggregation_.tables_.push_back(std::make_unique<LocalTable>(std::move(table)));
  }

 private:
  /// Returns how many rows fell in the group of the row before them.
  size_t consumeRows(const Chunk& chunk, GroupStore& store) const {
    size_t repeats = 0;
    for (size_t first = 0; first < chunk.size(); first += kVectorSize) {
      repeats += consumeWindow(chunk, first, std::min(kVectorSize, chunk.size() - first), store);
    }
    return repeats;
  }

  /// Keeps the chunk with its rows ordered by partition, folding the held rows in once there are enough.
  /// Groups spread over more memory than the cache holds cost a miss per row when rows come in their input
  /// order; a partition's rows together touch only its groups, a kPartitions-th of them.
  void holdBack(const Chunk& chunk, LocalTable& table) const {
    std::vector<uint64_t> hashes(chunk.size());
    for (size_t k = 0; k < aggregation_.keyTypes_.size(); ++k) {
      hashVector(chunk.column(k), 0, chunk.size(), hashes.data(), k > 0);
    }
    LocalTable::HeldChunk held{Chunk(chunk.size()), {}};
    held.starts.fill(0);
    for (uint64_t hash : hashes) ++held.starts[partitionOf(hash) + 1];
    for (size_t p = 1; p < held.starts.size(); ++p) held.starts[p] += held.starts[p - 1];
    std::array<uint32_t, HashAggregation::kPartitions> next;
    std::copy(held.starts.begin(), held.starts.end() - 1, next.begin());
    std::vector<uint32_t> order(chunk.size());
    for (size_t row = 0; row < chunk.size(); ++row)
      order[next[partitionOf(hashes[row])]++] = static_cast<uint32_t>(row);
    for (size_t column = 0; column < chunk.numColumns(); ++column) {
      held.rows.addColumn(chunk.column(column).select(order));
    }
    const size_t bytes = held.rows.memoryBytes();
    reserveQueryMemory(bytes);
    table.heldBytes += bytes;
    table.heldCount += chunk.size();
    table.held.push_back(std::move(held));
    const size_t limit = std::clamp(kHeldRowsPerGroup * groupCount(table.store), kMinimumHeldRows, kMaximumHeldRows);
    if (table.heldCount >= limit) foldHeldRows(table);
  }

  /// Each partition's held rows, copied together from their stretches of the held chunks, in full windows.
  void foldHeldRows(LocalTable& table) const {
    if (table.held.empty()) return;
    std::vector<const Chunk*> chunks;
    for (const auto& held : table.held) chunks.push_back(&held.rows);
    std::vector<RowRef> rows;
    for (size_t partition = 0; partition < HashAggregation::kPartitions; ++partition) {
      rows.clear();
      for (uint32_t c = 0; c < table.held.size(); ++c) {
        const auto& starts = table.held[c].starts;
        for (uint32_t row = starts[partition]; row < starts[partition + 1]; ++row) rows.push_back({0, c, row});
      }
      if (!rows.empty()) consumeRows(gatherRows(chunks, rows), table.store);
    }
    table.held.clear();
    table.heldCount = 0;
    releaseQueryMemory(table.heldBytes);
    table.heldBytes = 0;
  }

  /// Returns how many rows fell in the group of the row before them.
  size_t consumeWindow(const Chunk& chunk, size_t first, size_t count, GroupStore& store) const {
    const Layout& layout = *aggregation_.layout_;
    const size_t numKeys = aggregation_.keyTypes_.size();
    uint32_t groupOf[kVectorSize];
    uint8_t rowPartition[kVectorSize];
    uint8_t* groups[kVectorSize];
    if (numKeys == 0) {
      // One group for every row: partition 0, group 0.
      GroupTable& table = store.partitions[0];
      if (table.size() == 0) {
        table.findOrInsert(
            0, [](const uint8_t*) { return true; }, [](uint8_t*) {});
      }
      for (size_t i = 0; i < count; ++i) groups[i] = table.row(0);
    } else {
      uint64_t hashes[kVectorSize];
      for (size_t k = 0; k < numKeys; ++k) hashVector(chunk.column(k), first, count, hashes, k > 0);
      // Large tables miss the cache twice per row (slot, then group): start those loads for a batch of rows
      // ahead, so that they overlap instead of stalling one row at a time.
      // Groups that fit the cache gain nothing from it (the prefetch of a group reads its slot first).
      constexpr size_t kPrefetchBatch = 256;
      const bool prefetch = groupBytes(store) > kCachedGroupBytes / 8;
      for (size_t i = 0; i < count; ++i) {
        if (prefetch && i % kPrefetchBatch == 0) {
          size_t end = std::min(count, i + kPrefetchBatch);
          for (size_t j = i; j < end; ++j) store.partitions[partitionOf(hashes[j])].prefetchSlot(hashes[j]);
          for (size_t j = i; j < end; ++j) store.partitions[partitionOf(hashes[j])].prefetchGroup(hashes[j]);
        }
        const size_t row = first + i;
        const uint64_t hash = hashes[i];
        const auto partition = static_cast<uint8_t>(partitionOf(hash));
        rowPartition[i] = partition;
        groupOf[i] = store.partitions[partition].findOrInsert(
            hash,
            [&](const uint8_t* group) {
              for (size_t k = 0; k < numKeys; ++k) {
                if (!keyEquals(chunk.column(k), row, layout.keyPhysical[k], group + layout.keyOffsets[k],
                               group[Layout::kNullFlagsOffset + k] != 0)) {
                  return false;
                }
              }
              return true;
            },
            [&](uint8_t* group) {
              for (size_t k = 0; k < numKeys; ++k) {
                storeKey(chunk.column(k), row, layout.keyPhysical[k], group + layout.keyOffsets[k],
                         group[Layout::kNullFlagsOffset + k], store.heap);
              }
            });
      }
      // Rows may have moved while groups were added: take their addresses only now.
      for (size_t i = 0; i < count; ++i) groups[i] = store.partitions[rowPartition[i]].row(groupOf[i]);
    }
    Window window{first, count, groups};
    for (size_t i = 0; i < aggregation_.aggregates_.size(); ++i) {
      updateStates(aggregation_.aggregates_[i], chunk, window, layout.stateOffsets[i], store);
    }
    size_t repeats = 0;
    for (size_t i = 1; i < count; ++i) repeats += groups[i] == groups[i - 1] ? 1 : 0;
    return repeats;
  }

  HashAggregation& aggregation_;
};

class HashAggregationSource final : public ChunkSource {
 public:
  explicit HashAggregationSource(HashAggregation& aggregation) : aggregation_(aggregation) {}

  size_t numMorsels() const override {
    // Without keys every row is in one group: one morsel sees them all, and answers even for no rows.
    return aggregation_.keyTypes_.empty() ? 1 : HashAggregation::kPartitions;
  }

  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override {
    const Layout& layout = *aggregation_.layout_;
    const auto& aggregates = aggregation_.aggregates_;
    const size_t numKeys = aggregation_.keyTypes_.size();
    GroupStore merged(1, layout.rowWidth);
    GroupTable& out = merged.partitions[0];
    // Room for every partial group when threads saw different keys (the sum), but not for
    // many threads' copies of the same keys (at most twice the largest partial table).
    size_t partialGroups = 0;
    size_t largestPartial = 0;
    for (auto& local : aggregation_.tables_) {
      size_t groups = static_cast<LocalTable&>(*local).store.partitions[morsel].size();
      partialGroups += groups;
      largestPartial = std::max(largestPartial, groups);
    }
    out.reserve(std::min(partialGroups, 2 * largestPartial));
    for (auto& local : aggregation_.tables_) {
      GroupStore& store = static_cast<LocalTable&>(*local).store;
      GroupTable& groups = store.partitions[morsel];
      for (size_t g = 0; g < groups.size(); ++g) {
        uint8_t* source = groups.row(g);
        bool inserted = false;
        uint32_t target = out.findOrInsert(
            hashOf(source), [&](const uint8_t* candidate) { return rowKeysEqual(layout, candidate, source); },
            [&](uint8_t* fresh) {
              // Keys (string handles into the thread's heap, which the aggregation keeps) and states as they are.
              std::memcpy(fresh, source, layout.rowWidth);
              for (size_t i = 0; i < aggregates.size(); ++i) stateAt(fresh, layout.stateOffsets[i]).sideIndex = 0;
              inserted = true;
            });
        uint8_t* row = out.row(target);
        for (size_t i = 0; i < aggregates.size(); ++i) {
          AggregateState& state = stateAt(row, layout.stateOffsets[i]);
          const AggregateState& from = stateAt(source, layout.stateOffsets[i]);
          if (inserted) {
            // The copy already holds the counts, sums and extremes; only the side states change hands.
            adoptSideState(aggregates[i], state, from, merged, store);
          } else {
            mergeState(aggregates[i], state, from, merged, store);
          }
        }
      }
    }
    if (numKeys == 0 && out.size() == 0) {
      out.findOrInsert(
          0, [](const uint8_t*) { return true; }, [](uint8_t*) {});
    }
    std::vector<LogicalType> types = aggregation_.outputTypes();
    for (size_t begin = 0; begin < out.size(); begin += kVectorSize) {
      size_t rows = std::min(kVectorSize, out.size() - begin);
      Chunk chunk(rows);
      for (size_t column = 0; column < types.size(); ++column) {
        Vector vector(types[column], rows);
        vector.resize(rows);
        for (size_t row = 0; row < rows; ++row) {
          uint8_t* group = out.row(begin + row);
          if (column < numKeys) {
            writeKey(layout, column, group, vector, row);
          } else {
            size_t i = column - numKeys;
            writeFinal(aggregates[i], stateAt(group, layout.stateOffsets[i]), merged, vector, row);
          }
        }
        chunk.addColumn(std::move(vector));
      }
      consume(chunk);
    }
  }

 private:
  static void writeKey(const Layout& layout, size_t k, const uint8_t* group, Vector& out, size_t row) {
    bool null = group[Layout::kNullFlagsOffset + k] != 0;
    out.setNull(row, null);
    if (null) return;
    const uint8_t* value = group + layout.keyOffsets[k];
    if (layout.keyPhysical[k] == PhysicalType::kString) {
      StringRef text;
      std::memcpy(&text, value, sizeof(text));
      // The output must not point into the aggregation's heaps: a result may outlive them.
      if (text.isInline()) {
        out.data<StringRef>()[row] = text;
      } else {
        out.setString(row, text.view());
      }
      return;
    }
    size_t width = physicalTypeWidth(layout.keyPhysical[k]);
    copyValue(out.data<uint8_t>() + row * width, value, width);
  }

  HashAggregation& aggregation_;
};

HashAggregation::HashAggregation(std::vector<LogicalType> keyTypes, std::vector<GroupedAggregate> aggregates)
    : keyTypes_(std::move(keyTypes)),
      aggregates_(std::move(aggregates)),
      layout_(std::make_unique<Layout>(keyTypes_, aggregates_.size())) {}

HashAggregation::~HashAggregation() = default;

std::shared_ptr<ChunkSink> HashAggregation::sink() {
  return std::make_shared<HashAggregationSink>(*this);
}

std::shared_ptr<ChunkSource> HashAggregation::source() {
  return std::make_shared<HashAggregationSource>(*this);
}

std::vector<LogicalType> HashAggregation::outputTypes() const {
  std::vector<LogicalType> types = keyTypes_;
  for (const auto& aggregate : aggregates_) types.push_back(aggregate.resultType);
  return types;
}

}  // namespace shoal::engine
