#pragma once

#include <atomic>
#include <memory>

#include "engine/pipeline/pipeline.h"

namespace shoal::engine {

/// Counts the rows that pass a point of a pipeline (EXPLAIN ANALYZE's actual rows); changes nothing.
class RowCounter final : public ChunkOperator {
 public:
  explicit RowCounter(std::shared_ptr<std::atomic<uint64_t>> rows) : rows_(std::move(rows)) {}
  void execute(Chunk& chunk) const override { rows_->fetch_add(chunk.size(), std::memory_order_relaxed); }

 private:
  std::shared_ptr<std::atomic<uint64_t>> rows_;
};

}  // namespace shoal::engine
