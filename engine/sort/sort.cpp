#include "engine/sort/sort.h"

#include <algorithm>
#include <cmath>

#include "engine/pipeline/query_memory.h"
#include "engine/types/interval.h"

namespace shoal::engine {

/// One thread's rows, and once combined, all rows with their order.
struct Sort::Run final : LocalSinkState {
  std::vector<Chunk> chunks;
};

int compareNonNullAt(const Vector& a, size_t rowA, const Vector& b, size_t rowB) {
  auto threeWay = [](const auto& x, const auto& y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.type().physicalType()) {
    case PhysicalType::kBool:
      return threeWay(a.data<uint8_t>()[rowA], b.data<uint8_t>()[rowB]);
    case PhysicalType::kInt32:
      return threeWay(a.data<int32_t>()[rowA], b.data<int32_t>()[rowB]);
    case PhysicalType::kInt64:
      return threeWay(a.data<int64_t>()[rowA], b.data<int64_t>()[rowB]);
    case PhysicalType::kInt128:
      if (a.type().id() == TypeId::kInterval) {
        return threeWay(intervalSpan(a.data<__int128>()[rowA]), intervalSpan(b.data<__int128>()[rowB]));
      }
      return threeWay(a.data<__int128>()[rowA], b.data<__int128>()[rowB]);
    case PhysicalType::kDouble: {
      double x = a.data<double>()[rowA];
      double y = b.data<double>()[rowB];
      if (std::isnan(x) || std::isnan(y)) return static_cast<int>(std::isnan(x)) - static_cast<int>(std::isnan(y));
      return threeWay(x, y);
    }
    case PhysicalType::kString:
      return compare(a.data<StringRef>()[rowA], b.data<StringRef>()[rowB]);
  }
  return 0;
}

namespace {

struct RowRef {
  uint32_t chunk;
  uint32_t row;
};

class RowOrder {
 public:
  RowOrder(const std::vector<Chunk>& chunks, const std::vector<SortColumn>& keys) : chunks_(chunks), keys_(keys) {}

  bool operator()(const RowRef& left, const RowRef& right) const {
    for (const auto& key : keys_) {
      const Vector& a = chunks_[left.chunk].column(key.column);
      const Vector& b = chunks_[right.chunk].column(key.column);
      bool nullA = a.isNull(left.row);
      bool nullB = b.isNull(right.row);
      if (nullA || nullB) {
        if (nullA && nullB) continue;
        return nullA == key.nullsFirst;
      }
      int order = compareNonNullAt(a, left.row, b, right.row);
      if (order != 0) return key.ascending ? order < 0 : order > 0;
    }
    return false;
  }

 private:
  const std::vector<Chunk>& chunks_;
  const std::vector<SortColumn>& keys_;
};

Chunk gather(const std::vector<Chunk>& chunks, const std::vector<RowRef>& rows, size_t begin, size_t count) {
  Chunk out(count);
  if (chunks.empty()) return out;
  for (size_t column = 0; column < chunks[0].numColumns(); ++column) {
    Vector values(chunks[0].column(column).type(), count);
    for (size_t i = 0; i < count; ++i) {
      const RowRef& ref = rows[begin + i];
      values.copyRow(i, chunks[ref.chunk].column(column), ref.row);
    }
    out.addColumn(std::move(values));
  }
  return out;
}

}  // namespace

class SortSink final : public ChunkSink {
 public:
  explicit SortSink(Sort& sort) : sort_(sort) {}
  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<Sort::Run>(); }
  void consume(Chunk& chunk, LocalSinkState& state) const override {
    reserveQueryMemory(chunk.memoryBytes());
    static_cast<Sort::Run&>(state).chunks.push_back(std::move(chunk));
  }
  void combine(LocalSinkState& state) override {
    sort_.runs_.push_back(std::make_unique<Sort::Run>(std::move(static_cast<Sort::Run&>(state))));
  }

 private:
  Sort& sort_;
};

