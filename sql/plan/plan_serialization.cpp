#include "sql/plan/plan_serialization.h"

#include <map>

#include "common/check.h"
#include "common/status.h"
#include "engine/aggregate/moments.h"
#include "engine/vector/chunk_codec.h"
#include "proto/plan_codec.h"

namespace shoal::sql {

namespace {

using engine::LogicalType;

[[noreturn]] void corrupt(std::string_view what) {
  SHOAL_USER_FAIL(SqlState::kDataCorrupted, "shipped plan is malformed: {}", what);
}

proto::PlanColumnProto encodeColumn(const PlanColumn& column) {
  proto::PlanColumnProto out;
  out.set_id(column.id);
  *out.mutable_type() = proto::encodeType(column.type);
  out.set_name(column.name);
  return out;
}

PlanColumn decodeColumn(const proto::PlanColumnProto& column) {
  return {column.id(), proto::decodeType(column.type()), column.name()};
}

class Encoder {
 public:
  Encoder(std::span<const engine::Value> parameters, const StorageIdLookup& storageIdOf)
      : parameters_(parameters), storageIdOf_(storageIdOf) {}

  proto::PlanNodeProto encode(const LogicalOperator& op) {
    proto::PlanNodeProto node;
    node.set_estimated_rows(op.estimatedRows);
    switch (op.kind()) {
      case LogicalOperatorKind::kScan:
        encodeScan(static_cast<const LogicalScan&>(op), *node.mutable_scan());
        break;
      case LogicalOperatorKind::kSingleRow:
        node.mutable_single_row();
        break;
      case LogicalOperatorKind::kFilter:
        for (const auto& condition : static_cast<const LogicalFilter&>(op).conditions) {
          *node.mutable_filter()->add_conditions() = expression(*condition);
        }
        break;
      case LogicalOperatorKind::kProject: {
        const auto& project = static_cast<const LogicalProject&>(op);
        auto& out = *node.mutable_project();
        for (size_t i = 0; i < project.expressions.size(); ++i) {
          *out.add_expressions() = expression(*project.expressions[i]);
          out.add_ids(project.ids[i]);
          out.add_names(project.names[i]);
        }
        break;
      }
      case LogicalOperatorKind::kJoin: {
        const auto& join = static_cast<const LogicalJoin&>(op);
        auto& out = *node.mutable_join();
        out.set_type(static_cast<uint32_t>(join.type));
        for (const auto& condition : join.conditions) *out.add_conditions() = expression(*condition);
        if (join.nullAwareCondition) *out.mutable_null_aware_condition() = expression(*join.nullAwareCondition);
        out.set_mark_id(join.markId);
        out.set_mark_name(join.markName);
        out.set_build_left(join.buildLeft);
        break;
      }
      case LogicalOperatorKind::kAggregate: {
        const auto& aggregate = static_cast<const LogicalAggregate&>(op);
        auto& out = *node.mutable_aggregate();
        for (size_t i = 0; i < aggregate.groups.size(); ++i) {
          *out.add_groups() = expression(*aggregate.groups[i]);
          out.add_group_ids(aggregate.groupIds[i]);
          out.add_group_names(aggregate.groupNames[i]);
        }
        for (const auto& call : aggregate.aggregates) {
          auto& encoded = *out.add_aggregates();
          encodeAggregate(call, *encoded.mutable_call());
          encoded.set_id(call.id);
          encoded.set_name(call.name);
        }
        break;
      }
      case LogicalOperatorKind::kWindow: {
        const auto& window = static_cast<const LogicalWindow&>(op);
        auto& out = *node.mutable_window();
        for (const auto& key : window.partitionBy) *out.add_partition_by() = expression(*key);
        for (const auto& key : window.orderBy) encodeSortKey(key, *out.add_order_by());
        for (const auto& call : window.calls) {
          auto& encoded = *out.add_calls();
          encoded.set_function(static_cast<uint32_t>(call.function));
          if (call.function == engine::WindowFunction::kAggregate) {
            encodeAggregate(call.aggregate, *encoded.mutable_aggregate());
          }
          for (const auto& argument : call.arguments) *encoded.add_arguments() = expression(*argument);
          encoded.set_frame_unit(static_cast<uint32_t>(call.frame.unit));
          encodeFrameEnd(call.frame.start, *encoded.mutable_frame_start());
          encodeFrameEnd(call.frame.end, *encoded.mutable_frame_end());
          encoded.set_frame_exclusion(static_cast<uint32_t>(call.frame.exclusion));
          if (call.frame.rangeKey) *encoded.mutable_range_key() = expression(*call.frame.rangeKey);
          *encoded.mutable_result_type() = proto::encodeType(call.resultType);
          encoded.set_id(call.id);
          encoded.set_name(call.name);
        }
        break;
      }
      case LogicalOperatorKind::kSort:
        for (const auto& key : static_cast<const LogicalSort&>(op).keys) {
          encodeSortKey(key, *node.mutable_sort()->add_keys());
        }
        break;
      case LogicalOperatorKind::kLimit: {
        const auto& limit = static_cast<const LogicalLimit&>(op);
        auto& out = *node.mutable_limit();
        out.set_has_limit(limit.limit.has_value());
        out.set_limit(limit.limit.value_or(0));
        out.set_offset(limit.offset);
        break;
      }
      case LogicalOperatorKind::kTableFunction: {
        const auto& function = static_cast<const LogicalTableFunction&>(op);
        auto& out = *node.mutable_table_function();
        out.set_function(static_cast<uint32_t>(function.function));
        for (const auto& argument : function.arguments) *out.add_arguments() = expression(*argument);
        for (const auto& column : function.columns) *out.add_columns() = encodeColumn(column);
        out.set_with_ordinality(function.withOrdinality);
        break;
      }
      case LogicalOperatorKind::kMaterialized: {
        const auto& materialized = static_cast<const LogicalMaterialized&>(op);
        auto& out = *node.mutable_materialized();
        for (const auto& column : materialized.columns) *out.add_columns() = encodeColumn(column);
        out.set_name(materialized.name);
        out.set_computed(materialized.rows != nullptr);
        if (materialized.rows) {
          for (const auto& chunk : *materialized.rows) engine::encodeChunk(chunk, *out.add_chunks());
        }
        break;
      }
      case LogicalOperatorKind::kUnionAll:
        for (const auto& column : static_cast<const LogicalUnionAll&>(op).columns) {
          *node.mutable_union_all()->add_columns() = encodeColumn(column);
        }
        break;
      case LogicalOperatorKind::kProjectSet: {
        auto& out = *node.mutable_project_set();
        for (const auto& function : static_cast<const LogicalProjectSet&>(op).functions) {
          auto& encoded = *out.add_functions();
          encoded.set_function(static_cast<uint32_t>(function.function));
          for (const auto& argument : function.arguments) *encoded.add_arguments() = expression(*argument);
          *encoded.mutable_column() = encodeColumn(function.column);
          if (function.ordinality) *encoded.mutable_ordinality() = encodeColumn(*function.ordinality);
        }
        break;
      }
    }
    for (const auto& child : op.children) *node.add_children() = encode(*child);
    return node;
  }

