#include "sql/optimizer/full_join_lowering.h"

#include <map>
#include <set>

#include "common/status.h"
#include "sql/binder/expression_builders.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"

namespace shoal::sql {
namespace {

/// A copy of `side` whose columns have fresh ids; `renamed` gains each old id's new one.
LogicalOperatorPtr renumberedCopy(const LogicalOperator& side, ColumnIdGenerator& ids,
                                  std::map<ColumnId, ColumnId>& renamed) {
  LogicalOperatorPtr copy = copyPlan(side);
  for (const auto& [from, to] : renumberColumns(*copy, ids)) renamed[from] = to;
  return copy;
}

std::vector<engine::ExpressionPtr> renamedConditions(const LogicalJoin& join,
                                                     const std::map<ColumnId, ColumnId>& renamed) {
  std::vector<engine::ExpressionPtr> conditions;
  for (const auto& condition : join.conditions) {
    conditions.push_back(rewriteExpression(*condition, [&](const engine::Expression& node) -> engine::ExpressionPtr {
      if (node.kind() != engine::ExpressionKind::kColumnRef) return nullptr;
      const auto& ref = static_cast<const engine::ColumnRefExpression&>(node);
      auto found = renamed.find(static_cast<ColumnId>(ref.columnIndex()));
      if (found == renamed.end()) return nullptr;
      return std::make_unique<engine::ColumnRefExpression>(found->second, ref.type(), ref.name());
    }));
  }
  return conditions;
}

std::set<ColumnId> idsOf(const std::vector<PlanColumn>& columns) {
  std::set<ColumnId> ids;
  for (const auto& column : columns) ids.insert(column.id);
  return ids;
}

/// PostgreSQL runs a FULL JOIN only as a hash or merge join: when a condition reads both sides, one must be an
/// equality of a left expression and a right one. The rewrite here could run any condition; refusing the same
/// ones keeps a query that works here working there.
void requireEquiCondition(const LogicalJoin& join) {
  const std::set<ColumnId> left = idsOf(join.children[0]->outputColumns());
  const std::set<ColumnId> right = idsOf(join.children[1]->outputColumns());
  bool readsBothSides = false;
  bool hasEquality = false;
  for (const auto& condition : join.conditions) {
    if (!readsAnyOf(*condition, left) || !readsAnyOf(*condition, right)) continue;
    readsBothSides = true;
    if (condition->kind() != engine::ExpressionKind::kFunction) continue;
    const auto& function = static_cast<const engine::FunctionExpression&>(*condition);
    if (function.function() != engine::ScalarFunction::kEqual) continue;
    const auto& a = *function.arguments()[0];
    const auto& b = *function.arguments()[1];
    hasEquality |= (readsOnly(a, left) && readsOnly(b, right)) || (readsOnly(a, right) && readsOnly(b, left));
  }
  if (readsBothSides && !hasEquality) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                    "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions");
  }
}

LogicalOperatorPtr lowerFullJoin(LogicalJoin& join, ColumnIdGenerator& ids) {
  requireEquiCondition(join);
  const std::vector<PlanColumn> output = join.outputColumns();
  const std::vector<PlanColumn> leftColumns = join.children[0]->outputColumns();

  // left LEFT JOIN right, on copies with their own ids.
  std::map<ColumnId, ColumnId> matched;
  auto leftJoin = std::make_unique<LogicalJoin>();
  leftJoin->type = JoinType::kLeft;
  leftJoin->children.push_back(renumberedCopy(*join.children[0], ids, matched));
  leftJoin->children.push_back(renumberedCopy(*join.children[1], ids, matched));
  leftJoin->conditions = renamedConditions(join, matched);

  // right rows no left row matches: right ANTI JOIN left, then NULLs for the left's columns.
  std::map<ColumnId, ColumnId> unmatched;
  auto antiJoin = std::make_unique<LogicalJoin>();
  antiJoin->type = JoinType::kAnti;
  antiJoin->children.push_back(renumberedCopy(*join.children[1], ids, unmatched));
  antiJoin->children.push_back(renumberedCopy(*join.children[0], ids, unmatched));
  antiJoin->conditions = renamedConditions(join, unmatched);
  auto padded = std::make_unique<LogicalProject>();
  for (const auto& column : leftColumns) {
    padded->expressions.push_back(constantOf(engine::Value::null(column.type)));
    padded->ids.push_back(ids.next());
    padded->names.push_back(column.name);
  }
  for (const auto& column : antiJoin->outputColumns()) {
    padded->expressions.push_back(columnRef(column));
    padded->ids.push_back(ids.next());
    padded->names.push_back(column.name);
  }
  padded->children.push_back(std::move(antiJoin));

  auto unionAll = std::make_unique<LogicalUnionAll>();
  unionAll->columns = output;
  unionAll->children.push_back(std::move(leftJoin));
  unionAll->children.push_back(std::move(padded));
  return unionAll;
}

}  // namespace

LogicalOperatorPtr lowerFullJoins(LogicalOperatorPtr root, ColumnIdGenerator& ids) {
  for (auto& child : root->children) child = lowerFullJoins(std::move(child), ids);
  if (root->kind() == LogicalOperatorKind::kJoin) {
    auto& join = static_cast<LogicalJoin&>(*root);
    if (join.type == JoinType::kFull) return lowerFullJoin(join, ids);
  }
  return root;
}

}  // namespace shoal::sql