class SortSource final : public ChunkSource {
 public:
  explicit SortSource(Sort& sort) : sort_(sort) {}
  size_t numMorsels() const override { return 1; }

  void produce(size_t, const std::function<void(Chunk&)>& consume) const override {
    std::vector<Chunk> chunks;
    for (auto& run : sort_.runs_) {
      for (auto& chunk : run->chunks) chunks.push_back(std::move(chunk));
    }
    std::vector<RowRef> rows;
    for (uint32_t c = 0; c < chunks.size(); ++c) {
      for (uint32_t row = 0; row < chunks[c].size(); ++row) rows.push_back({c, row});
    }
    RowOrder order(chunks, sort_.keys_);
    size_t end = rows.size();
    if (sort_.limit_) {
      end = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(rows.size()), sort_.offset_ + *sort_.limit_));
      // Top-N: only the first OFFSET + LIMIT rows need their order.
      std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(end), rows.end(), order);
    } else {
      std::stable_sort(rows.begin(), rows.end(), order);
    }
    size_t begin = static_cast<size_t>(std::min<int64_t>(sort_.offset_, static_cast<int64_t>(end)));
    for (size_t at = begin; at < end; at += kVectorSize) {
      Chunk chunk = gather(chunks, rows, at, std::min(kVectorSize, end - at));
      consume(chunk);
    }
  }

 private:
  Sort& sort_;
};

Sort::Sort(std::vector<SortColumn> keys, std::optional<int64_t> limit, int64_t offset)
    : keys_(std::move(keys)), limit_(limit), offset_(offset) {}

Sort::~Sort() = default;

std::shared_ptr<ChunkSink> Sort::sink() {
  return std::make_shared<SortSink>(*this);
}
std::shared_ptr<ChunkSource> Sort::source() {
  return std::make_shared<SortSource>(*this);
}

namespace {

class LimitSink final : public ChunkSink {
 public:
  explicit LimitSink(Limit& limit) : limit_(limit) {}
  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<Sort::Run>(); }
  void consume(Chunk& chunk, LocalSinkState& state) const override {
    if (satisfied()) return;  // enough rows are held already (by other threads, perhaps)
    reserveQueryMemory(chunk.memoryBytes());
    const auto rows = static_cast<int64_t>(chunk.size());
    static_cast<Sort::Run&>(state).chunks.push_back(std::move(chunk));
    limit_.rowsHeld_.fetch_add(rows);
  }
  void combine(LocalSinkState& state) override {
    for (auto& chunk : static_cast<Sort::Run&>(state).chunks) limit_.chunks_.push_back(std::move(chunk));
  }
  bool satisfied() const override { return limit_.rowsHeld_.load() >= limit_.rowsNeeded(); }

 private:
  Limit& limit_;
};

class LimitSource final : public ChunkSource {
 public:
  explicit LimitSource(Limit& limit) : limit_(limit) {}
  size_t numMorsels() const override { return 1; }
  void produce(size_t, const std::function<void(Chunk&)>& consume) const override {
    int64_t skip = limit_.offset_;
    int64_t left = limit_.limit_.value_or(INT64_MAX);
    for (auto& chunk : limit_.chunks_) {
      if (left <= 0) return;
      auto size = static_cast<int64_t>(chunk.size());
      int64_t from = std::min(skip, size);
      skip -= from;
      int64_t take = std::min(size - from, left);
      left -= take;
      if (take <= 0) continue;
      std::vector<uint32_t> rows;
      for (int64_t row = from; row < from + take; ++row) rows.push_back(static_cast<uint32_t>(row));
      Chunk out(rows.size());
      for (size_t column = 0; column < chunk.numColumns(); ++column) out.addColumn(chunk.column(column).select(rows));
      consume(out);
    }
  }

 private:
  Limit& limit_;
};

}  // namespace

std::shared_ptr<ChunkSink> Limit::sink() {
  return std::make_shared<LimitSink>(*this);
}
std::shared_ptr<ChunkSource> Limit::source() {
  return std::make_shared<LimitSource>(*this);
}

}  // namespace shoal::engine
