#include "sql/execution/pipeline_builder.h"

#include <algorithm>

#include "common/check.h"
#include "common/status.h"
#include "engine/aggregate/hash_aggregation.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/join/hash_join.h"
#include "engine/pipeline/filter_operator.h"
#include "engine/pipeline/project_set_operator.h"
#include "engine/pipeline/row_counter.h"
#include "engine/sort/sort.h"
#include "engine/types/interval.h"
#include "engine/window/window_operator.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;

namespace {

/// A pipeline under construction: its source and operators so far, the
/// pipelines it must wait for, and which plan column each chunk column holds.
struct Partial {
  engine::Pipeline pipeline;
  std::vector<ColumnId> layout;
  std::vector<engine::LogicalType> types;
};

/// A source over the chunks other pipelines collected, known once they are done (UNION ALL).
class CollectedSource final : public engine::ChunkSource {
 public:
  explicit CollectedSource(std::vector<std::shared_ptr<engine::CollectSink>> inputs) : inputs_(std::move(inputs)) {}
  size_t numMorsels() const override {
    size_t count = 0;
    for (const auto& input : inputs_) count += input->chunks().size();
    return count;
  }
  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override {
    for (const auto& input : inputs_) {
      if (morsel < input->chunks().size()) {
        engine::Chunk chunk = std::move(input->chunks()[morsel]);
        consume(chunk);
        return;
      }
      morsel -= input->chunks().size();
    }
  }

 private:
  std::vector<std::shared_ptr<engine::CollectSink>> inputs_;
};

/// The chunks one pipeline collected, then the morsels of another source (a join's unmatched build rows).
class ConcatenatedSource final : public engine::ChunkSource {
 public:
  ConcatenatedSource(std::shared_ptr<engine::CollectSink> collected, std::shared_ptr<engine::ChunkSource> then)
      : collected_(std::move(collected)), then_(std::move(then)) {}
  size_t numMorsels() const override { return collected_->chunks().size() + then_->numMorsels(); }
  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override {
    if (morsel < collected_->chunks().size()) {
      engine::Chunk chunk = std::move(collected_->chunks()[morsel]);
      consume(chunk);
      return;
    }
    then_->produce(morsel - collected_->chunks().size(), consume);
  }

 private:
  std::shared_ptr<engine::CollectSink> collected_;
  std::shared_ptr<engine::ChunkSource> then_;
};

class Builder {
 public:
  Builder(PhysicalPlan& plan, const ScanSourceFactory& scans, PipelineOptions options)
      : plan_(plan), scans_(scans), options_(options) {}

  Partial build(const LogicalOperator& op) {
    Partial partial = buildOperator(op);
    if (options_.countRows) {
      auto rows = std::make_shared<std::atomic<uint64_t>>(0);
      plan_.rowCounts[&op] = rows;
      partial.pipeline.operators.push_back(std::make_shared<engine::RowCounter>(rows));
    }
    return partial;
  }

