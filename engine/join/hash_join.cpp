#include "engine/join/hash_join.h"

#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "common/check.h"
#include "common/status.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/pipeline/query_memory.h"
#include "engine/types/interval.h"
#include "engine/vector/key_bytes.h"
#include "engine/vector/vector_hash.h"

namespace shoal::engine {

namespace {

/// Pointers use the low 48 bits on x86-64; the top 16 hold the bucket's tag.
constexpr uintptr_t kPointerMask = (uintptr_t{1} << 48) - 1;
/// Stored rows inserted into the directory per morsel of the insert pipeline.
constexpr size_t kInsertSlice = 64 * 1024;

uintptr_t tagOf(uint64_t hash) {
  return uintptr_t{1} << (48 + (hash >> 60));
}

/// Hashes of `columns` of every row of `chunk`, and which rows have a NULL key (they match nothing).
void hashKeys(const Chunk& chunk, std::span<const size_t> columns, std::vector<uint64_t>& hashes,
              std::vector<uint8_t>& nullKey) {
  const size_t rows = chunk.size();
  hashes.resize(rows);
  nullKey.assign(rows, 0);
  for (size_t k = 0; k < columns.size(); ++k) {
    const Vector& column = chunk.column(columns[k]);
    hashVector(column, 0, rows, hashes.data(), k > 0);
    if (!column.validity().allValid(rows)) {
      for (size_t row = 0; row < rows; ++row) nullKey[row] |= column.isNull(row) ? 1 : 0;
    }
  }
}

/// Keys whose hash (hashVector's mix of the value widened to 64 bits) is a bijection of their value.
bool isIntegerKey(const LogicalType& type) {
  return type.id() == TypeId::kSmallInt || type.id() == TypeId::kInteger || type.id() == TypeId::kBigInt ||
         type.id() == TypeId::kDate || type.id() == TypeId::kTimestamp || type.id() == TypeId::kTimestampTz ||
         type.id() == TypeId::kTime;
}

}  // namespace

/// One build row, stored in a thread's area in row format: this header (chained per bucket), then a NULL
/// flag per build column, then each column's value at its offset (strings as 16-byte handles). Following a
/// chain thus touches each candidate row once, keys and payload in the same cache lines.
struct HashJoin::Entry {
  const Entry* next = nullptr;
  uint64_t hash = 0;
  uint8_t matched = 0;  // kBuild* types: a probe matched it (relaxed atomic stores from any thread)
  uint8_t nullKey = 0;  // a key column is NULL: never in the directory
};

namespace {

/// Where each build column sits in a stored row, after the Entry header.
struct RowLayout {
  explicit RowLayout(const std::vector<LogicalType>& types) {
    size_t offset = sizeof(HashJoin::Entry) + types.size();
    for (const auto& type : types) {
      PhysicalType physical = type.physicalType();
      size_t width = physicalTypeWidth(physical);
      offset = (offset + std::min<size_t>(width, 8) - 1) / std::min<size_t>(width, 8) * std::min<size_t>(width, 8);
      physicals.push_back(physical);
      widths.push_back(width);
      offsets.push_back(offset);
      offset += width;
    }
    rowWidth = (offset + 7) / 8 * 8;
  }
  static constexpr size_t kNullFlags = sizeof(HashJoin::Entry);
  std::vector<PhysicalType> physicals;
  std::vector<size_t> widths;
  std::vector<size_t> offsets;
  size_t rowWidth = 0;
};

const uint8_t* rowBytes(const HashJoin::Entry* entry) {
  return reinterpret_cast<const uint8_t*>(entry);
}

/// Whether a non-NULL probe key equals the stored row's key (INTEGER meets BIGINT; -0.0 is 0.0; NaN is NaN).
bool sameKey(const Vector& probe, size_t row, const uint8_t* stored, PhysicalType storedPhysical) {
  PhysicalType physical = probe.type().physicalType();
  auto integral = [](PhysicalType type) { return type == PhysicalType::kInt32 || type == PhysicalType::kInt64; };
  if (integral(physical) && integral(storedPhysical)) {
    int64_t a = physical == PhysicalType::kInt32 ? probe.data<int32_t>()[row] : probe.data<int64_t>()[row];
    int64_t b;
    if (storedPhysical == PhysicalType::kInt32) {
      int32_t narrow;
      std::memcpy(&narrow, stored, sizeof(narrow));
      b = narrow;
    } else {
      std::memcpy(&b, stored, sizeof(b));
    }
    return a == b;
  }
  if (physical != storedPhysical) return false;
  switch (physical) {
    case PhysicalType::kBool:
      return probe.data<uint8_t>()[row] == *stored;
    case PhysicalType::kInt128: {
      if (probe.type().id() != TypeId::kInterval) {
        return std::memcmp(probe.data<__int128>() + row, stored, sizeof(__int128)) == 0;
      }
      __int128 storedInterval;
      std::memcpy(&storedInterval, stored, sizeof(storedInterval));
      return intervalSpan(probe.data<__int128>()[row]) == intervalSpan(storedInterval);
    }
    case PhysicalType::kDouble: {
      double x = probe.data<double>()[row];
      double y;
      std::memcpy(&y, stored, sizeof(y));
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case PhysicalType::kString: {
      StringRef handle;
      std::memcpy(&handle, stored, sizeof(handle));
      return probe.data<StringRef>()[row] == handle;
    }
    default:
      return false;
  }
}

}  // namespace

/// One thread's build rows in row format, in blocks that never move.
struct HashJoin::StoredRows final : LocalSinkState {
  std::vector<std::unique_ptr<uint8_t[]>> blocks;
  size_t freeInBlock = 0;
  uint8_t* cursor = nullptr;
  /// Every row, in order (the insert and build-rows pipelines walk them).
  std::vector<Entry*> rows;
  /// The string columns of the stored chunks: they own the bytes the rows' string handles point to.
  std::vector<Vector> stringOwners;
  bool sawNullKey = false;
  size_t keyedRows = 0;  // rows without a NULL key: those in the directory

