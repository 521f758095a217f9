#include "engine/join/hash_join.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "common/check.h"
#include "common/status.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/pipeline/query_memory.h"
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

/// Whether two non-NULL key values are equal as SQL values (INTEGER meets BIGINT; -0.0 is 0.0; NaN is NaN).
bool sameKey(const Vector& a, size_t rowA, const Vector& b, size_t rowB) {
  PhysicalType physical = a.type().physicalType();
  if (physical == b.type().physicalType()) {
    switch (physical) {
      case PhysicalType::kBool:
        return a.data<uint8_t>()[rowA] == b.data<uint8_t>()[rowB];
      case PhysicalType::kInt32:
        return a.data<int32_t>()[rowA] == b.data<int32_t>()[rowB];
      case PhysicalType::kInt64:
        return a.data<int64_t>()[rowA] == b.data<int64_t>()[rowB];
      case PhysicalType::kInt128:
        return a.data<__int128>()[rowA] == b.data<__int128>()[rowB];
      case PhysicalType::kDouble: {
        double x = a.data<double>()[rowA];
        double y = b.data<double>()[rowB];
        return x == y || (std::isnan(x) && std::isnan(y));
      }
      case PhysicalType::kString:
        return a.data<StringRef>()[rowA] == b.data<StringRef>()[rowB];
    }
  }
  // Mixed widths: compare the canonical key bytes.
  std::string x;
  std::string y;
  appendKeyBytes(a, rowA, x);
  appendKeyBytes(b, rowB, y);
  return x == y;
}

/// Keys whose hash (hashVector's mix of the value widened to 64 bits) is a bijection of their value.
bool isIntegerKey(const LogicalType& type) {
  return type.id() == TypeId::kInteger || type.id() == TypeId::kBigInt || type.id() == TypeId::kDate;
}

}  // namespace

namespace {

/// A build chunk, and for the kBuild* types which of its rows a probe matched.
struct StoredChunk {
  Chunk chunk;
  std::unique_ptr<uint8_t[]> matched;  // set with relaxed atomic stores by any probing thread
};

}  // namespace

/// One build row in the hash table: chained per bucket.
struct HashJoin::Entry {
  const Entry* next = nullptr;
  uint64_t hash = 0;
  StoredChunk* source = nullptr;
  uint32_t row = 0;
};

/// One thread's build rows: its chunks (at stable addresses), and an entry per row with a non-NULL key.
struct HashJoin::StoredRows final : LocalSinkState {
  std::vector<std::unique_ptr<StoredChunk>> chunks;
  std::vector<Entry> entries;
  bool sawNullKey = false;
};

/// Everything the build side leaves for the probe: the threads' rows and the directory over them.
struct HashJoin::BuildSide {
  std::vector<std::unique_ptr<StoredRows>> stored;
  std::unique_ptr<std::atomic<uintptr_t>[]> directory;
  uint64_t mask = 0;
  size_t rows = 0;
  bool hasNullKey = false;

  /// The first entry of the chain for `hash`, or null when the tag rules the key out.
  const Entry* candidates(uint64_t hash) const {
    uintptr_t head = directory[hash & mask].load(std::memory_order_acquire);
    if ((head & tagOf(hash)) == 0) return nullptr;
    return reinterpret_cast<const Entry*>(head & kPointerMask);
  }
};

