#include "coordinator/catalog/system_relation.h"

namespace shoal::coordinator {

sql::TableDescription SystemRelation::description() const {
  sql::TableDescription description;
  description.schema = schema;
  description.name = name;
  description.columns = columns;
  description.isSystemView = true;
  return description;
}

std::vector<engine::Chunk> rowsToChunks(const std::vector<sql::ColumnDescription>& columns, const SystemRows& rows) {
  std::vector<engine::Chunk> chunks;
  for (size_t begin = 0; begin < rows.size(); begin += engine::kVectorSize) {
    size_t count = std::min(engine::kVectorSize, rows.size() - begin);
    std::vector<engine::Vector> vectors;
    for (const auto& column : columns) vectors.emplace_back(column.type, count);
    for (size_t i = 0; i < count; ++i) {
      for (size_t c = 0; c < vectors.size(); ++c) vectors[c].setValue(i, rows[begin + i][c]);
    }
    chunks.emplace_back(std::move(vectors), count);
  }
  return chunks;
}

}  // namespace shoal::coordinator
