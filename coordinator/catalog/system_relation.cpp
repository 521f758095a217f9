#include "coordinator/catalog/system_relation.h"

#include "engine/types/array_value.h"

namespace shoal::coordinator {

sql::TableDescription SystemRelation::description() const {
  sql::TableDescription description;
  description.schema = schema;
  description.name = name;
  description.columns = columns;
  description.isSystemView = true;
  return description;
}

engine::Value system_value::textArray(const std::optional<std::vector<std::string>>& elements) {
  const auto type = engine::LogicalType::array(engine::LogicalType::text());
  if (!elements) return engine::Value::null(type);
  std::vector<engine::Value> values;
  for (const auto& element : *elements) values.push_back(text(element));
  return engine::Value::array(type, engine::encodeArray(values, engine::LogicalType::text()));
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