 private:
  proto::ExpressionProto expression(const engine::Expression& e) const {
    return proto::encodeExpression(e, parameters_);
  }

  void encodeSortKey(const SortKey& key, proto::SortKeyProto& out) const {
    *out.mutable_expression() = expression(*key.expression);
    out.set_ascending(key.ascending);
    out.set_nulls_first(key.nullsFirst);
  }

  void encodeAggregate(const AggregateCall& call, proto::AggregateProto& out) const {
    out.set_function(static_cast<uint32_t>(call.function));
    if (call.argument) *out.mutable_argument() = expression(*call.argument);
    *out.mutable_result_type() = proto::encodeType(call.resultType);
    out.set_distinct(call.distinct);
    if (call.secondArgument) *out.mutable_second_argument() = expression(*call.secondArgument);
    out.set_combines_partials(call.combinesPartials);
    for (const auto& key : call.orderBy) encodeSortKey(key, *out.add_order_by());
  }

  void encodeFrameEnd(const WindowFrameEnd& end, proto::WindowFrameEndProto& out) const {
    out.set_bound(static_cast<uint32_t>(end.bound));
    if (end.offset) *out.mutable_offset() = expression(*end.offset);
    if (end.rangeBound) *out.mutable_range_bound() = expression(*end.rangeBound);
  }

