#include "engine/window/window_operator.h"

#include <algorithm>
#include <array>

#include "common/check.h"
#include "common/status.h"
#include "engine/pipeline/query_memory.h"
#include "engine/vector/interval_spans.h"
#include "engine/vector/vector_hash.h"
#include "engine/window/window_aggregate.h"
#include "engine/window/window_frame.h"
#include "engine/window/window_rows.h"

namespace shoal::engine {

/// One thread's rows, by bucket, with the hash of each row's PARTITION BY values (none without PARTITION BY).
/// Input chunks wait in `pending` until enough rows came to split them into one chunk per bucket at once.
struct WindowOperator::Buckets final : LocalSinkState {
  std::array<std::vector<Chunk>, kBuckets> chunks;
  std::array<std::vector<std::vector<uint64_t>>, kBuckets> hashes;
  std::vector<Chunk> pending;
  std::array<std::vector<RowRef>, kBuckets> pendingRows;
  size_t pendingCount = 0;
};

namespace {

using window::FrameRows;
using window::Partition;

bool samePartition(const Chunk& rows, size_t a, size_t b, const std::vector<size_t>& columns) {
  for (size_t column : columns) {
    const Vector& values = rows.column(column);
    const bool nullA = values.isNull(a);
    const bool nullB = values.isNull(b);
    if (nullA || nullB) {
      if (nullA != nullB) return false;
      continue;
    }
    if (compareNonNullAt(values, a, values, b) != 0) return false;
  }
  return true;
}

void setInt64(Vector& out, size_t row, int64_t value) {
  out.data<int64_t>()[row] = value;
  out.setNull(row, false);
}

void setDouble(Vector& out, size_t row, double value) {
  out.data<double>()[row] = value;
  out.setNull(row, false);
}

/// ntile(buckets): the partition's rows split into `buckets` runs as even as can be, the longer ones first,
/// the count read at the partition's first row (as PostgreSQL does).
void computeNtile(const WindowCallSpec& call, const Partition& partition, Vector& out) {
  const Vector& argument = partition.rows.column(call.argumentColumns[0]);
  if (argument.isNull(partition.begin)) {
    for (size_t row = partition.begin; row < partition.end; ++row) out.setNull(row, true);
    return;
  }
  const int64_t buckets = argument.data<int32_t>()[partition.begin];
  if (buckets <= 0) SHOAL_USER_FAIL(SqlState::kInvalidArgumentForNtile, "argument of ntile must be greater than zero");
  const auto total = static_cast<int64_t>(partition.size());
  int64_t perBucket = total / buckets;
  int64_t remainder = 0;
  if (perBucket <= 0) {
    perBucket = 1;
  } else {
    remainder = total % buckets;
    if (remainder != 0) ++perBucket;
  }
  int64_t bucket = 1;
  int64_t inBucket = 0;
  for (size_t row = partition.begin; row < partition.end; ++row) {
    if (++inBucket > perBucket) {
      if (remainder != 0 && bucket == remainder) {
        remainder = 0;
        --perBucket;
      }
      ++bucket;
      inBucket = 1;
    }
    out.data<int32_t>()[row] = static_cast<int32_t>(bucket);
    out.setNull(row, false);
  }
}

/// lag/lead(value [, offset [, default]]): the value `offset` rows before (lag) or after (lead) in the partition,
/// else the default; the offset and the default are read at the current row.
void computeShift(const WindowCallSpec& call, const Partition& partition, Vector& out) {
  const Vector& values = partition.rows.column(call.argumentColumns[0]);
  const Vector* offsets = call.argumentColumns.size() > 1 ? &partition.rows.column(call.argumentColumns[1]) : nullptr;
  const Vector* defaults = call.argumentColumns.size() > 2 ? &partition.rows.column(call.argumentColumns[2]) : nullptr;
  for (size_t row = partition.begin; row < partition.end; ++row) {
    int64_t offset = 1;
    if (offsets != nullptr) {
      if (offsets->isNull(row)) {
        out.setNull(row, true);
        continue;
      }
      offset = offsets->data<int32_t>()[row];
    }
    const int64_t target = static_cast<int64_t>(row) + (call.function == WindowFunction::kLag ? -offset : offset);
    if (target >= static_cast<int64_t>(partition.begin) && target < static_cast<int64_t>(partition.end)) {
      out.copyRow(row, values, static_cast<size_t>(target));
    } else if (defaults != nullptr) {
      out.copyRow(row, *defaults, row);
    } else {
      out.setNull(row, true);
    }
  }
}

/// first_value, last_value and nth_value over each row's frame (NULL when the frame has no such row).
void computeFrameValue(const WindowCallSpec& call, const Partition& partition, const std::vector<SortColumn>& order,
                       Vector& out) {
  const Vector& values = partition.rows.column(call.argumentColumns[0]);
  const Vector* nths =
      call.function == WindowFunction::kNthValue ? &partition.rows.column(call.argumentColumns[1]) : nullptr;
  for (size_t row = partition.begin; row < partition.end; ++row) {
    const FrameRows frame = window::frameOf(call.frame, partition, order, row);
    const size_t rows = frame.size();
    std::optional<size_t> position;
    if (call.function == WindowFunction::kFirstValue) {
      if (rows > 0) position = 0;
    } else if (call.function == WindowFunction::kLastValue) {
      if (rows > 0) position = rows - 1;
    } else {
      if (nths->isNull(row)) {
        out.setNull(row, true);
        continue;
      }
      const int64_t nth = nths->data<int32_t>()[row];
      if (nth <= 0) {
        SHOAL_USER_FAIL(SqlState::kInvalidArgumentForNthValue, "argument of nth_value must be greater than zero");
      }
      if (static_cast<uint64_t>(nth) <= rows) position = static_cast<size_t>(nth - 1);
    }
    if (position) {
      out.copyRow(row, values, frame.at(*position));
    } else {
      out.setNull(row, true);
    }
  }
}

void computeCall(const WindowCallSpec& call, const Partition& partition, const std::vector<SortColumn>& order,
                 Vector& out) {
  const size_t begin = partition.begin;
  const auto count = static_cast<double>(partition.size());
  switch (call.function) {
    case WindowFunction::kRowNumber:
      for (size_t row = begin; row < partition.end; ++row) setInt64(out, row, static_cast<int64_t>(row - begin + 1));
      return;
    case WindowFunction::kRank:
      for (size_t row = begin; row < partition.end; ++row) {
        setInt64(out, row, static_cast<int64_t>(partition.peerStart(row) - begin + 1));
      }
      return;
    case WindowFunction::kDenseRank:
      for (size_t row = begin; row < partition.end; ++row) setInt64(out, row, partition.groupOf[row - begin] + 1);
      return;
    case WindowFunction::kPercentRank:
      for (size_t row = begin; row < partition.end; ++row) {
        const auto rank = static_cast<double>(partition.peerStart(row) - begin);
        setDouble(out, row, count > 1 ? rank / (count - 1) : 0.0);
      }
      return;
    case WindowFunction::kCumeDist:
      for (size_t row = begin; row < partition.end; ++row) {
        setDouble(out, row, static_cast<double>(partition.peerEnd(row) - begin) / count);
      }
      return;
    case WindowFunction::kNtile:
      return computeNtile(call, partition, out);
    case WindowFunction::kLag:
    case WindowFunction::kLead:
      return computeShift(call, partition, out);
    case WindowFunction::kFirstValue:
    case WindowFunction::kLastValue:
    case WindowFunction::kNthValue:
      return computeFrameValue(call, partition, order, out);
    case WindowFunction::kAggregate:
      return window::computeAggregate(
          call.aggregate, partition, [&](size_t row) { return window::frameOf(call.frame, partition, order, row); },
          window::isGrowingFrame(call.frame), out);
  }
}

}  // namespace

class WindowSink final : public ChunkSink {
 public:
  explicit WindowSink(WindowOperator& window) : window_(window) {}
  std::unique_ptr<LocalSinkState> makeLocalState() const override {
    return std::make_unique<WindowOperator::Buckets>();
  }

