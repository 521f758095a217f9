#include "sql/optimizer/decorrelator.h"
#include "common/status.h"

#include "engine/expression/expression_evaluator.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"
#include "sql/plan/plan_walker.h"

namespace shoal::sql {

using engine::Expression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::LogicalType;
using engine::ScalarFunction;

namespace decorrelation {

void unsupported(std::string_view what) {
  SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "correlated subquery not supported: {}", what);
}

bool subtreeReadsAny(const LogicalOperator& op, const std::set<ColumnId>& ids) {
  for (ColumnId id : freeColumns(op)) {
    if (ids.contains(id)) return true;
  }
  return false;
}

}  // namespace decorrelation

using decorrelation::subtreeReadsAny;
using decorrelation::unsupported;

namespace {

bool readsAny(const Expression& expression, const std::set<ColumnId>& ids) {
  return readsAnyOf(expression, ids);
}

bool readsAny(const LogicalOperator& op, const std::set<ColumnId>& ids) {
  bool found = false;
  forEachExpression(op, [&](const Expression& expression) { found = found || readsAnyOf(expression, ids); });
  return found;
}

/// The operator under any projections and filters.
const LogicalOperator& skipProjectionsAndFilters(const LogicalOperator& op) {
  const LogicalOperator* current = &op;
  while (current->kind() == LogicalOperatorKind::kProject || current->kind() == LogicalOperatorKind::kFilter) {
    current = current->children[0].get();
  }
  return *current;
}

}  // namespace

ColumnId nextFreeColumnId(const LogicalOperator& root) {
  std::set<ColumnId> ids;
  collectProducedColumns(root, ids);
  for (ColumnId id : freeColumns(root)) ids.insert(id);
  return ids.empty() ? 0 : *ids.rbegin() + 1;
}

namespace {

/// Folds projections stacked on `op` (a LATERAL subquery's select list under its renaming) into one.
void foldProjections(LogicalOperatorPtr& op) {
  while (op->kind() == LogicalOperatorKind::kProject && op->children[0]->kind() == LogicalOperatorKind::kProject) {
    auto& top = static_cast<LogicalProject&>(*op);
    auto& below = static_cast<LogicalProject&>(*top.children[0]);
    std::map<ColumnId, const Expression*> definitions;
    for (size_t i = 0; i < below.ids.size(); ++i) definitions[below.ids[i]] = below.expressions[i].get();
    for (auto& expression : top.expressions) {
      expression = rewriteExpression(*expression, [&](const Expression& node) -> ExpressionPtr {
        if (node.kind() != ExpressionKind::kColumnRef) return nullptr;
        auto found = definitions.find(
            static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(node).columnIndex()));
        return found == definitions.end() ? nullptr : copyExpression(*found->second);
      });
    }
    LogicalOperatorPtr input = std::move(below.children[0]);
    top.children[0] = std::move(input);
  }
}

/// Whether `condition` is the constant TRUE (LEFT JOIN LATERAL ... ON true).
bool isConstantTrue(const Expression& condition) {
  if (condition.kind() != ExpressionKind::kConstant) return false;
  const engine::Value& value = static_cast<const engine::ConstantExpression&>(condition).value();
  return !value.isNull() && value.type().id() == engine::TypeId::kBoolean && value.asBool();
}

}  // namespace

LogicalOperatorPtr Decorrelator::run(LogicalOperatorPtr root) {
  for (auto& child : root->children) child = run(std::move(child));
  if (root->kind() != LogicalOperatorKind::kJoin) return root;
  std::unique_ptr<LogicalJoin> join(static_cast<LogicalJoin*>(root.release()));
  if (join->dependent) return decorrelateJoin(std::move(join));
  // An uncorrelated scalar subquery over an aggregation without GROUP BY yields exactly one row.
  if (join->type == JoinType::kSingle) {
    const LogicalOperator& inner = skipProjectionsAndFilters(*join->children[1]);
    if (inner.kind() == LogicalOperatorKind::kAggregate && static_cast<const LogicalAggregate&>(inner).groups.empty() &&
        join->children[1]->kind() == LogicalOperatorKind::kProject) {
      join->type = JoinType::kLeft;
    }
  }
  return join;
}