  Entry* append(size_t rowWidth) {
    if (freeInBlock < rowWidth) {
      size_t blockBytes = std::max<size_t>(256 * 1024, rowWidth);
      blocks.push_back(std::make_unique_for_overwrite<uint8_t[]>(blockBytes));
      reserveQueryMemory(blockBytes);
      cursor = blocks.back().get();
      freeInBlock = blockBytes;
    }
    auto* entry = reinterpret_cast<Entry*>(cursor);
    cursor += rowWidth;
    freeInBlock -= rowWidth;
    rows.push_back(entry);
    return entry;
  }
};

/// Everything the build side leaves for the probe: the threads' rows and the directory over them.
struct HashJoin::BuildSide {
  explicit BuildSide(const std::vector<LogicalType>& types) : layout(types) {}
  RowLayout layout;
  std::vector<std::unique_ptr<StoredRows>> stored;
  std::unique_ptr<std::atomic<uintptr_t>[]> directory;
  uint64_t mask = 0;
  size_t rows = 0;
  bool hasNullKey = false;

  /// The stored rows in slices of kInsertSlice, as (area, first row): the morsels of the pipelines that walk them.
  std::vector<std::pair<size_t, size_t>> slices() const {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t area = 0; area < stored.size(); ++area) {
      for (size_t begin = 0; begin < stored[area]->rows.size(); begin += kInsertSlice) out.push_back({area, begin});
    }
    return out;
  }

