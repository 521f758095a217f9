#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/query/shuffle_figures.h"
#include "engine/vector/chunk.h"

namespace shoal::coordinator {

/// A message for the client beside a statement's result (pgwire NoticeResponse).
struct Notice {
  std::string_view severity;  // "NOTICE" or "WARNING"
  std::string_view sqlState;
  std::string message;
  /// The DETAIL line(s), when there are any.
  std::string detail = {};

  static Notice notice(std::string message, std::string_view sqlState = "00000") {
    return Notice{"NOTICE", sqlState, std::move(message)};
  }
  static Notice warning(std::string_view sqlState, std::string message) {
    return Notice{"WARNING", sqlState, std::move(message)};
  }
};

struct ResultColumn {
  std::string name;
  engine::LogicalType type;
};

/// Rows of a query still arriving (from a worker's result stream).
class ChunkStream {
 public:
  virtual ~ChunkStream() = default;
  /// The next chunk of rows, or nullopt once every row has come; throws the query's error.
  virtual std::optional<engine::Chunk> next() = 0;
};

/// The rows of one query, as the coordinator hands them to the client: the
/// chunks at hand, then those of `stream` (if any) as they arrive. The client
/// side takes them in order with nextChunk, so that a large result never has
/// to sit whole on the coordinator.
struct QueryResult {
  std::vector<ResultColumn> columns;
  std::deque<engine::Chunk> chunks;
  std::unique_ptr<ChunkStream> stream;
  /// What the query's exchanges did (a distributed plan's).
  ShuffleFigures shuffle;
  /// INSERT ... SELECT whose workers routed the rows into the table themselves: how many they routed.
  uint64_t rowsInserted = 0;

  /// The next chunk: one at hand, else one from the stream; nullopt at the end.
  std::optional<engine::Chunk> nextChunk() {
    if (!chunks.empty()) {
      engine::Chunk chunk = std::move(chunks.front());
      chunks.pop_front();
      return chunk;
    }
    if (stream) {
      if (auto chunk = stream->next()) return chunk;
      stream.reset();
    }
    return std::nullopt;
  }

  /// The rows at hand (a streamed result's count is known only once it has been read).
  size_t numRows() const {
    size_t rows = 0;
    for (const auto& chunk : chunks) rows += chunk.size();
    return rows;
  }
};

}  // namespace shoal::coordinator