LogicalOperatorPtr Decorrelator::decorrelateJoin(std::unique_ptr<LogicalJoin> join) {
  std::set<ColumnId> outer = outputIds(*join->children[0]);
  // Pulling the correlated predicates up gives the simplest plan; it is tried on a copy, as it may fail midway.
  LogicalOperatorPtr subquery = copyPlan(*join->children[1]);
  Pulled pulled;
  try {
    pulled = pullUp(subquery, outer);
    if (subtreeReadsAny(*subquery, outer)) {
      unsupported("an outer column is read where its predicate cannot be pulled out of the subquery");
    }
  } catch (const ShoalError& error) {
    if (error.status().sqlState() != SqlState::kFeatureNotSupported) throw;
    return unnestGenerally(std::move(join));
  }
  join->children[1] = std::move(subquery);
  for (auto& predicate : pulled.predicates) join->conditions.push_back(std::move(predicate));
  join->dependent = false;
  if (!pulled.groupedScalarAggregate) return join;
  if (join->type == JoinType::kSingle) {
    if (!pulled.uniquePerOuterRow) unsupported("a scalar subquery that may return several rows per outer row");
    join->type = JoinType::kLeft;
    return patchEmptyAggregate(std::move(join));
  }
  if (join->type == JoinType::kInner || join->type == JoinType::kLeft) {
    // LATERAL (SELECT count(*) ... WHERE x = outer.x): one row per outer row, the aggregates' empty values
    // where no row matched; so a LEFT join, patched. ON conditions of an inner join then filter its rows.
    if (!pulled.uniquePerOuterRow) unsupported("a LATERAL subquery over an aggregate that may give several rows");
    std::vector<ExpressionPtr> onConditions;
    if (join->type == JoinType::kInner) {
      const size_t own = join->conditions.size() - pulled.predicates.size();
      for (size_t i = 0; i < own; ++i) onConditions.push_back(std::move(join->conditions[i]));
      join->conditions.erase(join->conditions.begin(), join->conditions.begin() + static_cast<std::ptrdiff_t>(own));
    } else {
      const size_t own = join->conditions.size() - pulled.predicates.size();
      for (size_t i = 0; i < own; ++i) {
        if (!isConstantTrue(*join->conditions[i])) {
          unsupported("LEFT JOIN LATERAL over an aggregate without GROUP BY with an ON condition");
        }
      }
    }
    join->type = JoinType::kLeft;
    LogicalOperatorPtr patched = patchEmptyAggregate(std::move(join));
    if (onConditions.empty()) return patched;
    auto filter = std::make_unique<LogicalFilter>();
    filter->conditions = std::move(onConditions);
    filter->children.push_back(std::move(patched));
    return filter;
  }
  unsupported("EXISTS or IN over an aggregate without GROUP BY that reads the outer query");
}

