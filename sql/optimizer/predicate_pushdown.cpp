#include "sql/optimizer/predicate_pushdown.h"
#include "common/status.h"

#include <algorithm>

#include "sql/plan/expression_rewriting.h"
#include "sql/plan/volatile_calls.h"

namespace shoal::sql {

using engine::Expression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::ScalarFunction;

namespace {

bool isSubset(const std::set<ColumnId>& columns, const std::set<ColumnId>& available) {
  for (ColumnId id : columns) {
    if (!available.contains(id)) return false;
  }
  return true;
}

/// The mark id a conjunct tests (`mark` or `NOT mark`), if it is one.
std::optional<std::pair<ColumnId, bool>> markTest(const Expression& conjunct) {
  if (conjunct.kind() == ExpressionKind::kColumnRef) {
    return std::pair{static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(conjunct).columnIndex()),
                     false};
  }
  if (conjunct.kind() == ExpressionKind::kFunction) {
    const auto& function = static_cast<const FunctionExpression&>(conjunct);
    if (function.function() == ScalarFunction::kNot && function.arguments()[0]->kind() == ExpressionKind::kColumnRef) {
      const auto& ref = static_cast<const engine::ColumnRefExpression&>(*function.arguments()[0]);
      return std::pair{static_cast<ColumnId>(ref.columnIndex()), true};
    }
  }
  return std::nullopt;
}

/// The mark join producing `markId` along the left spine of joins under `op`.
LogicalJoin* findMarkJoin(LogicalOperator& op, ColumnId markId) {
  LogicalOperator* current = &op;
  while (current->kind() == LogicalOperatorKind::kJoin) {
    auto& join = static_cast<LogicalJoin&>(*current);
    if (join.type == JoinType::kMark && join.markId == markId) return &join;
    current = join.children[0].get();
  }
  return nullptr;
}

void splitDisjunction(const Expression& expression, std::vector<const Expression*>& disjuncts) {
  if (expression.kind() == ExpressionKind::kFunction &&
      static_cast<const FunctionExpression&>(expression).function() == ScalarFunction::kOr) {
    for (const auto& argument : static_cast<const FunctionExpression&>(expression).arguments()) {
      splitDisjunction(*argument, disjuncts);
    }
    return;
  }
  disjuncts.push_back(&expression);
}

ExpressionPtr makeDisjunction(std::vector<ExpressionPtr> disjuncts) {
  ExpressionPtr result = std::move(disjuncts[0]);
  for (size_t i = 1; i < disjuncts.size(); ++i) {
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(std::move(result));
    arguments.push_back(std::move(disjuncts[i]));
    result =
        std::make_unique<FunctionExpression>(ScalarFunction::kOr, std::move(arguments), engine::LogicalType::boolean());
  }
  return result;
}

/// (a AND b) OR (a AND c) is a AND (b OR c): the common conjuncts of every
/// disjunct come out, so that a join key hidden in an OR (TPC-H Q19) is found.
void factorDisjunction(ExpressionPtr predicate, std::vector<ExpressionPtr>& out) {
  std::vector<const Expression*> disjuncts;
  splitDisjunction(*predicate, disjuncts);
  if (disjuncts.size() < 2) {
    out.push_back(std::move(predicate));
    return;
  }
  std::vector<std::vector<ExpressionPtr>> conjuncts(disjuncts.size());
  for (size_t i = 0; i < disjuncts.size(); ++i) splitConjunction(copyExpression(*disjuncts[i]), conjuncts[i]);
  std::vector<ExpressionPtr> common;
  for (auto& candidate : conjuncts[0]) {
    bool everywhere = true;
    for (size_t i = 1; i < conjuncts.size() && everywhere; ++i) {
      everywhere = std::any_of(conjuncts[i].begin(), conjuncts[i].end(),
                               [&](const ExpressionPtr& other) { return sameExpression(*other, *candidate); });
    }
    if (everywhere) common.push_back(copyExpression(*candidate));
  }
  if (common.empty()) {
    out.push_back(std::move(predicate));
    return;
  }
  std::vector<ExpressionPtr> rest;
  bool alwaysTrue = false;
  for (auto& list : conjuncts) {
    std::erase_if(list, [&](const ExpressionPtr& conjunct) {
      return std::any_of(common.begin(), common.end(),
                         [&](const ExpressionPtr& factor) { return sameExpression(*factor, *conjunct); });
    });
    // A disjunct that was only common factors makes the remaining OR always true.
    if (list.empty()) alwaysTrue = true;
    if (!list.empty()) rest.push_back(makeConjunction(std::move(list)));
  }
  for (auto& factor : common) out.push_back(std::move(factor));
  if (!alwaysTrue) out.push_back(makeDisjunction(std::move(rest)));
}

/// For an OR over both inputs whose every disjunct restricts `side` on its own,
/// the OR of those restrictions: a filter implied for that side alone.
ExpressionPtr impliedRestriction(const Expression& predicate, const std::set<ColumnId>& side) {
  std::vector<const Expression*> disjuncts;
  splitDisjunction(predicate, disjuncts);
  if (disjuncts.size() < 2) return nullptr;
  std::vector<ExpressionPtr> restrictions;
  for (const Expression* disjunct : disjuncts) {
    std::vector<ExpressionPtr> conjuncts;
    splitConjunction(copyExpression(*disjunct), conjuncts);
    std::vector<ExpressionPtr> own;
    for (auto& conjunct : conjuncts) {
      std::set<ColumnId> columns = columnsOf(*conjunct);
      if (!columns.empty() && isSubset(columns, side)) own.push_back(std::move(conjunct));
    }
    if (own.empty()) return nullptr;
    restrictions.push_back(makeConjunction(std::move(own)));
  }
  return makeDisjunction(std::move(restrictions));
}

}  // namespace

