#include "sql/optimizer/eager_aggregation.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sql/optimizer/cardinality_estimator.h"
#include "sql/plan/aggregate_phases.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"

namespace shoal::sql {

namespace {

/// Rows per group the grouped input must shrink by, on the estimates, to be grouped before the join: grouping
/// costs about what the join's probe does per row, so a small reduction gains nothing, and estimates err.
constexpr double kMinimumRowsPerGroup = 8;

bool readsOnlySide(const AggregateCall& call, const std::set<ColumnId>& side) {
  return !call.argument || readsOnly(*call.argument, side);
}

/// Which input of `join` to group under `aggregate`, if any: the one all aggregates read (the larger when both
/// qualify, as for count(*) alone).
std::optional<size_t> groupedSide(const LogicalAggregate& aggregate, const LogicalJoin& join) {
  std::optional<size_t> chosen;
  for (size_t side = 0; side < 2; ++side) {
    const std::set<ColumnId> columns = outputIds(*join.children[side]);
    const bool readsSide = std::all_of(aggregate.aggregates.begin(), aggregate.aggregates.end(),
                                       [&](const AggregateCall& call) { return readsOnlySide(call, columns); });
    if (!readsSide) continue;
    if (!chosen || join.children[side]->estimatedRows > join.children[*chosen]->estimatedRows) chosen = side;
  }
  return chosen;
}

class EagerAggregation {
 public:
  explicit EagerAggregation(ColumnIdGenerator& ids) : ids_(ids) {}

  LogicalOperatorPtr run(LogicalOperatorPtr op) {
    for (auto& child : op->children) child = run(std::move(child));
    if (op->kind() != LogicalOperatorKind::kAggregate) return op;
    return pushThroughJoin(std::unique_ptr<LogicalAggregate>(static_cast<LogicalAggregate*>(op.release())));
  }

 private:
  /// `aggregate` as it was, or, grouped eagerly: a projection of the original columns over the aggregation
  /// that combines the groups, over the join, over the grouped input (itself pushed further when it can be).
  LogicalOperatorPtr pushThroughJoin(std::unique_ptr<LogicalAggregate> aggregate) {
    LogicalOperator& child = *aggregate->children[0];
    if (child.kind() != LogicalOperatorKind::kJoin || !combinesFromParts(*aggregate)) return aggregate;
    auto& join = static_cast<LogicalJoin&>(child);
    if (join.type != JoinType::kInner || join.dependent || join.nullAwareCondition || join.conditions.empty()) {
      return aggregate;
    }
    CardinalityEstimator estimator;
    const double joinRows = estimator.estimate(join);
    const std::optional<size_t> side = groupedSide(*aggregate, join);
    if (!side) return aggregate;
    LogicalOperator& input = *join.children[*side];
    const std::set<ColumnId> inputIds = outputIds(input);

    // The input's columns the keys and the conditions read: rows equal on them meet the same rows across.
    std::set<ColumnId> read;
    for (const auto& key : aggregate->groups) collectColumns(*key, read);
    for (const auto& condition : join.conditions) collectColumns(*condition, read);
    std::vector<PlanColumn> keys;
    for (const auto& column : input.outputColumns()) {
      if (read.contains(column.id)) keys.push_back(column);
    }
    if (keys.empty()) return aggregate;
    double groups = 1;
    for (const auto& key : keys) {
      const double distinct = estimator.distinctOf(*columnRef(key), input.estimatedRows);
      if (distinct <= 0) return aggregate;  // no statistics: no grounds to regroup
      groups *= distinct;
    }
    groups = std::min(groups, input.estimatedRows);
    if (groups * kMinimumRowsPerGroup > std::min(input.estimatedRows, joinRows)) return aggregate;

    // Below the join: the input grouped by those columns (renamed), with the calls' parts.
    PhasedCalls phases = splitIntoPhases(std::move(aggregate->aggregates), ids_);
    auto grouped = std::make_unique<LogicalAggregate>();
    std::map<ColumnId, ColumnId> renamed;
    for (const auto& key : keys) {
      const ColumnId id = ids_.next();
      renamed[key.id] = id;
      grouped->groups.push_back(columnRef(key));
      grouped->groupIds.push_back(id);
      grouped->groupNames.push_back(key.name);
    }
    grouped->aggregates = std::move(phases.below);
    grouped->children.push_back(std::move(join.children[*side]));
    for (auto& condition : join.conditions) condition = withRenamedColumns(*condition, renamed);
    join.children[*side] = pushThroughJoin(std::move(grouped));
    join.buildLeft = estimator.estimate(*join.children[0]) < estimator.estimate(*join.children[1]);

    // Above the join: the original keys over the groups' columns, and the calls that combine the parts.
    auto combined = std::make_unique<LogicalAggregate>();
    auto result = std::make_unique<LogicalProject>();
    for (size_t key = 0; key < aggregate->groups.size(); ++key) {
      const PlanColumn column{ids_.next(), aggregate->groups[key]->type(), aggregate->groupNames[key]};
      combined->groups.push_back(withRenamedColumns(*aggregate->groups[key], renamed));
      combined->groupIds.push_back(column.id);
      combined->groupNames.push_back(column.name);
      result->expressions.push_back(columnRef(column));
      result->ids.push_back(aggregate->groupIds[key]);
      result->names.push_back(column.name);
    }
    std::vector<PlanColumn> combinedColumns;
    for (const auto& call : phases.above) combinedColumns.push_back(PlanColumn{call.id, call.resultType, call.name});
    combined->aggregates = std::move(phases.above);
    for (const auto& finish : phases.finishes) {
      result->expressions.push_back(finishedValue(finish, combinedColumns, aggregate->groups.empty()));
      result->ids.push_back(finish.column.id);
      result->names.push_back(finish.column.name);
    }
    combined->children.push_back(std::move(aggregate->children[0]));
    result->children.push_back(std::move(combined));
    return result;
  }

  ColumnIdGenerator& ids_;
};

}  // namespace

LogicalOperatorPtr aggregateEagerly(LogicalOperatorPtr root, ColumnIdGenerator& ids) {
  return EagerAggregation(ids).run(std::move(root));
}

}  // namespace shoal::sql