  /// The first entry of the chain for `hash`, or null when the tag rules the key out.
  const Entry* candidates(uint64_t hash) const {
    uintptr_t head = directory[hash & mask].load(std::memory_order_acquire);
    if ((head & tagOf(hash)) == 0) return nullptr;
    return reinterpret_cast<const Entry*>(head & kPointerMask);
  }
};

namespace {

/// Column `column` of the given stored rows (a null entry: NULL) as a vector; string handles are copied as
/// they are, and the vector keeps `owner` (the build side) alive.
Vector gatherColumn(const RowLayout& layout, const LogicalType& type, size_t column,
                    const std::vector<const HashJoin::Entry*>& entries, const std::shared_ptr<const void>& owner) {
  Vector values(type, entries.size());
  const size_t width = layout.widths[column];
  const size_t offset = layout.offsets[column];
  auto* to = values.data<uint8_t>();
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint8_t* row = entries[i] ? rowBytes(entries[i]) : nullptr;
    if (row == nullptr || row[RowLayout::kNullFlags + column]) {
      values.setNull(i, true);
      continue;
    }
    copyValue(to + i * width, row + offset, width);
  }
  if (layout.physicals[column] == PhysicalType::kString) values.keepAlive(owner);
  return values;
}

}  // namespace

class HashJoinBuildSink final : public ChunkSink {
 public:
  explicit HashJoinBuildSink(HashJoin& join) : join_(join) {
    for (size_t i = 0; i < join_.options_.numKeys; ++i) keyColumns_.push_back(i);
  }

  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<HashJoin::StoredRows>(); }

  void consume(Chunk& chunk, LocalSinkState& state) const override {
    auto& stored = static_cast<HashJoin::StoredRows&>(state);
    const RowLayout& layout = join_.build_->layout;
    std::vector<uint64_t> hashes;
    std::vector<uint8_t> nullKey;
    hashKeys(chunk, keyColumns_, hashes, nullKey);
    const size_t numRows = chunk.size();
    std::vector<HashJoin::Entry*> rows(numRows);
    for (size_t row = 0; row < numRows; ++row) {
      HashJoin::Entry* entry = stored.append(layout.rowWidth);
      entry->next = nullptr;
      entry->hash = hashes[row];
      entry->matched = 0;
      entry->nullKey = nullKey[row];
      stored.sawNullKey = stored.sawNullKey || nullKey[row] != 0;
      stored.keyedRows += nullKey[row] ? 0 : 1;
      rows[row] = entry;
    }
    // Column by column into the rows: NULL flag, then the value (string handles as they are).
    for (size_t column = 0; column < chunk.numColumns(); ++column) {
      const Vector& vector = chunk.column(column);
      const size_t width = layout.widths[column];
      const size_t offset = layout.offsets[column];
      const auto* from = vector.data<uint8_t>();
      const bool allValid = vector.validity().allValid(numRows);
      for (size_t row = 0; row < numRows; ++row) {
        auto* bytes = reinterpret_cast<uint8_t*>(rows[row]);
        bool null = !allValid && vector.isNull(row);
        bytes[RowLayout::kNullFlags + column] = null ? 1 : 0;
        if (!null) copyValue(bytes + offset, from + row * width, width);
      }
    }
    for (size_t column = 0; column < chunk.numColumns(); ++column) {
      if (layout.physicals[column] == PhysicalType::kString)
        stored.stringOwners.push_back(std::move(chunk.column(column)));
    }
  }

  void combine(LocalSinkState& state) override {
    join_.build_->stored.push_back(
        std::make_unique<HashJoin::StoredRows>(std::move(static_cast<HashJoin::StoredRows&>(state))));
  }

  void finalize() override {
    auto& build = *join_.build_;
    for (const auto& stored : build.stored) {
      build.rows += stored->keyedRows;
      build.hasNullKey = build.hasNullKey || stored->sawNullKey;
    }
    // A power of two at least twice the entries: short chains. Zeroed: every bucket empty.
    uint64_t buckets = std::bit_ceil(std::max<uint64_t>(build.rows * 2, 16));
    build.mask = buckets - 1;
    reserveQueryMemory(buckets * sizeof(uintptr_t));
    build.directory.reset(new std::atomic<uintptr_t>[buckets]());
  }

 private:
  HashJoin& join_;
  std::vector<size_t> keyColumns_;
};

