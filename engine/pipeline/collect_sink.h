#pragma once

#include <mutex>

#include "engine/pipeline/pipeline.h"
#include "engine/pipeline/result_queue.h"

namespace shoal::engine {

/// Gathers a pipeline's rows (the end of a query on one node): each thread
/// keeps its own chunks, and combine appends them to the result. Streaming
/// (streamTo), it hands each chunk to a ResultQueue as soon as it is made
/// instead, and closes the queue when the pipeline finishes.
class CollectSink final : public ChunkSink {
 public:
  std::unique_ptr<LocalSinkState> makeLocalState() const override;
  void consume(Chunk& chunk, LocalSinkState& state) const override;
  void combine(LocalSinkState& state) override;
  void finalize() override;

  /// Sends the rows to `queue` as they come (set before the pipelines start). The sink shares the
  /// queue, so that a pipeline still finishing after its query was abandoned never closes a freed one.
  /// Each chunk stays charged to the query until whoever takes it from the queue releases it.
  void streamTo(std::shared_ptr<ResultQueue> queue) { stream_ = std::move(queue); }

  /// The rows, once the pipeline finished.
  std::vector<Chunk>& chunks() { return chunks_; }
  size_t numRows() const;

 private:
  std::vector<Chunk> chunks_;
  std::shared_ptr<ResultQueue> stream_;
};

/// A copy of the chunk's rows.
Chunk copyOf(const Chunk& chunk);

/// A source over chunks already in memory, one morsel per chunk (tests, small inputs, a recursive query's rows).
/// Each morsel is a copy: the chunks stay as they are, and may be shared.
class ChunkListSource final : public ChunkSource {
 public:
  explicit ChunkListSource(std::vector<Chunk> chunks, uint32_t numaNodes = 1)
      : ChunkListSource(std::make_shared<const std::vector<Chunk>>(std::move(chunks)), numaNodes) {}
  explicit ChunkListSource(std::shared_ptr<const std::vector<Chunk>> chunks, uint32_t numaNodes = 1)
      : chunks_(std::move(chunks)), numaNodes_(numaNodes) {}
  size_t numMorsels() const override { return chunks_->size(); }
  uint32_t morselNode(size_t morsel) const override { return static_cast<uint32_t>(morsel % numaNodes_); }
  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override;

 private:
  std::shared_ptr<const std::vector<Chunk>> chunks_;
  uint32_t numaNodes_;
};

}  // namespace shoal::engine