  void encodeScan(const LogicalScan& scan, proto::ScanNodeProto& out) const {
    SHOAL_CHECK(!scan.table.isSystemView, "system views are computed on the coordinator");
    if (scan.exchangeInput) {
      out.set_from_exchange(true);
      out.set_exchange_id(*scan.exchangeInput);
    } else {
      out.set_storage_id(storageIdOf_(scan));
    }
    out.set_table_name(scan.table.name);
    out.set_table_schema(scan.table.schema);
    out.set_alias(scan.alias);
    for (const auto& column : scan.table.columns) {
      auto& encoded = *out.add_table_columns();
      encoded.set_name(column.name);
      *encoded.mutable_type() = proto::encodeType(column.type);
    }
    for (size_t column : scan.tableColumns) out.add_read_columns(static_cast<uint32_t>(column));
    for (const auto& column : scan.columns) *out.add_columns() = encodeColumn(column);
    for (const auto& filter : scan.filters) *out.add_filters() = expression(*filter);
  }

  std::span<const engine::Value> parameters_;
  const StorageIdLookup& storageIdOf_;
};

class Decoder {
 public:
  template <class DecodeExpression>
  static AggregateCall decodeAggregate(const proto::AggregateProto& in, const DecodeExpression& expression) {
    if (in.function() > static_cast<uint32_t>(engine::AggregateFunction::kQuantileSketch)) {
      corrupt("an unknown aggregate function");
    }
    AggregateCall decoded;
    decoded.function = static_cast<engine::AggregateFunction>(in.function());
    if (in.has_argument()) decoded.argument = expression(in.argument());
    if ((decoded.function == engine::AggregateFunction::kCountStar) != (decoded.argument == nullptr)) {
      corrupt("an aggregate with the wrong arguments");
    }
    decoded.distinct = in.distinct();
    if (in.has_second_argument()) decoded.secondArgument = expression(in.second_argument());
    decoded.combinesPartials = in.combines_partials();
    // kMoments takes x alone or (y, x).
    const engine::AggregateFunction function = decoded.function;
    const bool takesSecond = function == engine::AggregateFunction::kStringAgg ||
                             function == engine::AggregateFunction::kPercentileCont ||
                             function == engine::AggregateFunction::kPercentileDisc ||
                             function == engine::AggregateFunction::kApproxPercentile ||
                             (engine::takesTwoVariables(function) && !decoded.combinesPartials);
    // kMoments takes an optional second, and array_agg its FILTER as one.
    const bool optionalSecond =
        function == engine::AggregateFunction::kMoments || function == engine::AggregateFunction::kArrayAgg;
    if ((takesSecond != (decoded.secondArgument != nullptr) && !optionalSecond) ||
        (decoded.combinesPartials && !engine::isMomentAggregate(function) &&
         function != engine::AggregateFunction::kApproxCountDistinct &&
         function != engine::AggregateFunction::kApproxPercentile)) {
      corrupt("an aggregate with the wrong arguments");
    }
    for (const auto& key : in.order_by()) {
      decoded.orderBy.push_back({expression(key.expression()), key.ascending(), key.nulls_first()});
    }
    decoded.resultType = proto::decodeType(in.result_type());
    return decoded;
  }