class HashJoinInsertSource final : public ChunkSource {
 public:
  explicit HashJoinInsertSource(HashJoin& join) : join_(join) {}

  size_t numMorsels() const override {
    slices_ = join_.build_->slices();
    return slices_.size();
  }

  void produce(size_t morsel, const std::function<void(Chunk&)>&) const override {
    auto& build = *join_.build_;
    auto& rows = build.stored[slices_[morsel].first]->rows;
    size_t begin = slices_[morsel].second;
    size_t end = std::min(rows.size(), begin + kInsertSlice);
    constexpr size_t kPrefetchAhead = 16;
    for (size_t i = begin; i < end; ++i) {
      if (i + kPrefetchAhead < end) __builtin_prefetch(&build.directory[rows[i + kPrefetchAhead]->hash & build.mask]);
      HashJoin::Entry& entry = *rows[i];
      if (entry.nullKey) continue;  // matches nothing
      auto& bucket = build.directory[entry.hash & build.mask];
      uintptr_t head = bucket.load(std::memory_order_relaxed);
      uintptr_t updated;
      do {
        entry.next = reinterpret_cast<const HashJoin::Entry*>(head & kPointerMask);
        updated = reinterpret_cast<uintptr_t>(&entry) | (head & ~kPointerMask) | tagOf(entry.hash);
      } while (!bucket.compare_exchange_weak(head, updated, std::memory_order_release, std::memory_order_relaxed));
    }
  }

 private:
  HashJoin& join_;
  /// (area, first row) of each morsel; set when the dispatcher asks for the morsels.
  mutable std::vector<std::pair<size_t, size_t>> slices_;
};

class HashJoinBuildRowsSource final : public ChunkSource {
 public:
  explicit HashJoinBuildRowsSource(HashJoin& join) : join_(join) {}

  size_t numMorsels() const override {
    slices_ = join_.build_->slices();
    return slices_.size();
  }

  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override {
    const auto& options = join_.options_;
    const auto& build = *join_.build_;
    const auto& rows = build.stored[slices_[morsel].first]->rows;
    const size_t end = std::min(rows.size(), slices_[morsel].second + kInsertSlice);
    const bool wantMatched = options.type == HashJoinType::kBuildSemi;
    std::vector<const HashJoin::Entry*> kept;
    for (size_t begin = slices_[morsel].second; begin < end; begin += kVectorSize) {
      kept.clear();
      for (size_t i = begin; i < std::min(end, begin + kVectorSize); ++i) {
        bool matched = __atomic_load_n(&rows[i]->matched, __ATOMIC_RELAXED) != 0;
        if (matched == wantMatched) kept.push_back(rows[i]);
      }
      if (kept.empty()) continue;
      Chunk out(kept.size());
      for (size_t column = options.numKeys; column < options.buildTypes.size(); ++column) {
        out.addColumn(gatherColumn(build.layout, options.buildTypes[column], column, kept, join_.build_));
      }
      if (options.type == HashJoinType::kBuildOuter) {
        for (const auto& type : options.probeTypes) {
          Vector nulls(type, kept.size());
          for (size_t i = 0; i < kept.size(); ++i) nulls.setNull(i, true);
          out.addColumn(std::move(nulls));
        }
      }
      consume(out);
    }
  }

 private:
  HashJoin& join_;
  /// (area, first row) of each morsel; set when the dispatcher asks for the morsels.
  mutable std::vector<std::pair<size_t, size_t>> slices_;
};

/// Consumes nothing: the end of the insert pipeline.
class DiscardingSink final : public ChunkSink {
 public:
  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<LocalSinkState>(); }
  void consume(Chunk&, LocalSinkState&) const override {}
  void combine(LocalSinkState&) override {}
};

HashJoin::HashJoin(Options options)
    : options_(std::move(options)), build_(std::make_shared<BuildSide>(options_.buildTypes)) {
  SHOAL_CHECK(options_.numKeys == options_.probeKeys.size(), "join key counts differ");
  SHOAL_CHECK(options_.numKeys > 0, "a hash join needs keys");
}

