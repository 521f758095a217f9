// Decorrelator's general unnesting of a dependent join (see decorrelator.h): D, the distinct outer values
// the subquery reads, is pushed down into the subquery to where it reads them.

#include "sql/optimizer/decorrelator.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"
#include "sql/plan/plan_walker.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;

using decorrelation::subtreeReadsAny;
using decorrelation::unsupported;

namespace {

ExpressionPtr function(ScalarFunction which, LogicalType type, std::vector<ExpressionPtr> arguments) {
  return std::make_unique<FunctionExpression>(which, std::move(arguments), std::move(type));
}

ExpressionPtr isNull(const PlanColumn& column) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(columnRef(column));
  return function(ScalarFunction::kIsNull, LogicalType::boolean(), std::move(arguments));
}

ExpressionPtr equal(ExpressionPtr left, ExpressionPtr right) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(left));
  arguments.push_back(std::move(right));
  return function(ScalarFunction::kEqual, LogicalType::boolean(), std::move(arguments));
}

/// `column`, with NULL replaced by a value of its type where one is at hand (so that an equality on it can
/// be a hash key); null otherwise.
ExpressionPtr withNullReplaced(const PlanColumn& column) {
  const LogicalType& type = column.type;
  engine::Value standIn;
  if (type.isIntegral()) {
    standIn = engine::Value::bigInt(0);
  } else if (type.isString()) {
    standIn = engine::Value::varchar("");
  } else if (type.id() == TypeId::kBoolean) {
    standIn = engine::Value::boolean(false);
  } else {
    return nullptr;
  }
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(isNull(column));
  arguments.push_back(
      std::make_unique<engine::CastExpression>(std::make_unique<engine::ConstantExpression>(std::move(standIn)), type));
  arguments.push_back(columnRef(column));
  return function(ScalarFunction::kCase, type, std::move(arguments));
}

/// The conditions under which outer column `outer` matches D's column `distinct`: equal, or both NULL.
void addNotDistinct(const PlanColumn& outer, const PlanColumn& distinct, std::vector<ExpressionPtr>& conditions) {
  conditions.push_back(equal(isNull(outer), isNull(distinct)));
  if (auto left = withNullReplaced(outer)) {
    conditions.push_back(equal(std::move(left), withNullReplaced(distinct)));
    return;
  }
  // CASE WHEN outer IS NULL THEN TRUE ELSE outer = distinct END (both are NULL or neither, by the first).
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(isNull(outer));
  arguments.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::boolean(true)));
  arguments.push_back(equal(columnRef(outer), columnRef(distinct)));
  conditions.push_back(function(ScalarFunction::kCase, LogicalType::boolean(), std::move(arguments)));
}

}  // namespace

LogicalOperatorPtr Decorrelator::unnestGenerally(std::unique_ptr<LogicalJoin> join) {
  Pushdown pushdown;
  const std::set<ColumnId> free = freeColumns(*join->children[1]);
  for (const auto& column : join->children[0]->outputColumns()) {
    if (free.contains(column.id)) pushdown.outerColumns.push_back(column);
  }
  // D: SELECT DISTINCT <the outer columns read> FROM <a copy of the outer input, under fresh ids>.
  LogicalOperatorPtr outerCopy = copyPlan(*join->children[0]);
  const std::map<ColumnId, ColumnId> renamed = renumberColumns(*outerCopy, ids_);
  auto distinct = std::make_unique<LogicalAggregate>();
  std::map<ColumnId, PlanColumn> distinctOf;
  for (const auto& column : pushdown.outerColumns) {
    PlanColumn copied{renamed.at(column.id), column.type, column.name};
    PlanColumn value{ids_.next(), column.type, column.name};
    distinct->groups.push_back(columnRef(copied));
    distinct->groupIds.push_back(value.id);
    distinct->groupNames.push_back(value.name);
    pushdown.distinctColumns.push_back(value);
    pushdown.distinctIds.insert(value.id);
    distinctOf.emplace(column.id, value);
  }
  distinct->children.push_back(std::move(outerCopy));
  pushdown.distinctOuter = std::move(distinct);

  // The subquery reads D's columns instead of the outer ones, then D is pushed down to where it does.
  rewritePlanExpressions(*join->children[1], [&](const engine::Expression& expression) {
    return remapColumns(expression, [&](ColumnId id) -> ExpressionPtr {
      auto it = distinctOf.find(id);
      return it == distinctOf.end() ? nullptr : columnRef(it->second);
    });
  });
  join->children[1] = pushDown(std::move(join->children[1]), pushdown, true);
  for (size_t i = 0; i < pushdown.outerColumns.size(); ++i) {
    addNotDistinct(pushdown.outerColumns[i], pushdown.distinctColumns[i], join->conditions);
  }
  join->dependent = false;
  if (!pushdown.groupedScalarAggregate) return join;
  // One group per D value, so at most one row per outer row; outer rows whose value found no rows get the
  // aggregate of no rows.
  if (join->type != JoinType::kSingle) {
    unsupported("EXISTS or IN over an aggregate without GROUP BY that reads the outer query");
  }
  join->type = JoinType::kLeft;
  return patchEmptyAggregate(std::move(join));
}