  Partial buildOperator(const LogicalOperator& op) {
    switch (op.kind()) {
      case LogicalOperatorKind::kScan:
        return buildScan(static_cast<const LogicalScan&>(op));
      case LogicalOperatorKind::kSingleRow: {
        Partial partial;
        std::vector<engine::Chunk> chunks;
        chunks.emplace_back(1);
        partial.pipeline.source = std::make_shared<engine::ChunkListSource>(std::move(chunks));
        return partial;
      }
      case LogicalOperatorKind::kTableFunction:
        return buildTableFunction(static_cast<const LogicalTableFunction&>(op));
      case LogicalOperatorKind::kMaterialized:
        return buildMaterialized(static_cast<const LogicalMaterialized&>(op));
      case LogicalOperatorKind::kProjectSet: {
        Partial partial = build(*op.children[0]);
        std::vector<engine::SetFunctionCall> calls;
        for (const auto& function : static_cast<const LogicalProjectSet&>(op).functions) {
          engine::SetFunctionCall call{function.function, {}, function.column.type, function.ordinality.has_value()};
          for (const auto& argument : function.arguments)
            call.arguments.push_back(toPositions(*argument, partial.layout));
          calls.push_back(std::move(call));
          partial.layout.push_back(function.column.id);
          partial.types.push_back(function.column.type);
          if (function.ordinality) {
            partial.layout.push_back(function.ordinality->id);
            partial.types.push_back(function.ordinality->type);
          }
        }
        partial.pipeline.operators.push_back(std::make_shared<engine::ProjectSetOperator>(std::move(calls)));
        return partial;
      }
      case LogicalOperatorKind::kFilter: {
        Partial partial = build(*op.children[0]);
        std::vector<ExpressionPtr> conditions;
        for (const auto& condition : static_cast<const LogicalFilter&>(op).conditions) {
          conditions.push_back(toPositions(*condition, partial.layout));
        }
        partial.pipeline.operators.push_back(std::make_shared<engine::FilterOperator>(std::move(conditions)));
        return partial;
      }
      case LogicalOperatorKind::kProject: {
        const auto& project = static_cast<const LogicalProject&>(op);
        Partial partial = build(*op.children[0]);
        std::vector<ExpressionPtr> expressions;
        for (const auto& expression : project.expressions) expressions.push_back(copyExpression(*expression));
        project_(partial, std::move(expressions), project.ids);
        return partial;
      }
      case LogicalOperatorKind::kJoin:
        return buildJoin(static_cast<const LogicalJoin&>(op));
      case LogicalOperatorKind::kAggregate:
        return buildAggregate(static_cast<const LogicalAggregate&>(op));
      case LogicalOperatorKind::kSort:
        return buildSort(static_cast<const LogicalSort&>(op), std::nullopt, 0);
      case LogicalOperatorKind::kWindow:
        return buildWindow(static_cast<const LogicalWindow&>(op));
      case LogicalOperatorKind::kLimit: {
        const auto& limit = static_cast<const LogicalLimit&>(op);
        if (op.children[0]->kind() == LogicalOperatorKind::kSort) {
          return buildSort(static_cast<const LogicalSort&>(*op.children[0]), limit.limit, limit.offset);
        }
        Partial child = build(*op.children[0]);
        auto node = std::make_shared<engine::Limit>(limit.limit, limit.offset);
        plan_.keepAlive.push_back(node);
        return continueFrom(std::move(child), node->sink(), node->source());
      }
      case LogicalOperatorKind::kUnionAll: {
        const auto& unionAll = static_cast<const LogicalUnionAll&>(op);
        std::vector<std::shared_ptr<engine::CollectSink>> inputs;
        std::vector<size_t> dependencies;
        for (const auto& child : op.children) {
          auto sink = std::make_shared<engine::CollectSink>();
          inputs.push_back(sink);
          dependencies.push_back(finish(build(*child), sink));
        }
        Partial partial;
        partial.pipeline.source = std::make_shared<CollectedSource>(std::move(inputs));
        partial.pipeline.dependencies = std::move(dependencies);
        for (const auto& column : unionAll.columns) {
          partial.layout.push_back(column.id);
          partial.types.push_back(column.type);
        }
        return partial;
      }
    }
    SHOAL_CHECK(false, "unknown logical operator");
    return {};
  }

  /// Ends `partial` in `sink` as a finished pipeline; returns its index.
  size_t finish(Partial partial, std::shared_ptr<engine::ChunkSink> sink) {
    partial.pipeline.sink = std::move(sink);
    plan_.pipelines.push_back(std::move(partial.pipeline));
    return plan_.pipelines.size() - 1;
  }

  /// Replaces the chunk's columns by `expressions` (over plan ids), which become columns `ids`.
  void project_(Partial& partial, std::vector<ExpressionPtr> expressions, const std::vector<ColumnId>& ids) {
    std::vector<ExpressionPtr> positioned;
    std::vector<engine::LogicalType> types;
    for (const auto& expression : expressions) {
      types.push_back(expression->type());
      positioned.push_back(toPositions(*expression, partial.layout));
    }
    partial.pipeline.operators.push_back(std::make_shared<engine::ProjectionOperator>(std::move(positioned)));
    partial.layout = ids;
    partial.types = std::move(types);
  }

  Partial buildMaterialized(const LogicalMaterialized& materialized) {
    // The executor computes a recursive query's rows before its plan runs; reading none would be a wrong answer.
    if (!materialized.rows) {
      SHOAL_USER_FAIL(SqlState::kInternalError, "recursive query \"{}\" was not computed", materialized.name);
    }
    Partial partial;
    partial.pipeline.source = std::make_shared<engine::ChunkListSource>(materialized.rows);
    for (const auto& column : materialized.columns) {
      partial.layout.push_back(column.id);
      partial.types.push_back(column.type);
    }
    return partial;
  }

  /// The function's arguments are known now (constants and parameters): the source makes its rows from them.
  Partial buildTableFunction(const LogicalTableFunction& function) {
    std::vector<engine::Value> arguments;
    engine::ExpressionEvaluator evaluator(options_.parameters);
    for (const auto& argument : function.arguments) {
      arguments.push_back(evaluator.evaluate(*toPositions(*argument, {}), engine::Chunk(1)).getValue(0));
    }
    Partial partial;
    partial.pipeline.source = std::make_shared<engine::TableFunctionSource>(
        function.function, std::move(arguments), function.columns[0].type, function.withOrdinality);
    for (const auto& column : function.columns) {
      partial.layout.push_back(column.id);
      partial.types.push_back(column.type);
    }
    return partial;
  }

