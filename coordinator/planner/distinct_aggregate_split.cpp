#include "coordinator/planner/distinct_aggregate_split.h"

#include <map>
#include <optional>

#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"

namespace shoal::coordinator {

using sql::ColumnId;
using sql::LogicalOperatorPtr;

namespace {

/// The column a DISTINCT call reads, when the planner can repartition on it (count, sum, min, max of a column).
std::optional<ColumnId> distinctColumn(const sql::AggregateCall& call) {
  if (!call.distinct || !call.argument || call.secondArgument || !call.orderBy.empty() ||
      call.argument->kind() != engine::ExpressionKind::kColumnRef) {
    return std::nullopt;
  }
  switch (call.function) {
    case engine::AggregateFunction::kCount:
    case engine::AggregateFunction::kSum:
    case engine::AggregateFunction::kMin:
    case engine::AggregateFunction::kMax:
      return static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(*call.argument).columnIndex());
    default:
      return std::nullopt;
  }
}

}  // namespace

LogicalOperatorPtr splitDistinctAggregates(sql::LogicalAggregate& aggregate, ColumnId& nextId) {
  if (!aggregate.groups.empty()) return nullptr;
  // Each call's part: the DISTINCT column it reads, or none for the plain aggregates.
  std::map<std::optional<ColumnId>, std::vector<size_t>> parts;
  for (size_t i = 0; i < aggregate.aggregates.size(); ++i) {
    const auto& call = aggregate.aggregates[i];
    if (call.distinct) {
      auto column = distinctColumn(call);
      if (!column) return nullptr;
      parts[*column].push_back(i);
    } else {
      if (engine::isCollectingAggregate(call.function)) return nullptr;
      parts[std::nullopt].push_back(i);
    }
  }
  size_t distinctParts = parts.size() - parts.count(std::nullopt);
  if (distinctParts < 2) return nullptr;

  // The original columns, in order, each read from its part's fresh result column.
  auto project = std::make_unique<sql::LogicalProject>();
  std::vector<engine::ExpressionPtr> outputs(aggregate.aggregates.size());
  LogicalOperatorPtr joined;
  bool firstPart = true;
  for (auto& [column, calls] : parts) {
    auto part = std::make_unique<sql::LogicalAggregate>();
    // The first part reads the input itself; the others, copies with fresh column ids.
    std::map<ColumnId, ColumnId> renamed;
    LogicalOperatorPtr input = sql::copyPlan(*aggregate.children[0]);
    if (!firstPart) {
      sql::ColumnIdGenerator ids(nextId);
      renamed = sql::renumberColumns(*input, ids);
      nextId = ids.next();
    }
    firstPart = false;
    for (size_t i : calls) {
      sql::AggregateCall call = sql::copyAggregateCall(aggregate.aggregates[i]);
      if (!renamed.empty()) call.argument = sql::withRenamedColumns(*call.argument, renamed);
      if (!renamed.empty() && call.secondArgument) {
        call.secondArgument = sql::withRenamedColumns(*call.secondArgument, renamed);
      }
      call.id = nextId++;
      outputs[i] = sql::columnRef({call.id, call.resultType, call.name});
      part->aggregates.push_back(std::move(call));
    }
    part->estimatedRows = 1;
    part->children.push_back(std::move(input));
    if (!joined) {
      joined = std::move(part);
      continue;
    }
    auto cross = std::make_unique<sql::LogicalJoin>();
    cross->estimatedRows = 1;
    cross->children.push_back(std::move(joined));
    cross->children.push_back(std::move(part));
    joined = std::move(cross);
  }
  for (size_t i = 0; i < aggregate.aggregates.size(); ++i) {
    project->expressions.push_back(std::move(outputs[i]));
    project->ids.push_back(aggregate.aggregates[i].id);
    project->names.push_back(aggregate.aggregates[i].name);
  }
  project->estimatedRows = 1;
  project->children.push_back(std::move(joined));
  return project;
}

}  // namespace shoal::coordinator