Decorrelator::Pulled Decorrelator::pullUp(LogicalOperatorPtr& op, const std::set<ColumnId>& outer) {
  if (!subtreeReadsAny(*op, outer)) return {};
  switch (op->kind()) {
    case LogicalOperatorKind::kFilter: {
      auto& filter = static_cast<LogicalFilter&>(*op);
      Pulled pulled = pullUp(filter.children[0], outer);
      if (pulled.groupedScalarAggregate && readsAny(filter, outer)) {
        // A failing HAVING makes the scalar subquery empty (NULL), which the COUNT patch would turn into 0.
        unsupported("a HAVING that reads the outer query over an aggregate without GROUP BY");
      }
      std::vector<ExpressionPtr> kept;
      for (auto& condition : filter.conditions) {
        (readsAny(*condition, outer) ? pulled.predicates : kept).push_back(std::move(condition));
      }
      if (kept.empty()) {
        op = std::move(filter.children[0]);
      } else {
        filter.conditions = std::move(kept);
      }
      return pulled;
    }
    case LogicalOperatorKind::kProject: {
      auto& project = static_cast<LogicalProject&>(*op);
      if (readsAny(project, outer)) unsupported("an outer column in the subquery's select list");
      Pulled pulled = pullUp(project.children[0], outer);
      // Pass through what the pulled predicates read, under the same ids.
      std::set<ColumnId> produced = outputIds(project);
      std::vector<PlanColumn> inputs = project.children[0]->outputColumns();
      for (const auto& predicate : pulled.predicates) {
        for (ColumnId id : columnsOf(*predicate)) {
          if (outer.contains(id) || produced.contains(id)) continue;
          for (const auto& input : inputs) {
            if (input.id != id) continue;
            project.expressions.push_back(columnRef(input));
            project.ids.push_back(id);
            project.names.push_back(input.name);
            produced.insert(id);
          }
        }
      }
      return pulled;
    }
    case LogicalOperatorKind::kAggregate: {
      auto& aggregate = static_cast<LogicalAggregate&>(*op);
      if (readsAny(aggregate, outer)) unsupported("an outer column inside an aggregate or GROUP BY");
      bool hadGroups = !aggregate.groups.empty();
      Pulled pulled = pullUp(aggregate.children[0], outer);
      if (pulled.groupedScalarAggregate) {
        unsupported("an aggregate over an aggregate without GROUP BY that reads the outer query");
      }
      for (auto& predicate : pulled.predicates) {
        // Only inner = outer can become a grouping key.
        const auto* function = predicate->kind() == ExpressionKind::kFunction
                                   ? static_cast<const FunctionExpression*>(predicate.get())
                                   : nullptr;
        if (function == nullptr || function->function() != ScalarFunction::kEqual) {
          unsupported("a correlated predicate other than an equality below an aggregate");
        }
        const Expression* inner = function->arguments()[0].get();
        const Expression* outerSide = function->arguments()[1].get();
        if (readsAny(*inner, outer)) std::swap(inner, outerSide);
        if (readsAny(*inner, outer) || !readsOnly(*outerSide, outer)) {
          unsupported("a correlated equality that mixes inner and outer columns on one side");
        }
        std::optional<PlanColumn> key;
        for (size_t i = 0; i < aggregate.groups.size(); ++i) {
          if (sameExpression(*aggregate.groups[i], *inner)) {
            key = PlanColumn{aggregate.groupIds[i], inner->type(), aggregate.groupNames[i]};
          }
        }
        if (!key) {
          key = PlanColumn{ids_.next(), inner->type(), inner->toString()};
          aggregate.groups.push_back(copyExpression(*inner));
          aggregate.groupIds.push_back(key->id);
          aggregate.groupNames.push_back(key->name);
        }
        std::vector<ExpressionPtr> arguments;
        arguments.push_back(columnRef(*key));
        arguments.push_back(copyExpression(*outerSide));
        predicate =
            std::make_unique<FunctionExpression>(ScalarFunction::kEqual, std::move(arguments), LogicalType::boolean());
      }
      pulled.groupedScalarAggregate = !hadGroups;
      pulled.uniquePerOuterRow = !hadGroups;
      return pulled;
    }
    case LogicalOperatorKind::kJoin: {
      auto& join = static_cast<LogicalJoin&>(*op);
      if (join.type == JoinType::kFull) unsupported("a FULL JOIN inside a subquery that reads the outer query");
      Pulled pulled = pullUp(join.children[0], outer);
      if (join.type == JoinType::kInner) {
        Pulled right = pullUp(join.children[1], outer);
        if (pulled.groupedScalarAggregate || right.groupedScalarAggregate) {
          unsupported("a join with an aggregate without GROUP BY that reads the outer query");
        }
        for (auto& predicate : right.predicates) pulled.predicates.push_back(std::move(predicate));
        std::vector<ExpressionPtr> kept;
        for (auto& condition : join.conditions) {
          (readsAny(*condition, outer) ? pulled.predicates : kept).push_back(std::move(condition));
        }
        join.conditions = std::move(kept);
      } else if (subtreeReadsAny(*join.children[1], outer) || readsAny(join, outer) || pulled.groupedScalarAggregate) {
        unsupported("an outer column on the inner side of an outer, semi or anti join");
      }
      pulled.groupedScalarAggregate = false;
      pulled.uniquePerOuterRow = false;
      return pulled;
    }
    case LogicalOperatorKind::kSort: {
      if (readsAny(*op, outer)) unsupported("an outer column in ORDER BY");
      // Without a LIMIT the order of a subquery's rows does not matter.
      LogicalOperatorPtr child = std::move(op->children[0]);
      op = std::move(child);
      return pullUp(op, outer);
    }
    case LogicalOperatorKind::kLimit:
      unsupported("LIMIT or OFFSET in a subquery that reads the outer query");
    case LogicalOperatorKind::kUnionAll:
      unsupported("UNION in a subquery that reads the outer query");
    case LogicalOperatorKind::kProjectSet:
      unsupported("a set-returning function over the outer query's columns (LATERAL)");
    case LogicalOperatorKind::kWindow:
      unsupported("a window function in a subquery that reads the outer query");
    default:
      unsupported("an outer column in a table scan");
  }
}