  LogicalOperatorPtr decode(const proto::PlanNodeProto& node, int depth = 0) {
    if (depth > kMaxDepth) corrupt("nested too deeply");
    std::vector<LogicalOperatorPtr> children;
    for (const auto& child : node.children()) children.push_back(decode(child, depth + 1));
    // The columns this node's expressions may read: its inputs' outputs.
    std::map<ColumnId, LogicalType> inputs;
    for (const auto& child : children) {
      for (const auto& column : child->outputColumns()) inputs.emplace(column.id, column.type);
    }
    auto expression = [&](const proto::ExpressionProto& e) {
      return proto::decodeExpression(e, [&](uint32_t id, const LogicalType& type) {
        auto found = inputs.find(id);
        return found != inputs.end() && found->second == type;
      });
    };
    auto expectChildren = [&](size_t count) {
      if (children.size() != count) corrupt("an operator with the wrong number of inputs");
    };

    LogicalOperatorPtr op;
    switch (node.kind_case()) {
      case proto::PlanNodeProto::kScan: {
        expectChildren(0);
        op = decodeScan(node.scan());
        break;
      }
      case proto::PlanNodeProto::kSingleRow:
        expectChildren(0);
        op = std::make_unique<LogicalSingleRow>();
        break;
      case proto::PlanNodeProto::kFilter: {
        expectChildren(1);
        auto filter = std::make_unique<LogicalFilter>();
        for (const auto& condition : node.filter().conditions()) filter->conditions.push_back(expression(condition));
        op = std::move(filter);
        break;
      }
      case proto::PlanNodeProto::kProject: {
        expectChildren(1);
        const auto& in = node.project();
        if (in.ids_size() != in.expressions_size() || in.names_size() != in.expressions_size()) {
          corrupt("a projection's lists differ in length");
        }
        auto project = std::make_unique<LogicalProject>();
        for (int i = 0; i < in.expressions_size(); ++i) {
          project->expressions.push_back(expression(in.expressions(i)));
          project->ids.push_back(in.ids(i));
          project->names.push_back(in.names(i));
        }
        op = std::move(project);
        break;
      }
      case proto::PlanNodeProto::kJoin: {
        expectChildren(2);
        const auto& in = node.join();
        if (in.type() > static_cast<uint32_t>(JoinType::kSingle)) corrupt("an unknown join type");
        auto join = std::make_unique<LogicalJoin>();
        join->type = static_cast<JoinType>(in.type());
        for (const auto& condition : in.conditions()) join->conditions.push_back(expression(condition));
        if (in.has_null_aware_condition()) join->nullAwareCondition = expression(in.null_aware_condition());
        join->markId = in.mark_id();
        join->markName = in.mark_name();
        join->buildLeft = in.build_left();
        op = std::move(join);
        break;
      }
      case proto::PlanNodeProto::kAggregate: {
        expectChildren(1);
        const auto& in = node.aggregate();
        if (in.group_ids_size() != in.groups_size() || in.group_names_size() != in.groups_size()) {
          corrupt("an aggregation's group lists differ in length");
        }
        auto aggregate = std::make_unique<LogicalAggregate>();
        for (int i = 0; i < in.groups_size(); ++i) {
          aggregate->groups.push_back(expression(in.groups(i)));
          aggregate->groupIds.push_back(in.group_ids(i));
          aggregate->groupNames.push_back(in.group_names(i));
        }
        for (const auto& call : in.aggregates()) {
          AggregateCall decoded = decodeAggregate(call.call(), expression);
          decoded.id = call.id();
          decoded.name = call.name();
          aggregate->aggregates.push_back(std::move(decoded));
        }
        op = std::move(aggregate);
        break;
      }
      case proto::PlanNodeProto::kSort: {
        expectChildren(1);
        auto sort = std::make_unique<LogicalSort>();
        for (const auto& key : node.sort().keys()) {
          engine::ExpressionPtr keyExpression = expression(key.expression());
          if (keyExpression->kind() != engine::ExpressionKind::kColumnRef) corrupt("a sort key that is not a column");
          sort->keys.push_back({std::move(keyExpression), key.ascending(), key.nulls_first()});
        }
        op = std::move(sort);
        break;
      }
      case proto::PlanNodeProto::kWindow: {
        expectChildren(1);
        const auto& in = node.window();
        auto window = std::make_unique<LogicalWindow>();
        auto column = [&](const proto::ExpressionProto& e) {
          engine::ExpressionPtr decoded = expression(e);
          if (decoded->kind() != engine::ExpressionKind::kColumnRef) corrupt("a window input that is not a column");
          return decoded;
        };
        for (const auto& key : in.partition_by()) window->partitionBy.push_back(column(key));
        for (const auto& key : in.order_by()) {
          window->orderBy.push_back({column(key.expression()), key.ascending(), key.nulls_first()});
        }
        auto frameEnd = [&](const proto::WindowFrameEndProto& end) {
          if (end.bound() > static_cast<uint32_t>(engine::FrameBound::kUnboundedFollowing)) {
            corrupt("an unknown frame bound");
          }
          WindowFrameEnd decoded{static_cast<engine::FrameBound>(end.bound()), nullptr, nullptr};
          if (end.has_offset()) decoded.offset = expression(end.offset());
          if (end.has_range_bound()) decoded.rangeBound = column(end.range_bound());
          return decoded;
        };
        for (const auto& call : in.calls()) {
          if (call.function() > static_cast<uint32_t>(engine::WindowFunction::kAggregate) ||
              call.frame_unit() > static_cast<uint32_t>(engine::FrameUnit::kGroups) ||
              call.frame_exclusion() > static_cast<uint32_t>(engine::FrameExclusion::kTies)) {
            corrupt("an unknown window function or frame");
          }
          WindowCall decoded;
          decoded.function = static_cast<engine::WindowFunction>(call.function());
          if (decoded.function == engine::WindowFunction::kAggregate) {
            decoded.aggregate = decodeAggregate(call.aggregate(), column);
          }
          for (const auto& argument : call.arguments()) decoded.arguments.push_back(column(argument));
          decoded.frame.unit = static_cast<engine::FrameUnit>(call.frame_unit());
          decoded.frame.start = frameEnd(call.frame_start());
          decoded.frame.end = frameEnd(call.frame_end());
          decoded.frame.exclusion = static_cast<engine::FrameExclusion>(call.frame_exclusion());
          if (call.has_range_key()) decoded.frame.rangeKey = column(call.range_key());
          decoded.resultType = proto::decodeType(call.result_type());
          decoded.id = call.id();
          decoded.name = call.name();
          window->calls.push_back(std::move(decoded));
        }
        op = std::move(window);
        break;
      }
      case proto::PlanNodeProto::kLimit: {
        expectChildren(1);
        auto limit = std::make_unique<LogicalLimit>();
        if (node.limit().has_limit()) limit->limit = node.limit().limit();
        limit->offset = node.limit().offset();
        if (limit->offset < 0 || limit->limit.value_or(0) < 0) corrupt("a negative limit");
        op = std::move(limit);
        break;
      }
      case proto::PlanNodeProto::kUnionAll: {
        if (children.empty()) corrupt("a union of nothing");
        auto unionAll = std::make_unique<LogicalUnionAll>();
        for (const auto& column : node.union_all().columns()) unionAll->columns.push_back(decodeColumn(column));
        for (const auto& child : children) {
          std::vector<PlanColumn> columns = child->outputColumns();
          if (columns.size() != unionAll->columns.size()) corrupt("union inputs of different widths");
          for (size_t i = 0; i < columns.size(); ++i) {
            if (columns[i].type != unionAll->columns[i].type) corrupt("union inputs of different types");
          }
        }
        op = std::move(unionAll);
        break;
      }
      case proto::PlanNodeProto::kTableFunction: {
        expectChildren(0);
        const auto& in = node.table_function();
        if (in.function() > static_cast<uint32_t>(engine::kLastTableFunction)) corrupt("an unknown table function");
        auto function = std::make_unique<LogicalTableFunction>();
        function->function = static_cast<engine::TableFunction>(in.function());
        for (const auto& argument : in.arguments()) function->arguments.push_back(expression(argument));
        for (const auto& column : in.columns()) function->columns.push_back(decodeColumn(column));
        function->withOrdinality = in.with_ordinality();
        if (function->columns.size() != (function->withOrdinality ? 2u : 1u)) corrupt("a table function's columns");
        op = std::move(function);
        break;
      }
      case proto::PlanNodeProto::kMaterialized: {
        expectChildren(0);
        const auto& in = node.materialized();
        auto materialized = std::make_unique<LogicalMaterialized>();
        for (const auto& column : in.columns()) materialized->columns.push_back(decodeColumn(column));
        materialized->name = in.name();
        if (in.computed()) {
          std::vector<engine::LogicalType> types;
          for (const auto& column : materialized->columns) types.push_back(column.type);
          auto rows = std::make_shared<std::vector<engine::Chunk>>();
          for (const auto& bytes : in.chunks()) {
            rows->push_back(engine::decodeChunk(bytes, types));
            if (rows->back().numColumns() != types.size()) corrupt("materialized rows of another width");
          }
          materialized->rows = std::move(rows);
        }
        op = std::move(materialized);
        break;
      }
      case proto::PlanNodeProto::kProjectSet: {
        expectChildren(1);
        auto projectSet = std::make_unique<LogicalProjectSet>();
        for (const auto& in : node.project_set().functions()) {
          if (in.function() > static_cast<uint32_t>(engine::kLastTableFunction)) corrupt("an unknown table function");
          SetFunctionColumn function;
          function.function = static_cast<engine::TableFunction>(in.function());
          for (const auto& argument : in.arguments()) function.arguments.push_back(expression(argument));
          function.column = decodeColumn(in.column());
          if (in.has_ordinality()) function.ordinality = decodeColumn(in.ordinality());
          projectSet->functions.push_back(std::move(function));
        }
        op = std::move(projectSet);
        break;
      }
      case proto::PlanNodeProto::KIND_NOT_SET:
        corrupt("an operator without a kind");
    }
    op->children = std::move(children);
    op->estimatedRows = node.estimated_rows();
    return op;
  }