LogicalOperatorPtr Decorrelator::pushDown(LogicalOperatorPtr op, Pushdown& pushdown, bool top) {
  const std::set<ColumnId>& ids = pushdown.distinctIds;
  if (!subtreeReadsAny(*op, ids)) {
    // op reads no outer value: every D row takes all of op's rows.
    auto cross = std::make_unique<LogicalJoin>();
    cross->children.push_back(std::move(pushdown.distinctOuter));
    cross->children.push_back(std::move(op));
    return cross;
  }
  switch (op->kind()) {
    case LogicalOperatorKind::kFilter:
    case LogicalOperatorKind::kProjectSet:
      op->children[0] = pushDown(std::move(op->children[0]), pushdown, false);
      return op;
    case LogicalOperatorKind::kSort:
      // Without a LIMIT (refused below) the order of a subquery's rows does not matter.
      return pushDown(std::move(op->children[0]), pushdown, top);
    case LogicalOperatorKind::kProject: {
      auto& project = static_cast<LogicalProject&>(*op);
      project.children[0] = pushDown(std::move(project.children[0]), pushdown, top);
      for (const auto& column : pushdown.distinctColumns) {
        project.expressions.push_back(columnRef(column));
        project.ids.push_back(column.id);
        project.names.push_back(column.name);
      }
      return op;
    }
    case LogicalOperatorKind::kAggregate: {
      auto& aggregate = static_cast<LogicalAggregate&>(*op);
      if (aggregate.groups.empty()) {
        // Grouped by D, an aggregate without GROUP BY gives no row for a D value without rows, where it gave
        // one: only the dependent join itself can make up for that.
        if (!top) unsupported("an aggregate without GROUP BY inside the subquery that reads the outer query");
        pushdown.groupedScalarAggregate = true;
      }
      aggregate.children[0] = pushDown(std::move(aggregate.children[0]), pushdown, false);
      for (const auto& column : pushdown.distinctColumns) {
        aggregate.groups.push_back(columnRef(column));
        aggregate.groupIds.push_back(column.id);
        aggregate.groupNames.push_back(column.name);
      }
      return op;
    }
    case LogicalOperatorKind::kTableFunction: {
      // A function over outer values runs per D row: a ProjectSet over D.
      auto& table = static_cast<LogicalTableFunction&>(*op);
      auto projectSet = std::make_unique<LogicalProjectSet>();
      std::optional<PlanColumn> ordinality;
      if (table.withOrdinality) ordinality = table.columns[1];
      projectSet->functions.push_back({table.function, std::move(table.arguments), table.columns[0], ordinality});
      projectSet->children.push_back(std::move(pushdown.distinctOuter));
      return projectSet;
    }
    case LogicalOperatorKind::kJoin: {
      auto& join = static_cast<LogicalJoin&>(*op);
      const bool leftReads = subtreeReadsAny(*join.children[0], ids);
      const bool rightReads = subtreeReadsAny(*join.children[1], ids);
      if (join.type == JoinType::kFull) unsupported("a FULL JOIN inside a subquery that reads the outer query");
      if (leftReads && rightReads) {
        // D goes into both inputs, the right one's a copy under fresh ids, and the join matches the two on
        // their D values too: (D ⋈ T1) ⋈ (D' ⋈ T2) on D = D' (a nested subquery reading both levels).
        Pushdown right;
        right.distinctOuter = copyPlan(*pushdown.distinctOuter);
        const std::map<ColumnId, ColumnId> renamed = renumberColumns(*right.distinctOuter, ids_);
        std::map<ColumnId, PlanColumn> copyOf;
        for (const auto& column : pushdown.distinctColumns) {
          PlanColumn copy{renamed.at(column.id), column.type, column.name};
          right.distinctColumns.push_back(copy);
          right.distinctIds.insert(copy.id);
          copyOf.emplace(column.id, copy);
        }
        rewritePlanExpressions(*join.children[1], [&](const engine::Expression& expression) {
          return remapColumns(expression, [&](ColumnId id) -> ExpressionPtr {
            auto it = copyOf.find(id);
            return it == copyOf.end() ? nullptr : columnRef(it->second);
          });
        });
        join.children[0] = pushDown(std::move(join.children[0]), pushdown, false);
        join.children[1] = pushDown(std::move(join.children[1]), right, false);
        for (size_t i = 0; i < right.distinctColumns.size(); ++i) {
          addNotDistinct(pushdown.distinctColumns[i], right.distinctColumns[i], join.conditions);
        }
        return op;
      }
      // D joins one input; each of its rows must stay with that input's rows, so that input is preserved.
      if (rightReads && join.type != JoinType::kInner) {
        unsupported("an outer column on the inner side of an outer, semi or anti join");
      }
      const size_t side = rightReads ? 1 : 0;
      join.children[side] = pushDown(std::move(join.children[side]), pushdown, false);
      return op;
    }
    case LogicalOperatorKind::kLimit: {
      // LIMIT n OFFSET m per outer value: the rows numbered m+1 to m+n in each D value's partition, in the
      // ORDER BY's order (top-N per group, as a LATERAL subquery writes it).
      auto& limit = static_cast<LogicalLimit&>(*op);
      LogicalOperatorPtr input = std::move(limit.children[0]);
      auto window = std::make_unique<LogicalWindow>();
      if (input->kind() == LogicalOperatorKind::kSort) {
        window->orderBy = std::move(static_cast<LogicalSort&>(*input).keys);
        input = std::move(input->children[0]);
      }
      for (const auto& key : window->orderBy) {
        if (key.expression->kind() != engine::ExpressionKind::kColumnRef) {
          unsupported("LIMIT under an ORDER BY of expressions in a subquery that reads the outer query");
        }
      }
      window->children.push_back(pushDown(std::move(input), pushdown, false));
      for (const auto& column : pushdown.distinctColumns) window->partitionBy.push_back(columnRef(column));
      WindowCall rowNumber;
      rowNumber.function = engine::WindowFunction::kRowNumber;
      rowNumber.resultType = LogicalType::bigInt();
      rowNumber.id = ids_.next();
      rowNumber.name = "row_number";
      const PlanColumn number{rowNumber.id, rowNumber.resultType, rowNumber.name};
      window->calls.push_back(std::move(rowNumber));
      auto filter = std::make_unique<LogicalFilter>();
      auto compare = [&](engine::ScalarFunction comparison, int64_t bound) {
        std::vector<ExpressionPtr> arguments;
        arguments.push_back(columnRef(number));
        arguments.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::bigInt(bound)));
        filter->conditions.push_back(
            std::make_unique<engine::FunctionExpression>(comparison, std::move(arguments), LogicalType::boolean()));
      };
      if (limit.offset > 0) compare(engine::ScalarFunction::kGreater, limit.offset);
      if (limit.limit) compare(engine::ScalarFunction::kLessEqual, limit.offset + *limit.limit);
      filter->children.push_back(std::move(window));
      return filter;
    }
    case LogicalOperatorKind::kUnionAll:
      unsupported("UNION in a subquery that reads the outer query");
    case LogicalOperatorKind::kWindow:
      unsupported("a window function in a subquery that reads the outer query");
    default:
      unsupported("an outer column in a table scan");
  }
}

}  // namespace shoal::sql