  ExpressionPtr toPositions(const engine::Expression& expression, const std::vector<ColumnId>& layout) const {
    return rewriteExpression(expression, [&](const engine::Expression& node) -> ExpressionPtr {
      if (node.kind() == engine::ExpressionKind::kParameter) {
        size_t index = static_cast<const engine::ParameterExpression&>(node).index();
        SHOAL_CHECK_LT(index, options_.parameters.size(), "parameter value");
        ExpressionPtr value = std::make_unique<engine::ConstantExpression>(options_.parameters[index]);
        if (value->type() == node.type()) return value;
        return std::make_unique<engine::CastExpression>(std::move(value), node.type());
      }
      if (node.kind() != engine::ExpressionKind::kColumnRef) return nullptr;
      const auto& ref = static_cast<const engine::ColumnRefExpression&>(node);
      auto found = std::find(layout.begin(), layout.end(), static_cast<ColumnId>(ref.columnIndex()));
      SHOAL_CHECK(found != layout.end(), "column {} ({}) is not in the pipeline's rows", ref.columnIndex(), ref.name());
      return std::make_unique<engine::ColumnRefExpression>(static_cast<size_t>(found - layout.begin()), ref.type(),
                                                           ref.name());
    });
  }

 private:
  Partial continueFrom(Partial child, std::shared_ptr<engine::ChunkSink> sink,
                       std::shared_ptr<engine::ChunkSource> source) {
    std::vector<ColumnId> layout = child.layout;
    std::vector<engine::LogicalType> types = child.types;
    size_t index = finish(std::move(child), std::move(sink));
    Partial partial;
    partial.pipeline.source = std::move(source);
    partial.pipeline.dependencies = {index};
    partial.layout = std::move(layout);
    partial.types = std::move(types);
    return partial;
  }

  Partial buildScan(const LogicalScan& scan) {
    Partial partial;
    partial.pipeline.source = scans_(scan);
    for (const auto& column : scan.columns) {
      partial.layout.push_back(column.id);
      partial.types.push_back(column.type);
    }
    if (!scan.filters.empty() && !options_.scansApplyFilters) {
      std::vector<ExpressionPtr> filters;
      for (const auto& filter : scan.filters) filters.push_back(toPositions(*filter, partial.layout));
      auto filter = std::make_shared<engine::FilterOperator>(std::move(filters));
      if (!partial.pipeline.source->absorbFilter(filter)) partial.pipeline.operators.push_back(std::move(filter));
    }
    return partial;
  }

  Partial buildAggregate(const LogicalAggregate& aggregate) {
    Partial child = build(*aggregate.children[0]);
    // Rows for the aggregation: the group keys, then each aggregate's argument.
    std::vector<ExpressionPtr> inputs;
    std::vector<ColumnId> inputIds;
    std::vector<engine::LogicalType> keyTypes;
    for (const auto& group : aggregate.groups) {
      keyTypes.push_back(group->type());
      inputs.push_back(copyExpression(*group));
      inputIds.push_back(static_cast<ColumnId>(inputIds.size()) | kScratchBit);
    }
    std::vector<engine::GroupedAggregate> calls;
    for (const auto& call : aggregate.aggregates) {
      engine::GroupedAggregate grouped;
      grouped.function = call.function;
      grouped.distinct = call.distinct;
      grouped.combinesPartials = call.combinesPartials;
      grouped.argumentType = engine::LogicalType::bigInt();
      grouped.resultType = call.resultType;
      auto addInput = [&](const engine::Expression& input) {
        inputs.push_back(copyExpression(input));
        inputIds.push_back(static_cast<ColumnId>(inputIds.size()) | kScratchBit);
        return inputs.size() - 1;
      };
      if (call.argument) {
        grouped.argumentColumn = addInput(*call.argument);
        grouped.argumentType = call.argument->type();
      }
      if (call.function == engine::AggregateFunction::kApproxPercentile) {
        // The fraction is a constant (the binder folds and checks it), kept in the aggregate itself.
        SHOAL_CHECK(call.secondArgument && call.secondArgument->kind() == engine::ExpressionKind::kConstant,
                    "approx_percentile's fraction is not a constant");
        grouped.fraction = static_cast<const engine::ConstantExpression&>(*call.secondArgument).value().asDouble();
      } else if (call.secondArgument) {
        grouped.secondArgumentColumn = addInput(*call.secondArgument);
      }
      for (const auto& key : call.orderBy) {
        grouped.orderBy.push_back({addInput(*key.expression), key.ascending, key.nullsFirst});
      }
      calls.push_back(grouped);
    }
    project_(child, std::move(inputs), inputIds);
    auto node = std::make_shared<engine::HashAggregation>(keyTypes, std::move(calls));
    plan_.keepAlive.push_back(node);
    Partial partial = continueFrom(std::move(child), node->sink(), node->source());
    aggregateInputs_[&aggregate] = partial.pipeline.dependencies[0];
    partial.layout = aggregate.groupIds;
    partial.types = node->outputTypes();
    for (const auto& call : aggregate.aggregates) partial.layout.push_back(call.id);
    return partial;
  }

