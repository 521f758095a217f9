#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::coordinator {

/// A message for the client beside a statement's result (pgwire NoticeResponse).
struct Notice {
  std::string_view severity;  // "NOTICE" or "WARNING"
  std::string_view sqlState;
  std::string message;

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

/// The rows of one query, as the coordinator hands them to the client.
struct QueryResult {
  std::vector<ResultColumn> columns;
  std::vector<engine::Chunk> chunks;

  size_t numRows() const {
    size_t rows = 0;
    for (const auto& chunk : chunks) rows += chunk.size();
    return rows;
  }
};

}  // namespace shoal::coordinator
