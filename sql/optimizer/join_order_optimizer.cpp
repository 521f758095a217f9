#include "sql/optimizer/join_order_optimizer.h"
#include "common/status.h"

#include <bit>
#include <limits>

#include "sql/optimizer/predicate_pushdown.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;

void JoinOrderOptimizer::collectRegion(LogicalOperatorPtr op, std::vector<LogicalOperatorPtr>& relations,
                                       std::vector<ExpressionPtr>& predicates) {
  if (op->kind() == LogicalOperatorKind::kJoin && static_cast<LogicalJoin&>(*op).type == JoinType::kInner) {
    auto& join = static_cast<LogicalJoin&>(*op);
    for (auto& condition : join.conditions) predicates.push_back(std::move(condition));
    collectRegion(std::move(join.children[0]), relations, predicates);
    collectRegion(std::move(join.children[1]), relations, predicates);
    return;
  }
  relations.push_back(run(std::move(op)));
}

LogicalOperatorPtr JoinOrderOptimizer::run(LogicalOperatorPtr root) {
  if (root->kind() == LogicalOperatorKind::kJoin && static_cast<LogicalJoin&>(*root).type == JoinType::kInner) {
    std::vector<LogicalOperatorPtr> plans;
    std::vector<ExpressionPtr> expressions;
    collectRegion(std::move(root), plans, expressions);
    if (plans.size() > kMaxRelations) {
      SHOAL_USER_FAIL(SqlState::kProgramLimitExceeded, "a query may join at most {} tables at once, not {}",
                      kMaxRelations, plans.size());
    }
    std::vector<Relation> relations;
    for (auto& plan : plans) {
      double rows = estimator_.estimate(*plan);
      std::set<ColumnId> columns = outputIds(*plan);
      relations.push_back({std::move(plan), std::move(columns), rows});
    }
    std::vector<Predicate> predicates;
    for (auto& expression : expressions) {
      uint64_t mask = 0;
      for (ColumnId id : columnsOf(*expression)) {
        for (size_t i = 0; i < relations.size(); ++i) {
          if (relations[i].columns.contains(id)) mask |= uint64_t{1} << i;
        }
      }
      predicates.push_back({std::move(expression), mask});
    }
    return orderRegion(std::move(relations), std::move(predicates));
  }
  for (auto& child : root->children) child = run(std::move(child));
  if (root->kind() == LogicalOperatorKind::kJoin) {
    auto& join = static_cast<LogicalJoin&>(*root);
    double left = estimator_.estimate(*join.children[0]);
    double right = estimator_.estimate(*join.children[1]);
    join.buildLeft = left < right;
  }
  return root;
}

LogicalOperatorPtr JoinOrderOptimizer::makeJoin(LogicalOperatorPtr left, LogicalOperatorPtr right, uint64_t leftSet,
                                                uint64_t rightSet, std::vector<Predicate>& predicates, double rows) {
  auto join = std::make_unique<LogicalJoin>();
  uint64_t both = leftSet | rightSet;
  for (auto& predicate : predicates) {
    if (!predicate.expression) continue;
    bool applicable = (predicate.relations & ~both) == 0 && (predicate.relations & leftSet) != 0 &&
                      (predicate.relations & rightSet) != 0;
    if (applicable) join->conditions.push_back(std::move(predicate.expression));
  }
  // The smaller input builds the hash table: it goes right.
  if (left->estimatedRows < right->estimatedRows) std::swap(left, right);
  join->children.push_back(std::move(left));
  join->children.push_back(std::move(right));
  join->estimatedRows = rows;
  return join;
}

