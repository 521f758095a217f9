#pragma once

#include <string>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::coordinator {

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