HashJoin::~HashJoin() = default;

std::shared_ptr<ChunkSink> HashJoin::buildSink() {
  return std::make_shared<HashJoinBuildSink>(*this);
}

std::shared_ptr<ChunkSource> HashJoin::insertSource() {
  return std::make_shared<HashJoinInsertSource>(*this);
}

std::shared_ptr<ChunkSink> HashJoin::discardingSink() {
  return std::make_shared<DiscardingSink>();
}

std::shared_ptr<ChunkSource> HashJoin::buildRowsSource() {
  return std::make_shared<HashJoinBuildRowsSource>(*this);
}

size_t HashJoin::buildRows() const {
  return build_->rows;
}

class HashJoinProbe final : public ChunkOperator {
 public:
  explicit HashJoinProbe(HashJoin& join) : join_(join) {}

  /// Inner and build-outer joins pass their pairs on in chunks of at most kVectorSize: a probe chunk whose
  /// keys each match thousands of build rows would otherwise become one chunk of millions of rows.
  void stream(Chunk& chunk, const std::function<void(Chunk&)>& emit) const override {
    const auto& options = join_.options_;
    if (options.type != HashJoinType::kInner && options.type != HashJoinType::kBuildOuter) {
      ChunkOperator::stream(chunk, emit);
      return;
    }
    const ProbeKeys keys = probeKeys(chunk);
    std::vector<uint32_t> pairProbe;
    std::vector<const HashJoin::Entry*> pairBuild;
    ProbeCursor cursor;
    while (cursor.row < chunk.size()) {
      pairProbe.clear();
      pairBuild.clear();
      collectPairs(chunk, keys, cursor, kVectorSize, pairProbe, pairBuild);
      if (options.residual && !pairProbe.empty()) {
        keepPairs(chunk, *options.residual, pairProbe, pairBuild, nullptr);
      }
      if (options.type == HashJoinType::kBuildOuter) markMatched(pairBuild);
      if (pairProbe.empty()) continue;
      Chunk output = pairChunk(chunk, pairProbe, pairBuild, false);
      emit(output);
    }
  }

