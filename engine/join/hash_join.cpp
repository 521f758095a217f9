#include "engine/join/hash_join.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "common/check.h"
#include "common/hashing.h"
#include "common/status.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/vector/key_bytes.h"

namespace shoal::engine {

namespace {

/// Pointers use the low 48 bits on x86-64; the top 16 hold the bucket's tag.
constexpr uintptr_t kPointerMask = (uintptr_t{1} << 48) - 1;

uintptr_t tagOf(uint64_t hash) {
  return uintptr_t{1} << (48 + (hash >> 60));
}

/// The key's bytes, or false when a key column is NULL (it matches nothing).
bool keyBytes(const Chunk& chunk, const std::vector<size_t>& columns, size_t row, std::string& out) {
  out.clear();
  for (size_t column : columns) {
    const Vector& vector = chunk.column(column);
    if (vector.isNull(row)) return false;
    appendKeyBytes(vector, row, out);
  }
  return true;
}

uint64_t hashBytes(const std::string& bytes) {
  return hash64(bytes.data(), bytes.size());
}

}  // namespace

/// One build row in the hash table: chained per bucket.
struct HashJoin::Entry {
  const Entry* next = nullptr;
  uint64_t hash = 0;
  std::string key;
  uint32_t chunk = 0;
  uint32_t row = 0;
  /// The chunk holding the row, set once the thread areas stopped moving.
  const Chunk* source = nullptr;
};

/// One thread's build rows: its chunks, and an entry per row with a non-NULL key (a NULL key matches nothing).
struct HashJoin::StoredRows final : LocalSinkState {
  std::vector<Chunk> chunks;
  std::vector<Entry> entries;
  bool sawNullKey = false;
};

class HashJoinBuildSink final : public ChunkSink {
 public:
  explicit HashJoinBuildSink(HashJoin& join) : join_(join) {}

  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<HashJoin::StoredRows>(); }

  void consume(Chunk& chunk, LocalSinkState& state) const override {
    auto& stored = static_cast<HashJoin::StoredRows&>(state);
    std::vector<size_t> keys(join_.options_.numKeys);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = i;
    auto chunkIndex = static_cast<uint32_t>(stored.chunks.size());
    std::string key;
    for (size_t row = 0; row < chunk.size(); ++row) {
      if (!keyBytes(chunk, keys, row, key)) {
        stored.sawNullKey = true;
        continue;
      }
      HashJoin::Entry entry;
      entry.hash = hashBytes(key);
      entry.key = key;
      entry.chunk = chunkIndex;
      entry.row = static_cast<uint32_t>(row);
      stored.entries.push_back(std::move(entry));
    }
    stored.chunks.push_back(std::move(chunk));
  }

  void combine(LocalSinkState& state) override {
    join_.stored_.push_back(
        std::make_unique<HashJoin::StoredRows>(std::move(static_cast<HashJoin::StoredRows&>(state))));
  }

  void finalize() override { join_.buildDirectory(); }

 private:
  HashJoin& join_;
};

HashJoin::HashJoin(Options options) : options_(std::move(options)) {
  SHOAL_CHECK(options_.numKeys == options_.probeKeys.size(), "join key counts differ");
  SHOAL_CHECK(options_.numKeys > 0, "a hash join needs keys");
}

HashJoin::~HashJoin() = default;

std::shared_ptr<ChunkSink> HashJoin::buildSink() {
  return std::make_shared<HashJoinBuildSink>(*this);
}

void HashJoin::buildDirectory() {
  for (const auto& stored : stored_) {
    buildRows_ += stored->entries.size();
    buildHasNullKey_ = buildHasNullKey_ || stored->sawNullKey;
  }
  // A power of two at least twice the entries: short chains.
  uint64_t buckets = std::bit_ceil(std::max<uint64_t>(buildRows_ * 2, 16));
  mask_ = buckets - 1;
  directory_ = std::make_unique<std::atomic<uintptr_t>[]>(buckets);
  for (uint64_t i = 0; i < buckets; ++i) directory_[i].store(0, std::memory_order_relaxed);
  // Lock-free inserts: every thread's area could go in parallel; here the finishing thread inserts them all.
  for (auto& stored : stored_) {
    for (auto& entry : stored->entries) {
      entry.source = &stored->chunks[entry.chunk];
      auto& bucket = directory_[entry.hash & mask_];
      uintptr_t head = bucket.load(std::memory_order_relaxed);
      uintptr_t updated;
      do {
        entry.next = reinterpret_cast<const Entry*>(head & kPointerMask);
        updated = reinterpret_cast<uintptr_t>(&entry) | (head & ~kPointerMask) | tagOf(entry.hash);
      } while (!bucket.compare_exchange_weak(head, updated, std::memory_order_release, std::memory_order_relaxed));
    }
  }
}

const HashJoin::Entry* HashJoin::candidates(uint64_t hash) const {
  uintptr_t head = directory_[hash & mask_].load(std::memory_order_acquire);
  if ((head & tagOf(hash)) == 0) return nullptr;
  return reinterpret_cast<const Entry*>(head & kPointerMask);
}

class HashJoinProbe final : public ChunkOperator {
 public:
  explicit HashJoinProbe(HashJoin& join) : join_(join) {}

  void execute(Chunk& chunk) const override {
    const auto& options = join_.options_;
    const size_t probeRows = chunk.size();
    // Candidate pairs by key, then the residual condition over them.
    std::vector<uint32_t> pairProbe;
    std::vector<const HashJoin::Entry*> pairBuild;
    std::vector<uint8_t> probeKeyNull(probeRows, 0);
    std::string key;
    for (size_t row = 0; row < probeRows; ++row) {
      if (!keyBytes(chunk, options.probeKeys, row, key)) {
        probeKeyNull[row] = 1;
        continue;
      }
      uint64_t hash = hashBytes(key);
      for (const auto* entry = join_.candidates(hash); entry != nullptr; entry = entry->next) {
        if (entry->hash == hash && entry->key == key) {
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
    bool buildEmpty = join_.buildRows_ == 0 && !join_.buildHasNullKey_;
    for (uint32_t row = 0; row < probeRows; ++row) {
      if (options.nullAware && !options.nullAwareComparison && !buildEmpty) {
        unknown[row] = probeKeyNull[row] || join_.buildHasNullKey_;
      }
      if (matches[row] > 0) unknown[row] = 0;
    }

    switch (options.type) {
      case HashJoinType::kInner:
        chunk = pairChunk(chunk, pairProbe, pairBuild, false);
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
      for (size_t i = 0; i < entries.size(); ++i) {
        const HashJoin::Entry* entry = entries[i];
        if (entry == nullptr) {
          values.setNull(i, true);
          continue;
        }
        values.copyRow(i, entry->source->column(column), entry->row);
      }
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