  Partial buildSort(const LogicalSort& sort, std::optional<int64_t> limit, int64_t offset) {
    Partial child = build(*sort.children[0]);
    std::vector<engine::SortColumn> keys;
    for (const auto& key : sort.keys) {
      ExpressionPtr positioned = toPositions(*key.expression, child.layout);
      SHOAL_CHECK(positioned->kind() == engine::ExpressionKind::kColumnRef, "sort keys are columns");
      keys.push_back(
          {static_cast<const engine::ColumnRefExpression&>(*positioned).columnIndex(), key.ascending, key.nullsFirst});
    }
    auto node = std::make_shared<engine::Sort>(std::move(keys), limit, offset);
    plan_.keepAlive.push_back(node);
    return continueFrom(std::move(child), node->sink(), node->source());
  }

  Partial buildWindow(const LogicalWindow& window) {
    Partial child = build(*window.children[0]);
    auto position = [&](const engine::Expression& expression) {
      ExpressionPtr positioned = toPositions(expression, child.layout);
      SHOAL_CHECK(positioned->kind() == engine::ExpressionKind::kColumnRef, "window inputs are columns");
      return static_cast<const engine::ColumnRefExpression&>(*positioned).columnIndex();
    };
    std::vector<size_t> partition;
    for (const auto& key : window.partitionBy) partition.push_back(position(*key));
    std::vector<engine::SortColumn> order;
    for (const auto& key : window.orderBy) order.push_back({position(*key.expression), key.ascending, key.nullsFirst});
    std::vector<engine::WindowCallSpec> calls;
    for (const auto& call : window.calls) {
      engine::WindowCallSpec spec;
      spec.function = call.function;
      spec.resultType = call.resultType;
      if (call.function == engine::WindowFunction::kAggregate) {
        spec.aggregate.function = call.aggregate.function;
        spec.aggregate.resultType = call.aggregate.resultType;
        if (call.aggregate.argument) {
          spec.aggregate.argumentColumn = position(*call.aggregate.argument);
          spec.aggregate.argumentType = call.aggregate.argument->type();
        }
        if (call.aggregate.secondArgument)
          spec.aggregate.secondArgumentColumn = position(*call.aggregate.secondArgument);
      }
      for (const auto& argument : call.arguments) spec.argumentColumns.push_back(position(*argument));
      spec.frame.unit = call.frame.unit;
      spec.frame.exclusion = call.frame.exclusion;
      if (call.frame.rangeKey) spec.frame.rangeKeyColumn = position(*call.frame.rangeKey);
      spec.frame.start = frameEnd(call.frame, call.frame.start, true, position);
      spec.frame.end = frameEnd(call.frame, call.frame.end, false, position);
      calls.push_back(std::move(spec));
    }
    auto node = std::make_shared<engine::WindowOperator>(std::move(partition), std::move(order), std::move(calls));
    plan_.keepAlive.push_back(node);
    Partial partial = continueFrom(std::move(child), node->sink(), node->source());
    for (const auto& call : window.calls) {
      partial.layout.push_back(call.id);
      partial.types.push_back(call.resultType);
    }
    return partial;
  }

  /// Whether a RANGE offset (a number or an interval, by its span) is below zero.
  static bool isNegative(const engine::Value& value) {
    return std::visit(
        [&](const auto& stored) -> bool {
          using T = std::decay_t<decltype(stored)>;
          if constexpr (std::is_same_v<T, engine::int128_t>) {
            return value.type().id() == engine::TypeId::kInterval ? engine::intervalSpan(stored) < 0 : stored < 0;
          } else if constexpr (std::is_same_v<T, std::monostate> || std::is_same_v<T, std::string> ||
                               std::is_same_v<T, bool>) {
            return false;
          } else {
            return stored < 0;
          }
        },
        value.storage());
  }

