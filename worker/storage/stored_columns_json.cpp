#include "worker/storage/stored_columns_json.h"

namespace shoal::worker {

nlohmann::json storedColumnsToJson(const std::vector<StoredColumn>& columns) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& column : columns) {
    out.push_back({{"name", column.name},
                   {"type",
                    {static_cast<uint32_t>(column.type.id()), column.type.precision(), column.type.scale(),
                     column.type.maxLength()}},
                   {"not_null", column.notNull}});
  }
  return out;
}

std::vector<StoredColumn> storedColumnsFromJson(const nlohmann::json& columns) {
  std::vector<StoredColumn> out;
  for (const auto& column : columns) {
    const auto& type = column.at("type");
    out.push_back(StoredColumn{column.at("name"),
                               engine::LogicalType::fromParts(type.at(0), type.at(1), type.at(2), type.at(3)),
                               column.at("not_null")});
  }
  return out;
}

}  // namespace shoal::worker
