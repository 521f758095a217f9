// Plans as they travel to a worker: every TPC-H plan survives the round trip
// unchanged (its EXPLAIN VERBOSE is the same), parameters arrive as values,
// and a damaged message is refused with XX001 instead of being run.
#include "sql/plan/plan_serialization.h"

#include <gtest/gtest.h>

#include "common/status.h"
#include "sql/binder/binder.h"
#include "sql/optimizer/optimizer.h"
#include "sql/plan/plan_printer.h"
#include "tests/unit/sql/tpch_test_catalog.h"

namespace shoal::sql {
namespace {

using testing::kTpchDirectory;
using testing::readFile;
using testing::TpchCatalog;

std::string verboseExplain(const LogicalPlan& plan) {
  std::string text;
  for (const auto& line : explainPlan(*plan.root, true)) text += line + "\n";
  return text;
}

uint64_t storageIdSeven(const LogicalScan&) {
  return 7;
}

/// The optimized plans of a script's queries (views are defined and dropped along the way).
std::vector<LogicalPlan> plansOf(TpchCatalog& catalog, const std::string& text,
                                 std::vector<engine::LogicalType> declaredTypes = {}) {
  ParsedScript script = ParsedScript::parse(text);
  std::vector<LogicalPlan> plans;
  for (size_t i = 0; i < script.numStatements(); ++i) {
    BoundStatement bound = Binder(catalog).bind(script, i, declaredTypes);
    if (auto* view = std::get_if<CreateView>(&bound.command)) {
      catalog.addView(*view);
    } else if (auto* drop = std::get_if<DropView>(&bound.command)) {
      for (const auto& name : drop->names) catalog.dropView(name);
    } else {
      auto& plan = std::get<BoundQuery>(bound.command).plan;
      optimize(plan);
      plans.push_back(std::move(plan));
    }
  }
  return plans;
}

class TpchPlanRoundTripTest : public ::testing::TestWithParam<int> {};

TEST_P(TpchPlanRoundTripTest, DecodesToTheSamePlan) {
  TpchCatalog catalog;
  ASSERT_FALSE(catalog.empty());
  std::string name = fmt::format("q{:02d}", GetParam());
  for (const auto& plan : plansOf(catalog, readFile(kTpchDirectory / "queries" / (name + ".sql")))) {
    proto::PlanProto encoded = encodePlan(plan, {}, storageIdSeven);
    // Through bytes, as gRPC carries it.
    proto::PlanProto received;
    ASSERT_TRUE(received.ParseFromString(encoded.SerializeAsString()));
    LogicalPlan decoded = decodePlan(received);
    EXPECT_EQ(verboseExplain(decoded), verboseExplain(plan)) << name;
    EXPECT_EQ(decoded.columnNames, plan.columnNames);
    for (const auto* op : operatorsInPreOrder(*decoded.root)) {
      if (op->kind() == LogicalOperatorKind::kScan) {
        EXPECT_EQ(static_cast<const LogicalScan*>(op)->table.storageId, 7u);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllQueries, TpchPlanRoundTripTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) { return fmt::format("Q{:02d}", info.param); });

/// A plan over lineitem with a filter, a join and an aggregate, encoded.
proto::PlanProto sampleMessage() {
  TpchCatalog catalog;
  auto plans = plansOf(catalog,
                       "SELECT o_orderpriority, count(*) FROM orders JOIN lineitem ON l_orderkey = o_orderkey "
                       "WHERE l_quantity < 10 GROUP BY o_orderpriority ORDER BY 1");
  return encodePlan(plans.at(0), {}, storageIdSeven);
}

/// The first node of `kind` in pre-order.
proto::PlanNodeProto* findNode(proto::PlanNodeProto* node, proto::PlanNodeProto::KindCase kind) {
  if (node->kind_case() == kind) return node;
  for (auto& child : *node->mutable_children()) {
    if (auto* found = findNode(&child, kind)) return found;
  }
  return nullptr;
}

void expectRefused(const proto::PlanProto& message, const std::string& fragment) {
  try {
    decodePlan(message);
    ADD_FAILURE() << "a damaged plan was accepted; expected: " << fragment;
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted);
    EXPECT_NE(error.status().message().find(fragment), std::string::npos) << error.status().message();
  }
}

TEST(PlanSerializationTest, ParametersArriveAsValuesOfTheExpectedType) {
  TpchCatalog catalog;
  auto plans =
      plansOf(catalog, "SELECT count(*) FROM lineitem WHERE l_quantity < $1", {engine::LogicalType::integer()});
  std::vector<engine::Value> parameters = {engine::Value::integer(10)};
  LogicalPlan decoded = decodePlan(encodePlan(plans.at(0), parameters, storageIdSeven));
  std::string text = verboseExplain(decoded);
  EXPECT_EQ(text.find("$1"), std::string::npos) << text;
  EXPECT_NE(text.find("10"), std::string::npos) << text;
}

TEST(PlanSerializationTest, RefusesAColumnItsInputsDoNotProduce) {
  proto::PlanProto message = sampleMessage();
  auto* filterScan = findNode(message.mutable_root(), proto::PlanNodeProto::kScan);
  ASSERT_NE(filterScan, nullptr);
  auto* aggregate = findNode(message.mutable_root(), proto::PlanNodeProto::kAggregate);
  ASSERT_NE(aggregate, nullptr);
  aggregate->mutable_aggregate()->mutable_groups(0)->mutable_column()->set_index(999999);
  expectRefused(message, "plan column reference 999999");
}

TEST(PlanSerializationTest, RefusesWrongArityUnknownKindsAndBadScans) {
  {
    proto::PlanProto message = sampleMessage();
    findNode(message.mutable_root(), proto::PlanNodeProto::kJoin)->mutable_children()->RemoveLast();
    expectRefused(message, "wrong number of inputs");
  }
  {
    proto::PlanProto message = sampleMessage();
    findNode(message.mutable_root(), proto::PlanNodeProto::kJoin)->mutable_join()->set_type(99);
    expectRefused(message, "unknown join type");
  }
  {
    proto::PlanProto message = sampleMessage();
    findNode(message.mutable_root(), proto::PlanNodeProto::kAggregate)->clear_kind();
    expectRefused(message, "without a kind");
  }
  {
    proto::PlanProto message = sampleMessage();
    findNode(message.mutable_root(), proto::PlanNodeProto::kScan)->mutable_scan()->set_read_columns(0, 500);
    expectRefused(message, "reads a column its table does not have");
  }
  {
    proto::PlanProto message = sampleMessage();
    message.add_column_names("extra");
    expectRefused(message, "column names do not match");
  }
  expectRefused(proto::PlanProto(), "no root");
}

}  // namespace
}  // namespace shoal::sql