  /// A frame end with its offset read (a constant or parameter): 22004 when NULL, 22013 when negative, as
  /// PostgreSQL checks them when the window starts.
  template <class Position>
  engine::FrameEnd frameEnd(const WindowFrameClause& frame, const WindowFrameEnd& end, bool isStart,
                            const Position& position) {
    engine::FrameEnd out{end.bound, 0, std::nullopt};
    if (!end.offset) return out;
    engine::ExpressionEvaluator evaluator(options_.parameters);
    engine::Value offset = evaluator.evaluate(*toPositions(*end.offset, {}), engine::Chunk(1)).getValue(0);
    const char* which = isStart ? "starting" : "ending";
    if (offset.isNull()) {
      SHOAL_USER_FAIL(SqlState::kNullValueNotAllowed, "frame {} offset must not be null", which);
    }
    if (frame.unit == engine::FrameUnit::kRange) {
      if (isNegative(offset)) {
        SHOAL_USER_FAIL(SqlState::kInvalidPrecedingOrFollowingSize,
                        "invalid preceding or following size in window function");
      }
      out.boundColumn = position(*end.rangeBound);
      return out;
    }
    out.count = offset.type().physicalType() == engine::PhysicalType::kInt32 ? offset.asInt32() : offset.asInt64();
    if (out.count < 0) {
      SHOAL_USER_FAIL(SqlState::kInvalidPrecedingOrFollowingSize, "frame {} offset must not be negative", which);
    }
    return out;
  }

