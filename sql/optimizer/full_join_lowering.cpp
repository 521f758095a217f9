#include "sql/optimizer/full_join_lowering.h"

#include <map>
#include <set>

#include "common/status.h"
#include "sql/binder/expression_builders.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"

namespace shoal::sql {
namespace {

/// `first` JOIN `second` of type `type` on `join`'s conditions, over copies of both whose columns have fresh ids.
std::unique_ptr<LogicalJoin> joinOfCopies(JoinType type, const LogicalOperator& first, const LogicalOperator& second,
                                          const LogicalJoin& join, ColumnIdGenerator& ids) {
  std::map<ColumnId, ColumnId> renamed;
  auto copied = std::make_unique<LogicalJoin>();
  copied->type = type;
  for (const LogicalOperator* side : {&first, &second}) {
    copied->children.push_back(copyPlan(*side));
    for (const auto& [from, to] : renumberColumns(*copied->children.back(), ids)) renamed[from] = to;
  }
  for (const auto& condition : join.conditions) copied->conditions.push_back(withRenamedColumns(*condition, renamed));
  return copied;
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

  // left LEFT JOIN right; then the right rows no left row matches (right ANTI JOIN left), with NULLs for the
  // left's columns.
  auto leftJoin = joinOfCopies(JoinType::kLeft, *join.children[0], *join.children[1], join, ids);
  auto antiJoin = joinOfCopies(JoinType::kAnti, *join.children[1], *join.children[0], join, ids);
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
