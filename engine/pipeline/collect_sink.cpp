#include "engine/pipeline/collect_sink.h"

#include "engine/pipeline/query_memory.h"

namespace shoal::engine {
namespace {

struct CollectedChunks final : LocalSinkState {
  std::vector<Chunk> chunks;
};

}  // namespace

Chunk copyOf(const Chunk& chunk) {
  std::vector<uint32_t> rows(chunk.size());
  for (uint32_t row = 0; row < chunk.size(); ++row) rows[row] = row;
  Chunk copy(chunk.size());
  for (size_t column = 0; column < chunk.numColumns(); ++column) copy.addColumn(chunk.column(column).select(rows));
  return copy;
}

std::unique_ptr<LocalSinkState> CollectSink::makeLocalState() const {
  return std::make_unique<CollectedChunks>();
}

void CollectSink::consume(Chunk& chunk, LocalSinkState& state) const {
  if (chunk.size() == 0) return;
  if (stream_ != nullptr && stream_->bounded()) {
    stream_->push(std::move(chunk));
    return;
  }
  reserveQueryMemory(chunk.memoryBytes());
  if (stream_ != nullptr) {
    stream_->push(std::move(chunk));
    return;
  }
  static_cast<CollectedChunks&>(state).chunks.push_back(std::move(chunk));
}

void CollectSink::finalize() {
  if (stream_ != nullptr) stream_->close();
}

void CollectSink::combine(LocalSinkState& state) {
  for (auto& chunk : static_cast<CollectedChunks&>(state).chunks) chunks_.push_back(std::move(chunk));
}

size_t CollectSink::numRows() const {
  size_t rows = 0;
  for (const auto& chunk : chunks_) rows += chunk.size();
  return rows;
}

void ChunkListSource::produce(size_t morsel, const std::function<void(Chunk&)>& consume) const {
  Chunk chunk = copyOf((*chunks_)[morsel]);
  consume(chunk);
}

}  // namespace shoal::engine