LogicalOperatorPtr addFilter(LogicalOperatorPtr op, std::vector<ExpressionPtr> predicates) {
  if (predicates.empty()) return op;
  auto filter = std::make_unique<LogicalFilter>();
  filter->conditions = std::move(predicates);
  filter->children.push_back(std::move(op));
  return filter;
}

LogicalOperatorPtr PredicatePushdown::run(LogicalOperatorPtr root) {
  root = convertMarkJoins(std::move(root));
  return push(std::move(root), {});
}

LogicalOperatorPtr PredicatePushdown::convertMarkJoins(LogicalOperatorPtr op) {
  for (auto& child : op->children) child = convertMarkJoins(std::move(child));
  if (op->kind() != LogicalOperatorKind::kFilter) return op;
  auto& filter = static_cast<LogicalFilter&>(*op);
  std::vector<ExpressionPtr> kept;
  for (auto& condition : filter.conditions) {
    auto test = markTest(*condition);
    LogicalJoin* join = test ? findMarkJoin(*filter.children[0], test->first) : nullptr;
    if (join == nullptr) {
      kept.push_back(std::move(condition));
      continue;
    }
    // WHERE x IN (...) keeps matched rows; WHERE NOT (x IN (...)) the rest, NULL-aware for NOT IN.
    join->type = test->second ? JoinType::kAnti : JoinType::kSemi;
    if (join->type == JoinType::kSemi && join->nullAwareCondition) {
      // Only TRUE matches count for a semi join: NULL and FALSE alike keep nothing.
      join->conditions.push_back(std::move(join->nullAwareCondition));
    }
  }
  filter.conditions = std::move(kept);
  if (filter.conditions.empty()) return std::move(filter.children[0]);
  return op;
}

LogicalOperatorPtr PredicatePushdown::push(LogicalOperatorPtr op, std::vector<ExpressionPtr> predicates) {
  switch (op->kind()) {
    case LogicalOperatorKind::kFilter: {
      auto& filter = static_cast<LogicalFilter&>(*op);
      for (auto& condition : filter.conditions) predicates.push_back(std::move(condition));
      return push(std::move(filter.children[0]), std::move(predicates));
    }
    case LogicalOperatorKind::kProject: {
      auto& project = static_cast<LogicalProject&>(*op);
      // A predicate over a volatile column stays above: below, it would draw the value again.
      std::set<ColumnId> volatileIds;
      for (size_t i = 0; i < project.ids.size(); ++i) {
        if (callsVolatile(*project.expressions[i])) volatileIds.insert(project.ids[i]);
      }
      std::vector<ExpressionPtr> below;
      std::vector<ExpressionPtr> above;
      for (auto& predicate : predicates) {
        if (!volatileIds.empty() && readsAnyOf(*predicate, volatileIds)) {
          above.push_back(std::move(predicate));
          continue;
        }
        below.push_back(remapColumns(*predicate, [&](ColumnId id) -> ExpressionPtr {
          for (size_t i = 0; i < project.ids.size(); ++i) {
            if (project.ids[i] == id) return copyExpression(*project.expressions[i]);
          }
          return nullptr;
        }));
      }
      project.children[0] = push(std::move(project.children[0]), std::move(below));
      return addFilter(std::move(op), std::move(above));
    }
    case LogicalOperatorKind::kJoin:
      return pushIntoJoin(std::move(op), std::move(predicates));
    case LogicalOperatorKind::kAggregate: {
      auto& aggregate = static_cast<LogicalAggregate&>(*op);
      std::set<ColumnId> groupIds(aggregate.groupIds.begin(), aggregate.groupIds.end());
      std::vector<ExpressionPtr> below;
      std::vector<ExpressionPtr> above;
      for (auto& predicate : predicates) {
        if (!isSubset(columnsOf(*predicate), groupIds) || aggregate.groups.empty()) {
          above.push_back(std::move(predicate));
          continue;
        }
        below.push_back(remapColumns(*predicate, [&](ColumnId id) -> ExpressionPtr {
          for (size_t i = 0; i < aggregate.groupIds.size(); ++i) {
            if (aggregate.groupIds[i] == id) return copyExpression(*aggregate.groups[i]);
          }
          return nullptr;
        }));
      }
      aggregate.children[0] = push(std::move(aggregate.children[0]), std::move(below));
      return addFilter(std::move(op), std::move(above));
    }
    case LogicalOperatorKind::kSort:
      op->children[0] = push(std::move(op->children[0]), std::move(predicates));
      return op;
    case LogicalOperatorKind::kUnionAll: {
      auto& unionAll = static_cast<LogicalUnionAll&>(*op);
      for (auto& child : unionAll.children) {
        std::vector<PlanColumn> childColumns = child->outputColumns();
        std::vector<ExpressionPtr> below;
        for (const auto& predicate : predicates) {
          below.push_back(remapColumns(*predicate, [&](ColumnId id) -> ExpressionPtr {
            for (size_t i = 0; i < unionAll.columns.size(); ++i) {
              if (unionAll.columns[i].id == id) return columnRef(childColumns[i]);
            }
            return nullptr;
          }));
        }
        child = push(std::move(child), std::move(below));
      }
      return op;
    }
    case LogicalOperatorKind::kScan: {
      auto& scan = static_cast<LogicalScan&>(*op);
      for (auto& predicate : predicates) scan.filters.push_back(std::move(predicate));
      return op;
    }
    default:
      for (auto& child : op->children) child = push(std::move(child), {});
      return addFilter(std::move(op), std::move(predicates));
  }
}

