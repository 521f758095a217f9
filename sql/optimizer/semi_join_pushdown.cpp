#include "sql/optimizer/semi_join_pushdown.h"

#include "sql/optimizer/cardinality_estimator.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

namespace {

bool isFilteringJoin(const LogicalOperator& op) {
  if (op.kind() != LogicalOperatorKind::kJoin) return false;
  const auto& join = static_cast<const LogicalJoin&>(op);
  return (join.type == JoinType::kSemi || join.type == JoinType::kAnti) && !join.nullAwareCondition && !join.dependent;
}

/// The side of `below` (a join under the filtering join) that may take the filter: its inputs that produce
/// every column in `needed`, and through which a filter on its rows may pass.
std::optional<size_t> sideTaking(const LogicalOperator& below, const std::set<ColumnId>& needed) {
  if (below.kind() != LogicalOperatorKind::kJoin) return std::nullopt;
  const auto& join = static_cast<const LogicalJoin&>(below);
  size_t sides = 0;
  if (join.type == JoinType::kInner) {
    sides = 2;
  } else if (join.type == JoinType::kLeft || join.type == JoinType::kSemi || join.type == JoinType::kAnti ||
             join.type == JoinType::kMark || join.type == JoinType::kSingle) {
    sides = 1;  // only the preserved (left) side: the right side's rows are matched, not output as they are
  } else {
    return std::nullopt;
  }
  for (size_t side = 0; side < sides; ++side) {
    // Only into an input the join multiplies: past a join that filters that input, the semi join would
    // see more rows, not fewer.
    if (below.estimatedRows <= below.children[side]->estimatedRows) continue;
    std::set<ColumnId> produced = outputIds(*below.children[side]);
    bool all = true;
    for (ColumnId id : needed) all = all && produced.contains(id);
    if (all) return side;
  }
  return std::nullopt;
}

LogicalOperatorPtr push(LogicalOperatorPtr op) {
  for (auto& child : op->children) child = push(std::move(child));
  if (!isFilteringJoin(*op)) return op;
  auto& join = static_cast<LogicalJoin&>(*op);
  std::set<ColumnId> rightIds = outputIds(*join.children[1]);
  std::set<ColumnId> needed;
  for (const auto& condition : join.conditions) {
    for (ColumnId id : columnsOf(*condition)) {
      if (!rightIds.contains(id)) needed.insert(id);
    }
  }
  if (needed.empty()) return op;
  std::optional<size_t> side = sideTaking(*join.children[0], needed);
  if (!side) return op;
  // filter(below(a, b)) -> below(filter(a), b), and on down from there.
  LogicalOperatorPtr below = std::move(join.children[0]);
  join.children[0] = std::move(below->children[*side]);
  below->children[*side] = push(std::move(op));
  return below;
}

}  // namespace

LogicalOperatorPtr pushSemiJoinsDown(LogicalOperatorPtr root) {
  CardinalityEstimator().estimate(*root);
  return push(std::move(root));
}

}  // namespace shoal::sql
