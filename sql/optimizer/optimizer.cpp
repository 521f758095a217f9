#include "sql/optimizer/optimizer.h"
#include "common/status.h"

#include "sql/optimizer/cardinality_estimator.h"
#include "sql/optimizer/constant_folder.h"
#include "sql/optimizer/decorrelator.h"
#include "sql/optimizer/eager_aggregation.h"
#include "sql/optimizer/full_join_lowering.h"
#include "sql/optimizer/interrupts.h"
#include "sql/optimizer/join_order_optimizer.h"
#include "sql/optimizer/predicate_pushdown.h"
#include "sql/optimizer/projection_pruner.h"
#include "sql/optimizer/semi_join_pushdown.h"

namespace shoal::sql {

void optimize(LogicalPlan& plan, const std::atomic<bool>* cancelRequested) {
  InterruptScope interrupts(cancelRequested);
  ColumnIdGenerator ids(nextFreeColumnId(*plan.root));
  plan.root = Decorrelator(ids).run(std::move(plan.root));
  checkForInterrupts();
  foldConstants(*plan.root);
  plan.root = PredicatePushdown().run(std::move(plan.root));
  checkForInterrupts();
  plan.root = lowerFullJoins(std::move(plan.root), ids);
  plan.root = JoinOrderOptimizer().run(std::move(plan.root));
  checkForInterrupts();
  plan.root = pushSemiJoinsDown(std::move(plan.root));
  plan.root = aggregateEagerly(std::move(plan.root), ids);
  pruneColumns(*plan.root);
  checkForInterrupts();
  removeRedundantProjections(plan);
  CardinalityEstimator().estimate(*plan.root);
}

}  // namespace shoal::sql
