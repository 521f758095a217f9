#include "coordinator/catalog/system_catalog.h"

#include "common/check.h"

namespace shoal::coordinator {

using engine::LogicalType;

namespace {

constexpr std::string_view kNodesView = "shoal_nodes";

sql::TableDescription nodesDescription() {
  return sql::TableDescription{std::string(kNodesView),
                               {{"node_id", LogicalType::integer()},
                                {"name", LogicalType::text()},
                                {"role", LogicalType::text()},
                                {"address", LogicalType::text()},
                                {"state", LogicalType::text()},
                                {"seconds_since_heartbeat", LogicalType::doublePrecision()}}};
}

}  // namespace

std::optional<sql::TableDescription> SystemCatalog::findTable(std::string_view name) const {
  if (name == kNodesView) {
    return nodesDescription();
  }
  return std::nullopt;
}

std::vector<engine::Chunk> SystemCatalog::scan(std::string_view name) const {
  SHOAL_CHECK(name == kNodesView, "scan of unknown system view {}", name);
  return scanNodes();
}

std::vector<engine::Chunk> SystemCatalog::scanNodes() const {
  auto nodes = registry_.nodes();
  auto description = nodesDescription();
  std::vector<engine::Chunk> chunks;
  for (size_t begin = 0; begin < nodes.size(); begin += engine::kVectorSize) {
    size_t count = std::min(engine::kVectorSize, nodes.size() - begin);
    std::vector<engine::Vector> columns;
    for (const auto& column : description.columns) {
      columns.emplace_back(column.type, count);
    }
    for (size_t i = 0; i < count; ++i) {
      const auto& node = nodes[begin + i];
      columns[0].setValue(i, engine::Value::integer(static_cast<int32_t>(node.nodeId)));
      columns[1].setValue(i, engine::Value::varchar(node.nodeName));
      columns[2].setValue(i, engine::Value::varchar(node.role));
      columns[3].setValue(i, engine::Value::varchar(node.address));
      columns[4].setValue(i, engine::Value::varchar(node.state));
      columns[5].setValue(i, engine::Value::doublePrecision(node.secondsSinceHeartbeat));
    }
    chunks.emplace_back(std::move(columns), count);
  }
  return chunks;
}

}  // namespace shoal::coordinator