  Partial buildJoin(const LogicalJoin& join) {
    if (join.type == JoinType::kFull) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "executing FULL OUTER JOIN is not supported yet");
    }
    Partial left = build(*join.children[0]);
    Partial right = build(*join.children[1]);
    std::set<ColumnId> leftIds(left.layout.begin(), left.layout.end());
    std::set<ColumnId> rightIds(right.layout.begin(), right.layout.end());
    auto within = [](const engine::Expression& e, const std::set<ColumnId>& ids) {
      std::set<ColumnId> columns = columnsOf(e);
      return !columns.empty() &&
             std::all_of(columns.begin(), columns.end(), [&](ColumnId id) { return ids.contains(id); });
    };
    // Equalities between the inputs become hash keys; everything else is checked on matching pairs.
    std::vector<ExpressionPtr> leftKeys;
    std::vector<ExpressionPtr> rightKeys;
    std::vector<const engine::Expression*> residual;
    auto classify = [&](const engine::Expression& condition, bool mustBeKey) {
      if (condition.kind() == engine::ExpressionKind::kFunction) {
        const auto& function = static_cast<const engine::FunctionExpression&>(condition);
        if (function.function() == engine::ScalarFunction::kEqual) {
          const auto& a = *function.arguments()[0];
          const auto& b = *function.arguments()[1];
          if (within(a, leftIds) && within(b, rightIds)) {
            leftKeys.push_back(copyExpression(a));
            rightKeys.push_back(copyExpression(b));
            return;
          }
          if (within(b, leftIds) && within(a, rightIds)) {
            leftKeys.push_back(copyExpression(b));
            rightKeys.push_back(copyExpression(a));
            return;
          }
        }
      }
      if (mustBeKey) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                        "executing NOT IN / IN / ANY / ALL with a comparison other than = is not supported yet");
      }
      residual.push_back(&condition);
    };
    // An uncorrelated NOT IN hashes on its comparison; a correlated one hashes on the correlation and checks the
    // comparison per pair, so that only the NULLs of the rows that take part make the answer unknown.
    bool comparisonPerPair = join.nullAwareCondition && !join.conditions.empty();
    if (join.nullAwareCondition && !comparisonPerPair) classify(*join.nullAwareCondition, true);
    for (const auto& condition : join.conditions) classify(*condition, false);
    if (leftKeys.empty()) {
      // No equality: every build row is a candidate (a nested-loop join on one constant key).
      leftKeys.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::bigInt(0)));
      rightKeys.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::bigInt(0)));
    }
    // A semi, anti or left outer join whose preserved (left) input is the smaller: build from it, and let the
    // right input's rows only mark what they match (not for NOT IN, whose NULL rules need the probe's view).
    if (join.buildLeft && !join.nullAwareCondition &&
        (join.type == JoinType::kSemi || join.type == JoinType::kAnti || join.type == JoinType::kLeft)) {
      return buildJoinFromLeft(join, std::move(left), std::move(right), std::move(leftKeys), std::move(rightKeys),
                               residual);
    }
    size_t numKeys = leftKeys.size();
    size_t leftWidth = left.layout.size();

    // Build rows: the keys, then every right column.
    std::vector<ExpressionPtr> buildColumns = std::move(rightKeys);
    std::vector<ColumnId> buildIds;
    for (size_t i = 0; i < numKeys; ++i) buildIds.push_back(static_cast<ColumnId>(i) | kScratchBit);
    for (size_t i = 0; i < right.layout.size(); ++i) {
      buildColumns.push_back(columnRef({right.layout[i], right.types[i], "right"}));
      buildIds.push_back(right.layout[i]);
    }
    std::vector<ColumnId> rightLayout = right.layout;
    std::vector<engine::LogicalType> rightTypes = right.types;
    project_(right, std::move(buildColumns), buildIds);

    engine::HashJoin::Options options;
    options.numKeys = numKeys;
    options.buildTypes = right.types;
    options.nullAware = join.nullAwareCondition != nullptr;
    for (size_t i = 0; i < numKeys; ++i) options.probeKeys.push_back(leftWidth + i);
    switch (join.type) {
      case JoinType::kInner:
        options.type = engine::HashJoinType::kInner;
        break;
      case JoinType::kLeft:
        options.type = engine::HashJoinType::kLeft;
        break;
      case JoinType::kSemi:
        options.type = engine::HashJoinType::kSemi;
        break;
      case JoinType::kAnti:
        options.type = engine::HashJoinType::kAnti;
        break;
      case JoinType::kMark:
        options.type = engine::HashJoinType::kMark;
        break;
      case JoinType::kSingle:
        options.type = engine::HashJoinType::kSingle;
        break;
      case JoinType::kFull:
        break;
    }
    // The residual sees [left columns, probe keys, build keys, right columns].
    std::vector<ColumnId> pairLayout = joinPairLayout(left.layout, numKeys, buildIds);
    options.residual = residualOver(residual, pairLayout);
    if (comparisonPerPair) options.nullAwareComparison = toPositions(*join.nullAwareCondition, pairLayout);
    auto node = std::make_shared<engine::HashJoin>(std::move(options));
    plan_.keepAlive.push_back(node);
    size_t insertPipeline = addInsertPipeline(*node, finish(std::move(right), node->buildSink()));
    if (join.type == JoinType::kInner || join.type == JoinType::kSemi) {
      reduceAggregateInput(*join.children[0], leftKeys, *node, insertPipeline);
    }

    // Probe rows: the left columns, then the keys.
    std::vector<ExpressionPtr> probeColumns;
    std::vector<ColumnId> probeIds = left.layout;
    for (size_t i = 0; i < leftWidth; ++i) probeColumns.push_back(columnRef({left.layout[i], left.types[i], "left"}));
    for (size_t i = 0; i < numKeys; ++i) {
      probeColumns.push_back(std::move(leftKeys[i]));
      probeIds.push_back(static_cast<ColumnId>(i) | kProbeKeyBit);
    }
    std::vector<engine::LogicalType> leftTypes = left.types;
    project_(left, std::move(probeColumns), probeIds);
    left.pipeline.operators.push_back(node->probe());
    left.pipeline.dependencies.push_back(insertPipeline);

    // What the probe emits, then the join's own output columns.
    std::vector<ColumnId> emitted = probeIds;
    std::vector<engine::LogicalType> emittedTypes = left.types;
    std::vector<ColumnId> output(left.layout.begin(), left.layout.begin() + static_cast<std::ptrdiff_t>(leftWidth));
    std::vector<engine::LogicalType> outputTypes = leftTypes;
    if (join.type == JoinType::kInner || join.type == JoinType::kLeft || join.type == JoinType::kSingle) {
      for (size_t i = 0; i < rightLayout.size(); ++i) {
        emitted.push_back(rightLayout[i]);
        emittedTypes.push_back(rightTypes[i]);
        output.push_back(rightLayout[i]);
        outputTypes.push_back(rightTypes[i]);
      }
    } else if (join.type == JoinType::kMark) {
      emitted.push_back(join.markId);
      emittedTypes.push_back(engine::LogicalType::boolean());
      output.push_back(join.markId);
      outputTypes.push_back(engine::LogicalType::boolean());
    }
    left.layout = emitted;
    left.types = emittedTypes;
    std::vector<ExpressionPtr> keep;
    for (size_t i = 0; i < output.size(); ++i) keep.push_back(columnRef({output[i], outputTypes[i], "out"}));
    project_(left, std::move(keep), output);
    return left;
  }

  /// When the join's probe input is an aggregation grouped by the probe keys, groups without a join partner
  /// are computed only to be dropped: its input pipeline waits for the join's hash table and drops the rows
  /// that cannot match (a semi-join reduction; TPC-H Q17 aggregates the lineitems of 200 parts, not of 200k).
  void reduceAggregateInput(const LogicalOperator& probeSide, const std::vector<ExpressionPtr>& keys,
                            engine::HashJoin& join, size_t insertPipeline) {
    std::vector<ColumnId> ids;
    for (const auto& key : keys) {
      if (key->kind() != engine::ExpressionKind::kColumnRef) return;
      ids.push_back(static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(*key).columnIndex()));
    }
    // Down through projections that pass the key columns on, and filters (HAVING).
    const LogicalOperator* op = &probeSide;
    while (op->kind() == LogicalOperatorKind::kProject || op->kind() == LogicalOperatorKind::kFilter) {
      if (op->kind() == LogicalOperatorKind::kProject) {
        const auto& project = static_cast<const LogicalProject&>(*op);
        for (auto& id : ids) {
          auto at = std::find(project.ids.begin(), project.ids.end(), id);
          if (at == project.ids.end()) return;
          const auto& expression = *project.expressions[static_cast<size_t>(at - project.ids.begin())];
          if (expression.kind() != engine::ExpressionKind::kColumnRef) return;
          id = static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(expression).columnIndex());
        }
      }
      op = op->children[0].get();
    }
    if (op->kind() != LogicalOperatorKind::kAggregate) return;
    const auto& aggregate = static_cast<const LogicalAggregate&>(*op);
    auto input = aggregateInputs_.find(&aggregate);
    if (input == aggregateInputs_.end()) return;
    // The aggregation's input rows hold the group keys first, in order.
    std::vector<size_t> positions;
    for (ColumnId id : ids) {
      auto at = std::find(aggregate.groupIds.begin(), aggregate.groupIds.end(), id);
      if (at == aggregate.groupIds.end()) return;
      positions.push_back(static_cast<size_t>(at - aggregate.groupIds.begin()));
    }
    auto& pipeline = plan_.pipelines[input->second];
    pipeline.operators.push_back(join.matchFilter(std::move(positions)));
    pipeline.dependencies.push_back(insertPipeline);
  }

  /// What a join's residual sees of a candidate pair: the probe columns, the probe keys, then the build rows.
  static std::vector<ColumnId> joinPairLayout(const std::vector<ColumnId>& probeLayout, size_t numKeys,
                                              const std::vector<ColumnId>& buildIds) {
    std::vector<ColumnId> layout = probeLayout;
    for (size_t i = 0; i < numKeys; ++i) layout.push_back(static_cast<ColumnId>(i) | kProbeKeyBit);
    layout.insert(layout.end(), buildIds.begin(), buildIds.end());
    return layout;
  }

  /// The conjunction of a join's non-key conditions over `pairLayout` (null: none).
  ExpressionPtr residualOver(const std::vector<const engine::Expression*>& residual,
                             const std::vector<ColumnId>& pairLayout) const {
    if (residual.empty()) return nullptr;
    std::vector<ExpressionPtr> conjuncts;
    for (const auto* condition : residual) conjuncts.push_back(copyExpression(*condition));
    return toPositions(*makeConjunction(std::move(conjuncts)), pairLayout);
  }

  /// After a join's build pipeline: all threads insert the stored rows into the directory. Returns its index.
  size_t addInsertPipeline(engine::HashJoin& join, size_t buildPipeline) {
    engine::Pipeline insert;
    insert.source = join.insertSource();
    insert.sink = engine::HashJoin::discardingSink();
    insert.dependencies = {buildPipeline};
    plan_.pipelines.push_back(std::move(insert));
    return plan_.pipelines.size() - 1;
  }

  /// A semi, anti or left join built from its left input: the right input probes and marks the left rows it
  /// matches; then the left rows kept (matched, unmatched, or unmatched with NULLs after the matched pairs) go on.
  Partial buildJoinFromLeft(const LogicalJoin& join, Partial left, Partial right, std::vector<ExpressionPtr> leftKeys,
                            std::vector<ExpressionPtr> rightKeys,
                            const std::vector<const engine::Expression*>& residual) {
    const size_t numKeys = leftKeys.size();
    const std::vector<ColumnId> leftLayout = left.layout;
    const std::vector<engine::LogicalType> leftTypes = left.types;
    const std::vector<ColumnId> rightLayout = right.layout;
    const std::vector<engine::LogicalType> rightTypes = right.types;

    // Build rows: the keys, then every left column.
    std::vector<ExpressionPtr> buildColumns = std::move(leftKeys);
    std::vector<ColumnId> buildIds;
    for (size_t i = 0; i < numKeys; ++i) buildIds.push_back(static_cast<ColumnId>(i) | kScratchBit);
    for (size_t i = 0; i < leftLayout.size(); ++i) {
      buildColumns.push_back(columnRef({leftLayout[i], leftTypes[i], "left"}));
      buildIds.push_back(leftLayout[i]);
    }
    project_(left, std::move(buildColumns), buildIds);

    engine::HashJoin::Options options;
    options.type = join.type == JoinType::kSemi   ? engine::HashJoinType::kBuildSemi
                   : join.type == JoinType::kAnti ? engine::HashJoinType::kBuildAnti
                                                  : engine::HashJoinType::kBuildOuter;
    options.numKeys = numKeys;
    options.buildTypes = left.types;
    options.probeTypes = rightTypes;
    for (size_t i = 0; i < numKeys; ++i) options.probeKeys.push_back(rightLayout.size() + i);
    // The residual sees [right columns, probe keys, build keys, left columns].
    options.residual = residualOver(residual, joinPairLayout(rightLayout, numKeys, buildIds));
    auto node = std::make_shared<engine::HashJoin>(std::move(options));
    plan_.keepAlive.push_back(node);
    size_t insertPipeline = addInsertPipeline(*node, finish(std::move(left), node->buildSink()));

    // Probe rows: the right columns, then the keys.
    std::vector<ExpressionPtr> probeColumns;
    std::vector<ColumnId> probeIds = rightLayout;
    for (size_t i = 0; i < rightLayout.size(); ++i)
      probeColumns.push_back(columnRef({rightLayout[i], rightTypes[i], "right"}));
    for (size_t i = 0; i < numKeys; ++i) {
      probeColumns.push_back(std::move(rightKeys[i]));
      probeIds.push_back(static_cast<ColumnId>(i) | kProbeKeyBit);
    }
    project_(right, std::move(probeColumns), probeIds);
    right.pipeline.operators.push_back(node->probe());
    right.pipeline.dependencies.push_back(insertPipeline);

    Partial kept;
    kept.layout = leftLayout;
    kept.types = leftTypes;
    if (join.type != JoinType::kLeft) {
      kept.pipeline.source = node->buildRowsSource();
      kept.pipeline.dependencies = {finish(std::move(right), engine::HashJoin::discardingSink())};
      return kept;
    }
    // Matched pairs come out of the probe as [right columns, probe keys, left columns]: reorder them to the
    // join's [left columns, right columns] and collect them; the unmatched left rows follow.
    // (project_ left right's layout as the probe rows: right columns and probe keys.)
    for (size_t i = 0; i < leftLayout.size(); ++i) {
      right.layout.push_back(leftLayout[i]);
      right.types.push_back(leftTypes[i]);
    }
    std::vector<ExpressionPtr> reordered;
    std::vector<ColumnId> outputIds = leftLayout;
    std::vector<engine::LogicalType> outputTypes = leftTypes;
    outputIds.insert(outputIds.end(), rightLayout.begin(), rightLayout.end());
    outputTypes.insert(outputTypes.end(), rightTypes.begin(), rightTypes.end());
    for (size_t i = 0; i < outputIds.size(); ++i) reordered.push_back(columnRef({outputIds[i], outputTypes[i], "out"}));
    project_(right, std::move(reordered), outputIds);
    auto matched = std::make_shared<engine::CollectSink>();
    kept.pipeline.source = std::make_shared<ConcatenatedSource>(matched, node->buildRowsSource());
    kept.pipeline.dependencies = {finish(std::move(right), matched)};
    kept.layout = outputIds;
    kept.types = outputTypes;
    return kept;
  }

  /// Ids for the pipeline's own helper columns (keys, aggregate inputs), out of the plan's id range.
  static constexpr ColumnId kScratchBit = 0x80000000u;
  static constexpr ColumnId kProbeKeyBit = 0x40000000u;

  PhysicalPlan& plan_;
  const ScanSourceFactory& scans_;
  /// Each aggregation's input pipeline (the one ending in its sink).
  std::map<const LogicalAggregate*, size_t> aggregateInputs_;
  PipelineOptions options_;
};

}  // namespace

PhysicalPlan buildPipelines(const LogicalPlan& plan, const ScanSourceFactory& scans, PipelineOptions options) {
  PhysicalPlan physical;
  Builder builder(physical, scans, options);
  Partial root = builder.build(*plan.root);
  // The client's columns, in order.
  std::vector<PlanColumn> outputs = plan.root->outputColumns();
  std::vector<ExpressionPtr> columns;
  std::vector<ColumnId> ids;
  for (const auto& column : outputs) {
    columns.push_back(columnRef(column));
    ids.push_back(column.id);
  }
  builder.project_(root, std::move(columns), ids);
  physical.result = std::make_shared<engine::CollectSink>();
  builder.finish(std::move(root), physical.result);
  return physical;
}

}  // namespace shoal::sql
