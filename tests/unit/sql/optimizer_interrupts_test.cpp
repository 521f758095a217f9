// Planning stops when its statement is cancelled: statement_timeout sets the session's cancel flag, and the
// optimizer's passes check it (as PostgreSQL's planner checks for interrupts), so a query that would take
// seconds to plan ends with 57014 instead.
#include <gtest/gtest.h>

#include <atomic>

#include "common/status.h"
#include "sql/optimizer/interrupts.h"
#include "sql/optimizer/optimizer.h"

namespace shoal::sql {
namespace {

LogicalPlan singleRowPlan() {
  LogicalPlan plan;
  plan.root = std::make_unique<LogicalSingleRow>();
  return plan;
}

TEST(OptimizerInterruptsTest, ACancelledStatementStopsPlanningWith57014) {
  std::atomic<bool> cancelled{true};
  LogicalPlan plan = singleRowPlan();
  try {
    optimize(plan, &cancelled);
    FAIL() << "planning went on after the cancel";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kQueryCanceled);
  }
  // The flag is the statement's only while it plans: afterwards checks are free and pass.
  EXPECT_NO_THROW(checkForInterrupts());
}

TEST(OptimizerInterruptsTest, AStatementNotCancelledPlansAsBefore) {
  std::atomic<bool> cancelled{false};
  LogicalPlan plan = singleRowPlan();
  EXPECT_NO_THROW(optimize(plan, &cancelled));
  EXPECT_EQ(plan.root->estimatedRows, 1);
  LogicalPlan withoutFlag = singleRowPlan();
  EXPECT_NO_THROW(optimize(withoutFlag));
}

TEST(OptimizerInterruptsTest, ScopesNestAndRestore) {
  std::atomic<bool> outer{false};
  std::atomic<bool> inner{true};
  InterruptScope outerScope(&outer);
  {
    InterruptScope innerScope(&inner);
    EXPECT_THROW(checkForInterrupts(), ShoalError);
  }
  EXPECT_NO_THROW(checkForInterrupts());
  outer = true;
  EXPECT_THROW(checkForInterrupts(), ShoalError);
}

}  // namespace
}  // namespace shoal::sql