  void consume(Chunk& chunk, LocalSinkState& state) const override {
    reserveQueryMemory(chunk.memoryBytes());
    auto& buckets = static_cast<WindowOperator::Buckets&>(state);
    if (window_.partitionColumns_.empty()) {
      buckets.chunks[0].push_back(std::move(chunk));
      return;
    }
    std::vector<uint64_t> hashes(chunk.size());
    bool first = true;
    for (size_t column : window_.partitionColumns_) {
      const Vector& keys = chunk.column(column);
      // Intervals are equal by their span ('1 day' = '24 hours'): they hash by it.
      if (keys.type().id() == TypeId::kInterval) {
        hashVector(intervalSpans(keys), 0, chunk.size(), hashes.data(), !first);
      } else {
        hashVector(keys, 0, chunk.size(), hashes.data(), !first);
      }
      first = false;
    }
    static_assert(WindowOperator::kBuckets == 32, "buckets take the hash's top 5 bits");
    const auto index = static_cast<uint32_t>(buckets.pending.size());
    for (size_t row = 0; row < chunk.size(); ++row) {
      buckets.pendingRows[hashes[row] >> 59].push_back({hashes[row], index, static_cast<uint32_t>(row)});
    }
    buckets.pendingCount += chunk.size();
    buckets.pending.push_back(std::move(chunk));
    if (buckets.pendingCount >= kSplitRows) split(buckets);
  }