LogicalOperatorPtr Decorrelator::patchEmptyAggregate(std::unique_ptr<LogicalJoin> join) {
  foldProjections(join->children[1]);
  if (join->children[1]->kind() != LogicalOperatorKind::kProject ||
      join->children[1]->children[0]->kind() != LogicalOperatorKind::kAggregate) {
    unsupported("a scalar subquery with HAVING over an aggregate without GROUP BY");
  }
  auto& project = static_cast<LogicalProject&>(*join->children[1]);
  const auto& aggregate = static_cast<const LogicalAggregate&>(*project.children[0]);
  // Each of the subquery's values over no rows: COUNT (and approx_count_distinct) is 0, every other aggregate
  // NULL, and an expression over them what it makes of those.
  auto emptyValueOf = [&](const Expression& expression) {
    ExpressionPtr empty = rewriteExpression(expression, [&](const Expression& node) -> ExpressionPtr {
      if (node.kind() != ExpressionKind::kColumnRef) return nullptr;
      auto id = static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(node).columnIndex());
      for (const auto& call : aggregate.aggregates) {
        if (call.id != id) continue;
        bool count = call.function == engine::AggregateFunction::kCount ||
                     call.function == engine::AggregateFunction::kCountStar ||
                     call.function == engine::AggregateFunction::kApproxCountDistinct;
        return std::make_unique<engine::ConstantExpression>(count ? engine::Value::bigInt(0)
                                                                  : engine::Value::null(call.resultType));
      }
      return std::make_unique<engine::ConstantExpression>(engine::Value::null(node.type()));
    });
    engine::ExpressionEvaluator evaluator;
    return evaluator.evaluate(*empty, engine::Chunk(1)).getValue(0);
  };
  // The subquery's columns whose empty value is not NULL, by their id above the join, with that value.
  std::map<ColumnId, engine::Value> patched;
  std::map<ColumnId, ColumnId> renamed;  // their new id below the patch
  for (size_t i = 0; i < project.expressions.size(); ++i) {
    engine::Value empty = emptyValueOf(*project.expressions[i]);
    if (empty.isNull()) continue;
    const ColumnId original = project.ids[i];
    patched.emplace(original, std::move(empty));
    renamed[original] = ids_.next();
    project.ids[i] = renamed[original];
  }
  if (patched.empty()) return join;

  // Add a TRUE marker that is NULL for outer rows without a group, and put the empty values there above the join.
  PlanColumn marker{ids_.next(), LogicalType::boolean(), "matched"};
  project.expressions.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::boolean(true)));
  project.ids.push_back(marker.id);
  project.names.push_back(marker.name);

  std::map<ColumnId, ColumnId> originalOf;
  for (const auto& [original, renamedId] : renamed) originalOf[renamedId] = original;
  auto patch = std::make_unique<LogicalProject>();
  for (const auto& column : join->outputColumns()) {
    if (column.id == marker.id) continue;
    auto original = originalOf.find(column.id);
    if (original == originalOf.end()) {
      patch->expressions.push_back(columnRef(column));
      patch->ids.push_back(column.id);
      patch->names.push_back(column.name);
      continue;
    }
    std::vector<ExpressionPtr> arguments;
    std::vector<ExpressionPtr> isNull;
    isNull.push_back(columnRef(marker));
    arguments.push_back(
        std::make_unique<FunctionExpression>(ScalarFunction::kIsNull, std::move(isNull), LogicalType::boolean()));
    arguments.push_back(std::make_unique<engine::ConstantExpression>(patched.at(original->second)));
    arguments.push_back(columnRef(column));
    patch->expressions.push_back(
        std::make_unique<FunctionExpression>(ScalarFunction::kCase, std::move(arguments), column.type));
    patch->ids.push_back(original->second);
    patch->names.push_back(column.name);
  }
  patch->children.push_back(std::move(join));
  return patch;
}

}  // namespace shoal::sql