 private:
  static constexpr int kMaxDepth = 1000;

  static LogicalOperatorPtr decodeScan(const proto::ScanNodeProto& in) {
    auto scan = std::make_unique<LogicalScan>();
    scan->table.name = in.table_name();
    scan->table.schema = in.table_schema();
    scan->table.isSystemView = false;
    scan->table.storageId = in.storage_id();
    if (in.from_exchange()) {
      scan->exchangeInput = in.exchange_id();
      if (in.filters_size() > 0) corrupt("an exchange input with filters");
    }
    scan->alias = in.alias();
    for (const auto& column : in.table_columns()) {
      scan->table.columns.push_back({column.name(), proto::decodeType(column.type())});
    }
    if (in.read_columns_size() != in.columns_size()) corrupt("a scan's column lists differ in length");
    for (int i = 0; i < in.columns_size(); ++i) {
      size_t tableColumn = in.read_columns(i);
      PlanColumn column = decodeColumn(in.columns(i));
      const bool rowId = tableColumn == kRowIdColumn && column.type == engine::LogicalType::bigInt();
      if (!rowId &&
          (tableColumn >= scan->table.columns.size() || scan->table.columns[tableColumn].type != column.type)) {
        corrupt("a scan reads a column its table does not have");
      }
      scan->tableColumns.push_back(tableColumn);
      scan->columns.push_back(std::move(column));
    }
    for (const auto& filter : in.filters()) {
      scan->filters.push_back(proto::decodeExpression(filter, [&](uint32_t id, const LogicalType& type) {
        for (const auto& column : scan->columns) {
          if (column.id == id) return column.type == type;
        }
        return false;
      }));
    }
    return scan;
  }
};

void collectPreOrder(const LogicalOperator& op, std::vector<const LogicalOperator*>& out) {
  out.push_back(&op);
  for (const auto& child : op.children) collectPreOrder(*child, out);
}

}  // namespace

proto::PlanProto encodePlan(const LogicalPlan& plan, std::span<const engine::Value> parameters,
                            const StorageIdLookup& storageIdOf) {
  proto::PlanProto out;
  *out.mutable_root() = Encoder(parameters, storageIdOf).encode(*plan.root);
  for (const auto& name : plan.columnNames) out.add_column_names(name);
  return out;
}

LogicalPlan decodePlan(const proto::PlanProto& proto) {
  if (!proto.has_root()) corrupt("no root");
  LogicalPlan plan;
  plan.root = Decoder().decode(proto.root());
  plan.columnNames.assign(proto.column_names().begin(), proto.column_names().end());
  if (plan.columnNames.size() != plan.root->outputColumns().size()) corrupt("column names do not match the output");
  return plan;
}

std::vector<const LogicalOperator*> operatorsInPreOrder(const LogicalOperator& root) {
  std::vector<const LogicalOperator*> out;
  collectPreOrder(root, out);
  return out;
}

}  // namespace shoal::sql