  void execute(Chunk& chunk) const override {
    const auto& options = join_.options_;
    const size_t probeRows = chunk.size();
    const HashJoin::BuildSide& build = *join_.build_;
    // Candidate pairs by key, then the residual condition over them.
    const ProbeKeys keys = probeKeys(chunk);
    const std::vector<uint8_t>& probeKeyNull = keys.isNull;
    std::vector<uint32_t> pairProbe;
    std::vector<const HashJoin::Entry*> pairBuild;
    pairProbe.reserve(probeRows);
    pairBuild.reserve(probeRows);
    ProbeCursor cursor;
    collectPairs(chunk, keys, cursor, SIZE_MAX, pairProbe, pairBuild);
    if (options.residual && !pairProbe.empty()) {
      keepPairs(chunk, *options.residual, pairProbe, pairBuild, nullptr);
    }
    // Inner joins and the build-side joins need nothing per probe row beyond the pairs.
    if (options.type == HashJoinType::kInner) {
      chunk = pairChunk(chunk, pairProbe, pairBuild, false);
      return;
    }
    // A NULL-aware comparison checked per pair: NULL for a pair makes its probe row's "no match" unknown.
    std::vector<uint8_t> unknown(probeRows, 0);
    if (options.nullAwareComparison && !pairProbe.empty()) {
      keepPairs(chunk, *options.nullAwareComparison, pairProbe, pairBuild, &unknown);
    }
    std::vector<uint32_t> matches(probeRows, 0);
    for (uint32_t row : pairProbe) ++matches[row];
    // A NULL-aware hash key: a NULL on either side makes "no match" unknown, unless the build side is empty.
    bool buildEmpty = build.rows == 0 && !build.hasNullKey;
    for (uint32_t row = 0; row < probeRows; ++row) {
      if (options.nullAware && !options.nullAwareComparison && !buildEmpty) {
        unknown[row] = probeKeyNull[row] || build.hasNullKey;
      }
      if (matches[row] > 0) unknown[row] = 0;
    }

    switch (options.type) {
      case HashJoinType::kInner:
        SHOAL_UNREACHABLE("inner joins returned their pairs above");
      case HashJoinType::kBuildSemi:
      case HashJoinType::kBuildAnti:
      case HashJoinType::kBuildOuter:
        markMatched(pairBuild);
        if (options.type == HashJoinType::kBuildOuter) {
          chunk = pairChunk(chunk, pairProbe, pairBuild, false);
        } else {
          chunk = Chunk(0);  // the kept build rows come from buildRowsSource
        }
        return;
      case HashJoinType::kSemi:
      case HashJoinType::kAnti: {
        bool anti = options.type == HashJoinType::kAnti;
        std::vector<uint32_t> kept;
        for (uint32_t row = 0; row < probeRows; ++row) {
          bool matched = matches[row] > 0;
          if (!anti) {
            if (matched) kept.push_back(row);
            continue;
          }
          if (matched) continue;
          // NOT IN: an unknown comparison (a NULL on either side) is not "no match".
          if (unknown[row]) continue;
          kept.push_back(row);
        }
        chunk = selectRows(chunk, kept);
        return;
      }
      case HashJoinType::kMark: {
        Vector mark(LogicalType::boolean(), probeRows);
        for (uint32_t row = 0; row < probeRows; ++row) {
          mark.data<uint8_t>()[row] = matches[row] > 0 ? 1 : 0;
          mark.setNull(row, unknown[row] != 0);
        }
        chunk.addColumn(std::move(mark));
        return;
      }
      case HashJoinType::kLeft:
      case HashJoinType::kSingle: {
        if (options.type == HashJoinType::kSingle) {
          for (uint32_t row = 0; row < probeRows; ++row) {
            if (matches[row] > 1) {
              SHOAL_USER_FAIL(SqlState::kCardinalityViolation,
                              "more than one row returned by a subquery used as an expression");
            }
          }
        }
        // Matched pairs, then the unmatched probe rows with NULLs for the build side.
        std::vector<uint32_t> probeSide = pairProbe;
        std::vector<const HashJoin::Entry*> buildSide = pairBuild;
        for (uint32_t row = 0; row < probeRows; ++row) {
          if (matches[row] == 0) {
            probeSide.push_back(row);
            buildSide.push_back(nullptr);
          }
        }
        chunk = pairChunk(chunk, probeSide, buildSide, false);
        return;
      }
    }
  }

 private:
  /// The probe chunk's key hashes, and which rows have a NULL key (they match nothing).
  struct ProbeKeys {
    std::vector<uint64_t> hashes;
    std::vector<uint8_t> isNull;
    /// One integer key on both sides: its 64-bit hash is a bijection of the (widened) value, so equal
    /// hashes are equal keys and the build row need not be read.
    bool hashIsKey = false;
  };

  /// Where pair collection stopped: the probe row, and the entry of its chain to go on from.
  struct ProbeCursor {
    size_t row = 0;
    const HashJoin::Entry* entry = nullptr;  // null: the row's first candidate
    size_t prefetchedEnd = 0;
  };

  ProbeKeys probeKeys(const Chunk& chunk) const {
    const auto& options = join_.options_;
    ProbeKeys keys;
    hashKeys(chunk, options.probeKeys, keys.hashes, keys.isNull);
    keys.hashIsKey = options.numKeys == 1 && isIntegerKey(chunk.column(options.probeKeys[0]).type()) &&
                     isIntegerKey(options.buildTypes[0]);
    return keys;
  }