  void combine(LocalSinkState& state) override {
    auto& buckets = static_cast<WindowOperator::Buckets&>(state);
    split(buckets);
    window_.buckets_.push_back(std::make_unique<WindowOperator::Buckets>(std::move(buckets)));
  }

 private:
  /// Input rows split into buckets together: each bucket's share of many chunks becomes one chunk, so that
  /// the split costs a few copies per column rather than one per bucket and input chunk.
  static constexpr size_t kSplitRows = 64 * kVectorSize;

  static void split(WindowOperator::Buckets& buckets) {
    if (buckets.pending.empty()) return;
    std::vector<const Chunk*> pending;
    for (const Chunk& chunk : buckets.pending) pending.push_back(&chunk);
    for (size_t bucket = 0; bucket < WindowOperator::kBuckets; ++bucket) {
      std::vector<RowRef>& rows = buckets.pendingRows[bucket];
      if (rows.empty()) continue;
      std::vector<uint64_t> hashes;
      hashes.reserve(rows.size());
      for (const RowRef& row : rows) hashes.push_back(row.hash);
      buckets.hashes[bucket].push_back(std::move(hashes));
      buckets.chunks[bucket].push_back(gatherRows(pending, rows));
      rows.clear();
    }
    buckets.pending.clear();
    buckets.pendingCount = 0;
  }

  WindowOperator& window_;
};

class WindowSource final : public ChunkSource {
 public:
  explicit WindowSource(WindowOperator& window) : window_(window) {}
  size_t numMorsels() const override { return window_.partitionColumns_.empty() ? 1 : WindowOperator::kBuckets; }