LogicalOperatorPtr PredicatePushdown::pushIntoJoin(LogicalOperatorPtr op, std::vector<ExpressionPtr> predicates) {
  auto& join = static_cast<LogicalJoin&>(*op);
  std::set<ColumnId> leftIds = outputIds(*join.children[0]);
  std::set<ColumnId> rightIds = outputIds(*join.children[1]);
  // A conjunct above a left join that NULL-extended rows cannot pass makes it an inner join.
  if (join.type == JoinType::kLeft) {
    for (const auto& predicate : predicates) {
      if (!isSubset(columnsOf(*predicate), leftIds) && rejectsNulls(*predicate, rightIds)) {
        join.type = JoinType::kInner;
        break;
      }
    }
  }
  std::vector<ExpressionPtr> left;
  std::vector<ExpressionPtr> right;
  std::vector<ExpressionPtr> above;
  std::vector<ExpressionPtr> conditions;
  if (join.type == JoinType::kInner) {
    for (auto& condition : join.conditions) predicates.push_back(std::move(condition));
    std::vector<ExpressionPtr> factored;
    for (auto& predicate : predicates) factorDisjunction(std::move(predicate), factored);
    predicates = std::move(factored);
    // An OR across both inputs still lets each input drop the rows no disjunct can use.
    size_t original = predicates.size();
    for (size_t i = 0; i < original; ++i) {
      std::set<ColumnId> columns = columnsOf(*predicates[i]);
      if (isSubset(columns, leftIds) || isSubset(columns, rightIds)) continue;
      for (const auto* side : {&leftIds, &rightIds}) {
        if (ExpressionPtr implied = impliedRestriction(*predicates[i], *side)) {
          (side == &leftIds ? left : right).push_back(std::move(implied));
        }
      }
    }
    for (auto& predicate : predicates) {
      std::set<ColumnId> columns = columnsOf(*predicate);
      if (isSubset(columns, leftIds)) {
        left.push_back(std::move(predicate));
      } else if (isSubset(columns, rightIds)) {
        right.push_back(std::move(predicate));
      } else {
        conditions.push_back(std::move(predicate));
      }
    }
  } else {
    bool preservesLeftRows = join.type != JoinType::kFull;
    for (auto& predicate : predicates) {
      bool leftOnly = isSubset(columnsOf(*predicate), leftIds);
      (leftOnly && preservesLeftRows ? left : above).push_back(std::move(predicate));
    }
    // A condition on the inner side alone filters that side before the join.
    bool innerSideFilterable = join.type != JoinType::kFull;
    for (auto& condition : join.conditions) {
      bool rightOnly = isSubset(columnsOf(*condition), rightIds) && !columnsOf(*condition).empty();
      (rightOnly && innerSideFilterable ? right : conditions).push_back(std::move(condition));
    }
  }
  join.conditions = std::move(conditions);
  join.children[0] = push(std::move(join.children[0]), std::move(left));
  join.children[1] = push(std::move(join.children[1]), std::move(right));
  return addFilter(std::move(op), std::move(above));
}

}  // namespace shoal::sql