  /// Appends the (probe row, build entry) pairs with equal keys from `cursor` on, and stops once
  /// `maxPairs` are collected, leaving `cursor` where the next call goes on.
  void collectPairs(const Chunk& chunk, const ProbeKeys& keys, ProbeCursor& cursor, size_t maxPairs,
                    std::vector<uint32_t>& pairProbe, std::vector<const HashJoin::Entry*>& pairBuild) const {
    const auto& options = join_.options_;
    const HashJoin::BuildSide& build = *join_.build_;
    const size_t numKeys = options.numKeys;
    // A large directory misses the cache per probe (bucket, then entry): start those loads for a batch of
    // rows ahead, so that they overlap.
    constexpr size_t kPrefetchBatch = 256;
    // Joins that only mark build rows need no pair with a row already marked; joins that only ask
    // whether a probe row matches (no condition beyond the keys) need its first match alone.
    const bool marksBuildRows = options.type == HashJoinType::kBuildSemi || options.type == HashJoinType::kBuildAnti;
    const bool firstMatchDecides = !options.residual && !options.nullAwareComparison &&
                                   (options.type == HashJoinType::kSemi || options.type == HashJoinType::kAnti ||
                                    options.type == HashJoinType::kMark || marksBuildRows);
    const size_t probeRows = chunk.size();
    for (; cursor.row < probeRows; ++cursor.row, cursor.entry = nullptr) {
      const size_t row = cursor.row;
      if (row >= cursor.prefetchedEnd) {
        cursor.prefetchedEnd = std::min(probeRows, row + kPrefetchBatch);
        for (size_t j = row; j < cursor.prefetchedEnd; ++j)
          __builtin_prefetch(&build.directory[keys.hashes[j] & build.mask]);
        for (size_t j = row; j < cursor.prefetchedEnd; ++j) {
          if (const auto* entry = build.candidates(keys.hashes[j])) __builtin_prefetch(entry);
        }
      }
      if (keys.isNull[row]) continue;
      const uint64_t hash = keys.hashes[row];
      const auto* entry = cursor.entry != nullptr ? cursor.entry : build.candidates(hash);
      for (; entry != nullptr; entry = entry->next) {
        if (pairProbe.size() >= maxPairs) {
          cursor.entry = entry;
          return;
        }
        if (entry->hash != hash) continue;
        if (marksBuildRows && __atomic_load_n(&entry->matched, __ATOMIC_RELAXED) != 0) continue;
        bool same = true;
        for (size_t k = 0; k < numKeys && same && !keys.hashIsKey; ++k) {
          same = sameKey(chunk.column(options.probeKeys[k]), row, rowBytes(entry) + build.layout.offsets[k],
                         build.layout.physicals[k]);
        }
        if (same) {
          pairProbe.push_back(static_cast<uint32_t>(row));
          pairBuild.push_back(entry);
          if (firstMatchDecides && !marksBuildRows) break;
        }
      }
    }
  }

  static void markMatched(const std::vector<const HashJoin::Entry*>& entries) {
    for (const auto* entry : entries) {
      __atomic_store_n(&const_cast<HashJoin::Entry*>(entry)->matched, 1, __ATOMIC_RELAXED);
    }
  }

  /// Keeps the pairs for which `condition` is TRUE; with `unknown`, marks the probe rows of pairs where it is NULL.
  void keepPairs(const Chunk& chunk, const Expression& condition, std::vector<uint32_t>& pairProbe,
                 std::vector<const HashJoin::Entry*>& pairBuild, std::vector<uint8_t>* unknown) const {
    Vector verdict = ExpressionEvaluator().evaluate(condition, pairChunk(chunk, pairProbe, pairBuild, true));
    size_t kept = 0;
    for (size_t i = 0; i < pairProbe.size(); ++i) {
      if (verdict.isNull(i) && unknown != nullptr) (*unknown)[pairProbe[i]] = 1;
      if (verdict.isNull(i) || verdict.data<uint8_t>()[i] == 0) continue;
      pairProbe[kept] = pairProbe[i];
      pairBuild[kept] = pairBuild[i];
      ++kept;
    }
    pairProbe.resize(kept);
    pairBuild.resize(kept);
  }

