#include "sql/plan/logical_operator.h"

namespace shoal::sql {

std::string_view joinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner:
      return "INNER";
    case JoinType::kLeft:
      return "LEFT";
    case JoinType::kFull:
      return "FULL";
    case JoinType::kSemi:
      return "SEMI";
    case JoinType::kAnti:
      return "ANTI";
    case JoinType::kMark:
      return "MARK";
    case JoinType::kSingle:
      return "SINGLE";
  }
  return "?";
}

std::vector<PlanColumn> LogicalProject::outputColumns() const {
  std::vector<PlanColumn> columns;
  for (size_t i = 0; i < expressions.size(); ++i) columns.push_back({ids[i], expressions[i]->type(), names[i]});
  return columns;
}

std::vector<PlanColumn> LogicalJoin::outputColumns() const {
  std::vector<PlanColumn> columns = children[0]->outputColumns();
  switch (type) {
    case JoinType::kSemi:
    case JoinType::kAnti:
      return columns;
    case JoinType::kMark:
      columns.push_back({markId, engine::LogicalType::boolean(), markName});
      return columns;
    default:
      for (auto& column : children[1]->outputColumns()) columns.push_back(std::move(column));
      return columns;
  }
}

std::vector<PlanColumn> LogicalAggregate::outputColumns() const {
  std::vector<PlanColumn> columns;
  for (size_t i = 0; i < groups.size(); ++i) columns.push_back({groupIds[i], groups[i]->type(), groupNames[i]});
  for (const auto& aggregate : aggregates) columns.push_back({aggregate.id, aggregate.resultType, aggregate.name});
  return columns;
}

}  // namespace shoal::sql
