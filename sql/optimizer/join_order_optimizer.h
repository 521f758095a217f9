#pragma once

#include <set>

#include "sql/optimizer/cardinality_estimator.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Orders each region of inner joins by cost: dynamic programming over the
/// connected subsets of its relations (no cross products unless the query
/// has unconnected relations), minimizing the sum of intermediate result
/// sizes (C_out), with a greedy fallback above kMaxDynamicProgrammingRelations.
/// Each join then builds its hash table from its smaller estimated input: for
/// inner joins the smaller input becomes the right (build) child; other joins,
/// whose sides are not interchangeable, record the choice in buildLeft.
class JoinOrderOptimizer {
 public:
  static constexpr size_t kMaxDynamicProgrammingRelations = 12;
  /// Relation sets are 64-bit masks.
  static constexpr size_t kMaxRelations = 64;

  LogicalOperatorPtr run(LogicalOperatorPtr root);

 private:
  struct Relation {
    LogicalOperatorPtr plan;
    std::set<ColumnId> columns;
    double rows;
  };
  struct Predicate {
    engine::ExpressionPtr expression;
    uint64_t relations;  // bit i: reads relation i
  };

  void collectRegion(LogicalOperatorPtr op, std::vector<LogicalOperatorPtr>& relations,
                     std::vector<engine::ExpressionPtr>& predicates);
  LogicalOperatorPtr orderRegion(std::vector<Relation> relations, std::vector<Predicate> predicates);
  /// Joins two planned parts, taking the predicates that become applicable; the smaller side builds.
  LogicalOperatorPtr makeJoin(LogicalOperatorPtr left, LogicalOperatorPtr right, uint64_t leftSet, uint64_t rightSet,
                              std::vector<Predicate>& predicates, double rows);

  CardinalityEstimator estimator_;
};

}  // namespace shoal::sql