LogicalOperatorPtr JoinOrderOptimizer::orderRegion(std::vector<Relation> relations, std::vector<Predicate> predicates) {
  size_t n = relations.size();
  // Predicates on one relation (or none) filter it before joining.
  std::vector<ExpressionPtr> constant;
  for (auto& predicate : predicates) {
    if (predicate.relations == 0) {
      constant.push_back(std::move(predicate.expression));
    } else if (std::popcount(predicate.relations) == 1) {
      auto& relation = relations[std::countr_zero(predicate.relations)];
      std::vector<ExpressionPtr> single;
      single.push_back(std::move(predicate.expression));
      relation.plan = addFilter(std::move(relation.plan), std::move(single));
      relation.rows = estimator_.estimate(*relation.plan);
    }
  }
  std::erase_if(predicates, [](const Predicate& p) { return !p.expression; });

  auto conditionsBetween = [&](uint64_t a, uint64_t b) {
    std::vector<const engine::Expression*> conditions;
    for (const auto& predicate : predicates) {
      uint64_t both = a | b;
      if ((predicate.relations & ~both) == 0 && (predicate.relations & a) && (predicate.relations & b)) {
        conditions.push_back(predicate.expression.get());
      }
    }
    return conditions;
  };

  // Whether a column belongs to one of the relations in `set`.
  auto inSet = [&](uint64_t set) {
    return [&relations, set](ColumnId id) {
      for (size_t i = 0; i < relations.size(); ++i) {
        if ((set >> i & 1) && relations[i].columns.contains(id)) return true;
      }
      return false;
    };
  };
  struct Entry {
    double cost = std::numeric_limits<double>::infinity();
    double rows = 0;
    uint64_t left = 0;  // 0: a single relation
  };
  std::vector<LogicalOperatorPtr> planned;
  if (n <= kMaxDynamicProgrammingRelations) {
    std::vector<Entry> best(size_t{1} << n);
    for (size_t i = 0; i < n; ++i) best[size_t{1} << i] = {0, relations[i].rows, 0};
    for (uint64_t set = 1; set < best.size(); ++set) {
      if (std::popcount(set) < 2) continue;
      for (uint64_t left = (set - 1) & set; left != 0; left = (left - 1) & set) {
        uint64_t right = set ^ left;
        if (left < right) continue;  // each split once
        if (!std::isfinite(best[left].cost) || !std::isfinite(best[right].cost)) continue;
        auto conditions = conditionsBetween(left, right);
        if (conditions.empty()) continue;  // no cross products
        double rows = estimator_.joinRows(best[left].rows, best[right].rows, conditions, inSet(left));
        double cost = best[left].cost + best[right].cost + rows;
        if (cost < best[set].cost) best[set] = {cost, rows, left};
      }
    }
    // Build the best plan of each maximal connected part; unconnected parts are crossed below.
    std::function<LogicalOperatorPtr(uint64_t)> build = [&](uint64_t set) -> LogicalOperatorPtr {
      if (std::popcount(set) == 1) return std::move(relations[std::countr_zero(set)].plan);
      uint64_t left = best[set].left;
      LogicalOperatorPtr leftPlan = build(left);
      LogicalOperatorPtr rightPlan = build(set ^ left);
      return makeJoin(std::move(leftPlan), std::move(rightPlan), left, set ^ left, predicates, best[set].rows);
    };
    uint64_t remaining = (uint64_t{1} << n) - 1;
    while (remaining != 0) {
      // The largest planned subset of what remains, preferring the cheapest.
      uint64_t chosen = 0;
      for (uint64_t set = remaining; set != 0; set = (set - 1) & remaining) {
        if (!std::isfinite(best[set].cost)) continue;
        if (chosen == 0 || std::popcount(set) > std::popcount(chosen) ||
            (std::popcount(set) == std::popcount(chosen) && best[set].cost < best[chosen].cost)) {
          chosen = set;
        }
      }
      LogicalOperatorPtr part = build(chosen);
      part->estimatedRows = best[chosen].rows;
      planned.push_back(std::move(part));
      remaining &= ~chosen;
    }
  } else {
    // Greedy: repeatedly join the connected pair with the smallest result.
    struct Part {
      LogicalOperatorPtr plan;
      uint64_t set;
      double rows;
    };
    std::vector<Part> parts;
    for (size_t i = 0; i < n; ++i) {
      relations[i].plan->estimatedRows = relations[i].rows;
      parts.push_back({std::move(relations[i].plan), uint64_t{1} << i, relations[i].rows});
    }
    while (parts.size() > 1) {
      double bestRows = std::numeric_limits<double>::infinity();
      size_t bestI = 0;
      size_t bestJ = 0;
      for (size_t i = 0; i < parts.size(); ++i) {
        for (size_t j = i + 1; j < parts.size(); ++j) {
          auto conditions = conditionsBetween(parts[i].set, parts[j].set);
          if (conditions.empty()) continue;
          double rows = estimator_.joinRows(parts[i].rows, parts[j].rows, conditions, inSet(parts[i].set));
          if (rows < bestRows) {
            bestRows = rows;
            bestI = i;
            bestJ = j;
          }
        }
      }
      if (!std::isfinite(bestRows)) break;  // the rest is unconnected
      Part merged{makeJoin(std::move(parts[bestI].plan), std::move(parts[bestJ].plan), parts[bestI].set,
                           parts[bestJ].set, predicates, bestRows),
                  parts[bestI].set | parts[bestJ].set, bestRows};
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(bestJ));
      parts[bestI] = std::move(merged);
    }
    for (auto& part : parts) planned.push_back(std::move(part.plan));
  }
  // Unconnected parts (a real cross product in the query): smallest last, so it builds.
  std::sort(planned.begin(), planned.end(), [](const LogicalOperatorPtr& a, const LogicalOperatorPtr& b) {
    return a->estimatedRows > b->estimatedRows;
  });
  LogicalOperatorPtr result = std::move(planned[0]);
  for (size_t i = 1; i < planned.size(); ++i) {
    auto cross = std::make_unique<LogicalJoin>();
    double rows = result->estimatedRows * planned[i]->estimatedRows;
    cross->children.push_back(std::move(result));
    cross->children.push_back(std::move(planned[i]));
    cross->estimatedRows = rows;
    result = std::move(cross);
  }
  // Whatever predicate is left (it spans unconnected parts) filters the result.
  std::vector<ExpressionPtr> leftover = std::move(constant);
  for (auto& predicate : predicates) {
    if (predicate.expression) leftover.push_back(std::move(predicate.expression));
  }
  return addFilter(std::move(result), std::move(leftover));
}

}  // namespace shoal::sql
