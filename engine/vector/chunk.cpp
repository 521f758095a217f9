#include "engine/vector/chunk.h"

#include <fmt/format.h>

namespace shoal::engine {

std::string Chunk::toString() const {
  std::string text = fmt::format("Chunk(rows={}, columns={})", size_, columns_.size());
  for (const auto& column : columns_) {
    text += "\n  " + column.toString();
  }
  return text;
}

}  // namespace shoal::engine