class HashJoinBuildSink final : public ChunkSink {
 public:
  explicit HashJoinBuildSink(HashJoin& join) : join_(join) {
    for (size_t i = 0; i < join_.options_.numKeys; ++i) keyColumns_.push_back(i);
    HashJoinType type = join_.options_.type;
    tracksMatches_ =
        type == HashJoinType::kBuildSemi || type == HashJoinType::kBuildAnti || type == HashJoinType::kBuildOuter;
  }

  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<HashJoin::StoredRows>(); }

  void consume(Chunk& chunk, LocalSinkState& state) const override {
    auto& stored = static_cast<HashJoin::StoredRows&>(state);
    std::vector<uint64_t> hashes;
    std::vector<uint8_t> nullKey;
    hashKeys(chunk, keyColumns_, hashes, nullKey);
    reserveQueryMemory(chunk.memoryBytes() + chunk.size() * sizeof(HashJoin::Entry));
    auto owned = std::make_unique<StoredChunk>();
    owned->chunk = std::move(chunk);
    if (tracksMatches_) owned->matched = std::make_unique<uint8_t[]>(owned->chunk.size());  // zeroed
    for (size_t row = 0; row < owned->chunk.size(); ++row) {
      if (nullKey[row]) {
        stored.sawNullKey = true;
        continue;
      }
      stored.entries.push_back({nullptr, hashes[row], owned.get(), static_cast<uint32_t>(row)});
    }
    stored.chunks.push_back(std::move(owned));
  }

  void combine(LocalSinkState& state) override {
    join_.build_->stored.push_back(
        std::make_unique<HashJoin::StoredRows>(std::move(static_cast<HashJoin::StoredRows&>(state))));
  }

  void finalize() override {
    auto& build = *join_.build_;
    for (const auto& stored : build.stored) {
      build.rows += stored->entries.size();
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
  bool tracksMatches_ = false;
};

class HashJoinInsertSource final : public ChunkSource {
 public:
  explicit HashJoinInsertSource(HashJoin& join) : join_(join) {}

  size_t numMorsels() const override {
    slices_.clear();
    for (size_t area = 0; area < join_.build_->stored.size(); ++area) {
      size_t entries = join_.build_->stored[area]->entries.size();
      for (size_t begin = 0; begin < entries; begin += kInsertSlice) slices_.push_back({area, begin});
    }
    return slices_.size();
  }

  void produce(size_t morsel, const std::function<void(Chunk&)>&) const override {
    auto& build = *join_.build_;
    auto& entries = build.stored[slices_[morsel].first]->entries;
    size_t begin = slices_[morsel].second;
    size_t end = std::min(entries.size(), begin + kInsertSlice);
    constexpr size_t kPrefetchAhead = 16;
    for (size_t i = begin; i < end; ++i) {
      if (i + kPrefetchAhead < end) __builtin_prefetch(&build.directory[entries[i + kPrefetchAhead].hash & build.mask]);
      HashJoin::Entry& entry = entries[i];
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
  /// (area, first entry) of each morsel; set when the dispatcher asks for the morsels.
  mutable std::vector<std::pair<size_t, size_t>> slices_;
};

class HashJoinBuildRowsSource final : public ChunkSource {
 public:
  explicit HashJoinBuildRowsSource(HashJoin& join) : join_(join) {}

  size_t numMorsels() const override {
    chunks_.clear();
    for (const auto& stored : join_.build_->stored) {
      for (const auto& chunk : stored->chunks) chunks_.push_back(chunk.get());
    }
    return chunks_.size();
  }

  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override {
    const auto& options = join_.options_;
    const StoredChunk& stored = *chunks_[morsel];
    const bool wantMatched = options.type == HashJoinType::kBuildSemi;
    std::vector<uint32_t> rows;
    for (uint32_t row = 0; row < stored.chunk.size(); ++row) {
      bool matched = __atomic_load_n(&stored.matched[row], __ATOMIC_RELAXED) != 0;
      if (matched == wantMatched) rows.push_back(row);
    }
    if (rows.empty()) return;
    Chunk out(rows.size());
    for (size_t column = options.numKeys; column < stored.chunk.numColumns(); ++column) {
      out.addColumn(stored.chunk.column(column).select(rows));
    }
    if (options.type == HashJoinType::kBuildOuter) {
      for (const auto& type : options.probeTypes) {
        Vector nulls(type, rows.size());
        for (size_t i = 0; i < rows.size(); ++i) nulls.setNull(i, true);
        out.addColumn(std::move(nulls));
      }
    }
    consume(out);
  }

 private:
  HashJoin& join_;
  /// Every stored chunk, one per morsel; set when the dispatcher asks for the morsels.
  mutable std::vector<const StoredChunk*> chunks_;
};

/// Consumes nothing: the end of the insert pipeline.
class DiscardingSink final : public ChunkSink {
 public:
  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<LocalSinkState>(); }
  void consume(Chunk&, LocalSinkState&) const override {}
  void combine(LocalSinkState&) override {}
};

HashJoin::HashJoin(Options options) : options_(std::move(options)), build_(std::make_shared<BuildSide>()) {
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

  void execute(Chunk& chunk) const override {
    const auto& options = join_.options_;
    const size_t probeRows = chunk.size();
    // Candidate pairs by key, then the residual condition over them.
    const HashJoin::BuildSide& build = *join_.build_;
    std::vector<uint32_t> pairProbe;
    std::vector<const HashJoin::Entry*> pairBuild;
    std::vector<uint64_t> hashes;
    std::vector<uint8_t> probeKeyNull;
    hashKeys(chunk, options.probeKeys, hashes, probeKeyNull);
    const size_t numKeys = options.numKeys;
    // One integer key on both sides: its 64-bit hash is a bijection of the (widened) value, so equal hashes are
    // equal keys and the build row need not be read.
    const bool hashIsKey =
        numKeys == 1 && isIntegerKey(chunk.column(options.probeKeys[0]).type()) && isIntegerKey(options.buildTypes[0]);
    // A large directory misses the cache per probe (bucket, then entry): start those loads for a batch of
    // rows ahead, so that they overlap.
    constexpr size_t kPrefetchBatch = 256;
    for (size_t row = 0; row < probeRows; ++row) {
      if (row % kPrefetchBatch == 0) {
        size_t end = std::min(probeRows, row + kPrefetchBatch);
        for (size_t j = row; j < end; ++j) __builtin_prefetch(&build.directory[hashes[j] & build.mask]);
        for (size_t j = row; j < end; ++j) {
          if (const auto* entry = build.candidates(hashes[j])) __builtin_prefetch(entry);
        }
      }
      if (probeKeyNull[row]) continue;
      const uint64_t hash = hashes[row];
      for (const auto* entry = build.candidates(hash); entry != nullptr; entry = entry->next) {
        if (entry->hash != hash) continue;
        bool same = true;
        for (size_t k = 0; k < numKeys && same && !hashIsKey; ++k) {
          same = sameKey(chunk.column(options.probeKeys[k]), row, entry->source->chunk.column(k), entry->row);
        }
        if (same) {
          pairProbe.push_back(static_cast<uint32_t>(row));
          pairBuild.push_back(entry);
        }
      }
    }
    if (options.residual && !pairProbe.empty()) {
      keepPairs(chunk, *options.residual, pairProbe, pairBuild, nullptr);
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
        chunk = pairChunk(chunk, pairProbe, pairBuild, false);
        return;
      case HashJoinType::kBuildSemi:
      case HashJoinType::kBuildAnti:
      case HashJoinType::kBuildOuter:
        for (const auto* entry : pairBuild) __atomic_store_n(&entry->source->matched[entry->row], 1, __ATOMIC_RELAXED);
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
      Vector values(options.buildTypes[column], entries.size());
      const PhysicalType physical = options.buildTypes[column].physicalType();
      const size_t width = physicalTypeWidth(physical);
      auto* to = values.data<uint8_t>();
      for (size_t i = 0; i < entries.size(); ++i) {
        const HashJoin::Entry* entry = entries[i];
        if (entry == nullptr) {
          values.setNull(i, true);
          continue;
        }
        const Vector& from = entry->source->chunk.column(column);
        if (from.isNull(entry->row)) {
          values.setNull(i, true);
          continue;
        }
        // String handles are copied as they are: the vector keeps the build side (and its heaps) alive.
        copyValue(to + i * width, from.data<uint8_t>() + entry->row * width, width);
      }
      if (physical == PhysicalType::kString) values.keepAlive(join_.build_);
      out.addColumn(std::move(values));
    }
    return out;
  }

  HashJoin& join_;
};

std::shared_ptr<ChunkOperator> HashJoin::probe() {
  return std::make_shared<HashJoinProbe>(*this);
}

}  // namespace shoal::engine