  void produce(size_t bucket, const std::function<void(Chunk&)>& consume) const override {
    std::vector<const Chunk*> chunks;
    std::vector<const std::vector<uint64_t>*> hashes;
    for (const auto& buckets : window_.buckets_) {
      for (size_t i = 0; i < buckets->chunks[bucket].size(); ++i) {
        if (buckets->chunks[bucket][i].size() == 0) continue;
        chunks.push_back(&buckets->chunks[bucket][i]);
        hashes.push_back(window_.partitionColumns_.empty() ? nullptr : &buckets->hashes[bucket][i]);
      }
    }
    if (chunks.empty()) return;
    std::vector<RowRef> refs;
    for (uint32_t c = 0; c < chunks.size(); ++c) {
      for (uint32_t row = 0; row < chunks[c]->size(); ++row) {
        refs.push_back({hashes[c] != nullptr ? (*hashes[c])[row] : 0, c, row});
      }
    }
    std::vector<SortColumn> keys;
    for (size_t column : window_.partitionColumns_) keys.push_back({column, true, false});
    keys.insert(keys.end(), window_.orderColumns_.begin(), window_.orderColumns_.end());
    const bool hashed = !window_.partitionColumns_.empty();
    window::sortRows(chunks, keys, hashed, refs);
    Chunk rows = gatherRows(chunks, refs);
    reserveQueryMemory(rows.memoryBytes());
    // Rows of different hashes are in different partitions: only rows of one hash compare their keys.
    std::vector<uint64_t> sortedHashes(refs.size());
    for (size_t i = 0; i < refs.size(); ++i) sortedHashes[i] = refs[i].hash;
    refs = {};

    const size_t total = rows.size();
    std::vector<Vector> results;
    for (const auto& call : window_.calls_) results.emplace_back(call.resultType, total);
    Partition partition{rows, 0, 0, {}, {}};
    for (size_t begin = 0; begin < total;) {
      size_t end = begin + 1;
      while (end < total && sortedHashes[end] == sortedHashes[begin] &&
             samePartition(rows, begin, end, window_.partitionColumns_)) {
        ++end;
      }
      window::findPeers(begin, end, window_.orderColumns_, partition);
      for (size_t i = 0; i < window_.calls_.size(); ++i) {
        computeCall(window_.calls_[i], partition, window_.orderColumns_, results[i]);
      }
      begin = end;
    }

    std::vector<uint32_t> slice;
    for (size_t at = 0; at < total; at += kVectorSize) {
      const size_t count = std::min(kVectorSize, total - at);
      slice.resize(count);
      for (size_t i = 0; i < count; ++i) slice[i] = static_cast<uint32_t>(at + i);
      Chunk out(count);
      for (size_t column = 0; column < rows.numColumns(); ++column) out.addColumn(rows.column(column).select(slice));
      for (auto& result : results) out.addColumn(result.select(slice));
      consume(out);
    }
  }

 private:
  WindowOperator& window_;
};

WindowOperator::WindowOperator(std::vector<size_t> partitionColumns, std::vector<SortColumn> orderColumns,
                               std::vector<WindowCallSpec> calls)
    : partitionColumns_(std::move(partitionColumns)),
      orderColumns_(std::move(orderColumns)),
      calls_(std::move(calls)) {}

WindowOperator::~WindowOperator() = default;

std::shared_ptr<ChunkSink> WindowOperator::sink() {
  return std::make_shared<WindowSink>(*this);
}

std::shared_ptr<ChunkSource> WindowOperator::source() {
  return std::make_shared<WindowSource>(*this);
}

std::string_view windowFunctionName(WindowFunction function) {
  switch (function) {
    case WindowFunction::kRowNumber:
      return "row_number";
    case WindowFunction::kRank:
      return "rank";
    case WindowFunction::kDenseRank:
      return "dense_rank";
    case WindowFunction::kPercentRank:
      return "percent_rank";
    case WindowFunction::kCumeDist:
      return "cume_dist";
    case WindowFunction::kNtile:
      return "ntile";
    case WindowFunction::kLag:
      return "lag";
    case WindowFunction::kLead:
      return "lead";
    case WindowFunction::kFirstValue:
      return "first_value";
    case WindowFunction::kLastValue:
      return "last_value";
    case WindowFunction::kNthValue:
      return "nth_value";
    case WindowFunction::kAggregate:
      return "aggregate";
  }
  return "?";
}

}  // namespace shoal::engine