  static Chunk selectRows(const Chunk& chunk, const std::vector<uint32_t>& rows) {
    Chunk selected(rows.size());
    for (size_t column = 0; column < chunk.numColumns(); ++column)
      selected.addColumn(chunk.column(column).select(rows));
    return selected;
  }

  /// Probe columns of `probeRows`, then the build side's columns of the paired entries (NULL for no entry);
  /// the build keys too when `withBuildKeys` (the residual sees every build column).
  Chunk pairChunk(const Chunk& probe, const std::vector<uint32_t>& probeRows,
                  const std::vector<const HashJoin::Entry*>& entries, bool withBuildKeys) const {
    const auto& options = join_.options_;
    Chunk out = selectRows(probe, probeRows);
    size_t firstBuildColumn = withBuildKeys ? 0 : options.numKeys;
    for (size_t column = firstBuildColumn; column < options.buildTypes.size(); ++column) {
      out.addColumn(gatherColumn(join_.build_->layout, options.buildTypes[column], column, entries, join_.build_));
    }
    return out;
  }

  HashJoin& join_;
};

class HashJoinMatchFilter final : public ChunkOperator {
 public:
  HashJoinMatchFilter(HashJoin& join, std::vector<size_t> keyColumns)
      : join_(join), keyColumns_(std::move(keyColumns)) {}

  void execute(Chunk& chunk) const override {
    // A filter that keeps nearly every row costs a probe per row for nothing: once it has seen enough rows to
    // tell, it stops (the join drops the few rows it would have).
    const uint64_t seen = seen_.load(std::memory_order_relaxed);
    if (seen >= kRowsToJudge && kept_.load(std::memory_order_relaxed) > seen - seen / kUselessBelowOneIn) return;
    const HashJoin::BuildSide& build = *join_.build_;
    std::vector<uint64_t> hashes;
    std::vector<uint8_t> nullKey;
    hashKeys(chunk, keyColumns_, hashes, nullKey);
    std::vector<uint32_t> kept;
    for (size_t row = 0; row < chunk.size(); ++row) {
      if (nullKey[row]) continue;
      for (const auto* entry = build.candidates(hashes[row]); entry != nullptr; entry = entry->next) {
        if (entry->hash != hashes[row]) continue;
        bool same = true;
        for (size_t k = 0; k < keyColumns_.size() && same; ++k) {
          same = sameKey(chunk.column(keyColumns_[k]), row, rowBytes(entry) + build.layout.offsets[k],
                         build.layout.physicals[k]);
        }
        if (same) {
          kept.push_back(static_cast<uint32_t>(row));
          break;
        }
      }
    }
    seen_.fetch_add(chunk.size(), std::memory_order_relaxed);
    kept_.fetch_add(kept.size(), std::memory_order_relaxed);
    if (kept.size() == chunk.size()) return;
    Chunk selected(kept.size());
    for (size_t column = 0; column < chunk.numColumns(); ++column)
      selected.addColumn(chunk.column(column).select(kept));
    chunk = std::move(selected);
  }

 private:
  static constexpr uint64_t kRowsToJudge = 64 * kVectorSize;
  static constexpr uint64_t kUselessBelowOneIn = 20;  // dropping under 5% of the rows

  HashJoin& join_;
  std::vector<size_t> keyColumns_;
  mutable std::atomic<uint64_t> seen_{0};
  mutable std::atomic<uint64_t> kept_{0};
};

std::shared_ptr<ChunkOperator> HashJoin::matchFilter(std::vector<size_t> keyColumns) {
  SHOAL_CHECK(keyColumns.size() == options_.numKeys, "a match filter needs every join key");
  return std::make_shared<HashJoinMatchFilter>(*this, std::move(keyColumns));
}

std::shared_ptr<ChunkOperator> HashJoin::probe() {
  return std::make_shared<HashJoinProbe>(*this);
}

}  // namespace shoal::engine
