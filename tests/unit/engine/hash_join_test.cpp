// Hash joins on the dispatcher, each join type against a nested-loop reference:
// duplicates and heavy skew, NULL keys, NOT IN's NULL semantics, residual conditions.
#include "engine/join/hash_join.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>

#include "engine/pipeline/collect_sink.h"
#include "scheduler/pipeline_runner.h"

namespace shoal::engine {
namespace {

using Key = std::optional<int64_t>;

/// Rows of (key, payload) in chunks of up to 700 rows; the payload may be NULL when it is a Key.
template <class Payload>
std::vector<Chunk> table(const std::vector<std::pair<Key, Payload>>& rows, LogicalType keyType) {
  std::vector<Chunk> chunks;
  for (size_t begin = 0; begin < rows.size(); begin += 700) {
    size_t count = std::min<size_t>(700, rows.size() - begin);
    Vector keys(keyType, count);
    Vector payload(LogicalType::bigInt(), count);
    for (size_t i = 0; i < count; ++i) {
      const auto& [key, value] = rows[begin + i];
      if (!key) {
        keys.setValue(i, Value::null(keyType));
      } else {
        keys.setValue(
            i, keyType == LogicalType::integer() ? Value::integer(static_cast<int32_t>(*key)) : Value::bigInt(*key));
      }
      if constexpr (std::is_same_v<Payload, Key>) {
        payload.setValue(i, value ? Value::bigInt(*value) : Value::null(LogicalType::bigInt()));
      } else {
        payload.setValue(i, Value::bigInt(value));
      }
    }
    Chunk chunk(count);
    chunk.addColumn(std::move(keys));
    chunk.addColumn(std::move(payload));
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

template <class Payload>
std::vector<std::vector<Value>> runRows(HashJoin::Options options, const std::vector<std::pair<Key, Payload>>& probe,
                                        const std::vector<std::pair<Key, Payload>>& build) {
  LogicalType probeKeyType = LogicalType::integer();  // INTEGER probe keys meet BIGINT build keys
  options.buildTypes = {LogicalType::bigInt(), LogicalType::bigInt()};
  options.numKeys = 1;
  options.probeKeys = {0};
  const bool keepsBuildRows = options.type == HashJoinType::kBuildSemi || options.type == HashJoinType::kBuildAnti ||
                              options.type == HashJoinType::kBuildOuter;
  if (options.type == HashJoinType::kBuildOuter) options.probeTypes = {probeKeyType, LogicalType::bigInt()};
  HashJoin join(std::move(options));
  scheduler::Dispatcher dispatcher(3, NumaTopology::fake(1));
  scheduler::PipelineRunner runner(dispatcher);
  auto result = std::make_shared<CollectSink>();
  std::vector<Pipeline> pipelines(keepsBuildRows ? 4 : 3);
  pipelines[0].source = std::make_shared<ChunkListSource>(table(build, LogicalType::bigInt()));
  pipelines[0].sink = join.buildSink();
  pipelines[1].source = join.insertSource();
  pipelines[1].sink = HashJoin::discardingSink();
  pipelines[1].dependencies = {0};
  pipelines[2].source = std::make_shared<ChunkListSource>(table(probe, probeKeyType));
  pipelines[2].operators.push_back(join.probe());
  pipelines[2].sink = result;
  pipelines[2].dependencies = {1};
  if (keepsBuildRows) {
    // The build rows kept, after the probe marked them (as the pipeline builder wires it).
    pipelines[3].source = join.buildRowsSource();
    pipelines[3].sink = result;
    pipelines[3].dependencies = {2};
  }
  runner.start(std::move(pipelines))->wait();
  std::vector<std::vector<Value>> rows;
  for (auto& chunk : result->chunks()) {
    for (size_t row = 0; row < chunk.size(); ++row) {
      std::vector<Value> values;
      for (size_t column = 0; column < chunk.numColumns(); ++column)
        values.push_back(chunk.column(column).getValue(row));
      rows.push_back(std::move(values));
    }
  }
  return rows;
}

std::vector<std::vector<Value>> run(HashJoin::Options options, const std::vector<std::pair<Key, int64_t>>& probe,
                                    const std::vector<std::pair<Key, int64_t>>& build) {
  return runRows(std::move(options), probe, build);
}

/// The same with payloads that may be NULL.
std::vector<std::vector<Value>> runNullable(HashJoin::Options options, const std::vector<std::pair<Key, Key>>& probe,
                                            const std::vector<std::pair<Key, Key>>& build) {
  return runRows(std::move(options), probe, build);
}

/// A row as text, for order-independent comparison.
std::multiset<std::string> asText(const std::vector<std::vector<Value>>& rows) {
  std::multiset<std::string> text;
  for (const auto& row : rows) {
    std::string line;
    for (const auto& value : row) line += (value.isNull() ? "NULL" : value.toString()) + "|";
    text.insert(line);
  }
  return text;
}

std::string show(const Key& key) {
  return key ? std::to_string(*key) : "NULL";
}

struct Inputs {
  std::vector<std::pair<Key, int64_t>> probe;
  std::vector<std::pair<Key, int64_t>> build;
};

/// Skewed keys: key 1 on a third of the build rows; some NULLs on both sides.
Inputs skewed() {
  std::mt19937 random(11);
  Inputs inputs;
  for (int i = 0; i < 6000; ++i) {
    Key key = random() % 50 == 0 ? Key() : Key(static_cast<int64_t>(random() % 900));
    inputs.probe.emplace_back(key, i);
  }
  for (int i = 0; i < 3000; ++i) {
    Key key = i % 3 == 0 ? Key(1) : (random() % 40 == 0 ? Key() : Key(static_cast<int64_t>(random() % 1200)));
    inputs.build.emplace_back(key, 100000 + i);
  }
  return inputs;
}

TEST(HashJoinTest, InnerAndLeftJoinsMatchANestedLoop) {
  Inputs inputs = skewed();
  std::multiset<std::string> inner;
  std::multiset<std::string> left;
  for (const auto& [pk, pv] : inputs.probe) {
    bool matched = false;
    for (const auto& [bk, bv] : inputs.build) {
      if (!pk || !bk || *pk != *bk) continue;
      matched = true;
      std::string line = show(pk) + "|" + std::to_string(pv) + "|" + std::to_string(bv) + "|";
      inner.insert(line);
      left.insert(line);
    }
    if (!matched) left.insert(show(pk) + "|" + std::to_string(pv) + "|NULL|");
  }
  HashJoin::Options options;
  options.type = HashJoinType::kInner;
  EXPECT_EQ(asText(run(std::move(options), inputs.probe, inputs.build)), inner);
  HashJoin::Options leftOptions;
  leftOptions.type = HashJoinType::kLeft;
  EXPECT_EQ(asText(run(std::move(leftOptions), inputs.probe, inputs.build)), left);
}

TEST(HashJoinTest, SemiAndAntiJoinsKeepEachProbeRowAtMostOnce) {
  Inputs inputs = skewed();
  std::multiset<std::string> semi;
  std::multiset<std::string> anti;
  for (const auto& [pk, pv] : inputs.probe) {
    bool matched = false;
    for (const auto& [bk, bv] : inputs.build) matched = matched || (pk && bk && *pk == *bk);
    (matched ? semi : anti).insert(show(pk) + "|" + std::to_string(pv) + "|");
  }
  HashJoin::Options semiOptions;
  semiOptions.type = HashJoinType::kSemi;
  EXPECT_EQ(asText(run(std::move(semiOptions), inputs.probe, inputs.build)), semi);
  HashJoin::Options antiOptions;
  antiOptions.type = HashJoinType::kAnti;
  EXPECT_EQ(asText(run(std::move(antiOptions), inputs.probe, inputs.build)), anti);
}

TEST(HashJoinTest, BuildSideSemiAntiAndOuterJoinsKeepTheBuildRowsANestedLoopKeeps) {
  // The preserved side is the build side here: what a semi, anti or left join from the smaller input does.
  Inputs inputs = skewed();
  std::multiset<std::string> semi;
  std::multiset<std::string> anti;
  std::multiset<std::string> outer;
  for (const auto& [bk, bv] : inputs.build) {
    bool matched = false;
    for (const auto& [pk, pv] : inputs.probe) {
      if (!pk || !bk || *pk != *bk) continue;
      matched = true;
      outer.insert(show(pk) + "|" + std::to_string(pv) + "|" + std::to_string(bv) + "|");
    }
    (matched ? semi : anti).insert(std::to_string(bv) + "|");
    if (!matched) outer.insert(std::to_string(bv) + "|NULL|NULL|");
  }
  HashJoin::Options semiOptions;
  semiOptions.type = HashJoinType::kBuildSemi;
  EXPECT_EQ(asText(run(std::move(semiOptions), inputs.probe, inputs.build)), semi);
  HashJoin::Options antiOptions;
  antiOptions.type = HashJoinType::kBuildAnti;
  EXPECT_EQ(asText(run(std::move(antiOptions), inputs.probe, inputs.build)), anti);
  HashJoin::Options outerOptions;
  outerOptions.type = HashJoinType::kBuildOuter;
  EXPECT_EQ(asText(run(std::move(outerOptions), inputs.probe, inputs.build)), outer);
}

TEST(HashJoinTest, NotInKeepsNoRowOnceTheSetHoldsANull) {
  std::vector<std::pair<Key, int64_t>> probe = {{1, 1}, {2, 2}, {Key(), 3}};
  HashJoin::Options options;
  options.type = HashJoinType::kAnti;
  options.nullAware = true;
  // NOT IN (2, NULL): nothing is certainly not in the set.
  EXPECT_TRUE(run(std::move(options), probe, {{2, 0}, {Key(), 0}}).empty());
  // NOT IN (2): 1 stays; NULL NOT IN (2) is unknown.
  HashJoin::Options second;
  second.type = HashJoinType::kAnti;
  second.nullAware = true;
  EXPECT_EQ(asText(run(std::move(second), probe, {{2, 0}})), (std::multiset<std::string>{"1|1|"}));
  // NOT IN (empty set) is true, even for NULL.
  HashJoin::Options third;
  third.type = HashJoinType::kAnti;
  third.nullAware = true;
  EXPECT_EQ(run(std::move(third), probe, {}).size(), 3u);
}

TEST(HashJoinTest, ACorrelatedNotInOnlyCountsTheNullsOfItsOwnRows) {
  // x NOT IN (SELECT y FROM build WHERE build.g = probe.g): hashed on g, the comparison x = y checked per pair.
  // Rows are (g, x) and (g, y).
  auto comparison = [] {
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(std::make_unique<ColumnRefExpression>(1, LogicalType::bigInt(), "probe.x"));
    arguments.push_back(std::make_unique<ColumnRefExpression>(3, LogicalType::bigInt(), "build.y"));
    return std::make_unique<FunctionExpression>(ScalarFunction::kEqual, std::move(arguments), LogicalType::boolean());
  };
  std::vector<std::pair<Key, Key>> probe = {{5, 1}, {6, 3}, {7, Key()}, {5, Key()}};
  std::vector<std::pair<Key, Key>> build = {{6, Key()}, {5, 2}};
  HashJoin::Options options;
  options.type = HashJoinType::kAnti;
  options.nullAwareComparison = comparison();
  // 1 NOT IN (2): true. 3 NOT IN (NULL): unknown. NULL NOT IN (empty set): true. NULL NOT IN (2): unknown.
  EXPECT_EQ(asText(runNullable(std::move(options), probe, build)), (std::multiset<std::string>{"5|1|", "7|NULL|"}));
}

TEST(HashJoinTest, MarksAreTrueFalseOrUnknownAsInPostgres) {
  std::vector<std::pair<Key, int64_t>> probe = {{1, 1}, {2, 2}, {Key(), 3}};
  HashJoin::Options options;
  options.type = HashJoinType::kMark;
  options.nullAware = true;
  EXPECT_EQ(asText(run(std::move(options), probe, {{1, 0}, {Key(), 0}})),
            (std::multiset<std::string>{"1|1|t|", "2|2|NULL|", "NULL|3|NULL|"}));
  HashJoin::Options exists;
  exists.type = HashJoinType::kMark;
  EXPECT_EQ(asText(run(std::move(exists), probe, {{1, 0}, {Key(), 0}})),
            (std::multiset<std::string>{"1|1|t|", "2|2|f|", "NULL|3|f|"}));
}

TEST(HashJoinTest, AResidualConditionFiltersThePairs) {
  // ... ON probe.key = build.key AND probe.payload <> build.payload - 100000 (as in TPC-H Q21's l_suppkey <>).
  Inputs inputs = skewed();
  auto residual = [] {
    std::vector<ExpressionPtr> shifted;
    shifted.push_back(std::make_unique<ColumnRefExpression>(3, LogicalType::bigInt(), "build.payload"));
    shifted.push_back(std::make_unique<ConstantExpression>(Value::bigInt(100000 + 5)));
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(std::make_unique<ColumnRefExpression>(1, LogicalType::bigInt(), "probe.payload"));
    arguments.push_back(
        std::make_unique<FunctionExpression>(ScalarFunction::kSubtract, std::move(shifted), LogicalType::bigInt()));
    return std::make_unique<FunctionExpression>(ScalarFunction::kNotEqual, std::move(arguments),
                                                LogicalType::boolean());
  };
  std::multiset<std::string> expected;
  for (const auto& [pk, pv] : inputs.probe) {
    bool matched = false;
    for (const auto& [bk, bv] : inputs.build) matched = matched || (pk && bk && *pk == *bk && pv != bv - 100005);
    if (matched) expected.insert(show(pk) + "|" + std::to_string(pv) + "|");
  }
  HashJoin::Options options;
  options.type = HashJoinType::kSemi;
  options.residual = residual();
  EXPECT_EQ(asText(run(std::move(options), inputs.probe, inputs.build)), expected);
}

TEST(HashJoinTest, AScalarSubqueryWithTwoRowsFailsWith21000) {
  HashJoin::Options options;
  options.type = HashJoinType::kSingle;
  try {
    run(std::move(options), {{1, 1}}, {{1, 10}, {1, 11}});
    FAIL() << "two rows for one outer row";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kCardinalityViolation);
  }
  HashJoin::Options single;
  single.type = HashJoinType::kSingle;
  EXPECT_EQ(asText(run(std::move(single), {{1, 1}, {2, 2}}, {{1, 10}})),
            (std::multiset<std::string>{"1|1|10|", "2|2|NULL|"}));
}

}  // namespace
}  // namespace shoal::engine
