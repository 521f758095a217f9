#include "worker/storage/stored_columns_json.h"

namespace shoal::worker {

nlohmann::json storedColumnsToJson(const std::vector<StoredColumn>& columns) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& column : columns) {
    nlohmann::json type = {static_cast<uint32_t>(column.type.id()), column.type.precision(), column.type.scale(),
                           column.type.maxLength()};
    // json, jsonb and real add a fifth part (1, 2, 3), arrays a sixth (the element type's id, after a fifth
    // part of 0 when the elements are of none of those); other columns keep the four that older segments have.
    const int kind = column.type.isJsonb() ? 2 : column.type.isJson() ? 1 : column.type.isReal() ? 3 : 0;
    if (kind != 0 || column.type.isArray()) type.push_back(kind);
    if (column.type.isArray()) type.push_back(static_cast<uint32_t>(column.type.elementId()));
    out.push_back({{"name", column.name}, {"type", std::move(type)}, {"not_null", column.notNull}});
  }
  return out;
}

std::vector<StoredColumn> storedColumnsFromJson(const nlohmann::json& columns) {
  std::vector<StoredColumn> out;
  for (const auto& column : columns) {
    const auto& type = column.at("type");
    // The fifth part (1 json, 2 jsonb, 3 real) came later: segments written before it have four.
    const int kind = type.size() > 4 ? type.at(4).get<int>() : 0;
    const uint32_t elementId = type.size() > 5 ? type.at(5).get<uint32_t>() : 0;
    out.push_back(
        StoredColumn{column.at("name"),
                     engine::LogicalType::fromParts(type.at(0), type.at(1), type.at(2), type.at(3), elementId, false,
                                                    false, kind == 1 || kind == 2, kind == 2, kind == 3),
                     column.at("not_null")});
  }
  return out;
}

}  // namespace shoal::worker
