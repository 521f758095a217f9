#include "coordinator/planner/distributed_planner.h"

#include "coordinator/planner/distinct_aggregate_split.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/check.h"
#include "common/status.h"
#include "engine/aggregate/aggregate_function.h"
#include "engine/aggregate/moments.h"
#include "engine/vector/vector.h"
#include "sql/plan/aggregate_phases.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"

namespace shoal::coordinator {
namespace {

using engine::AggregateFunction;
using engine::ExpressionPtr;
using engine::LogicalType;
using sql::ColumnId;
using sql::LogicalOperator;
using sql::LogicalOperatorKind;
using sql::LogicalOperatorPtr;
using sql::PlanColumn;

/// How an operator's rows are spread over the workers.
struct Spread {
  enum class Kind {
    kHashed,      // row r is on nodes[CRC32(keys of r) mod nodes.size()]
    kAnywhere,    // each row on one worker, no telling which
    kReplicated,  // every worker has every row
    kCoordinator  // all rows are on the coordinator
  };
  Kind kind = Kind::kAnywhere;
  /// kHashed: the partitioning columns; key i is any column of keys[i] (an inner join's equal columns all qualify).
  std::vector<std::set<ColumnId>> keys;
  std::vector<uint32_t> nodes;

  static std::vector<std::set<ColumnId>> single(const std::vector<ColumnId>& columns) {
    std::vector<std::set<ColumnId>> keys;
    for (ColumnId column : columns) keys.push_back({column});
    return keys;
  }

  bool distributed() const { return kind == Kind::kHashed || kind == Kind::kAnywhere; }
};

struct Placed {
  LogicalOperatorPtr op;
  Spread spread;
};

/// Rows and bytes the optimizer expects an operator to produce (strings counted at 24 bytes).
double estimatedBytes(const LogicalOperator& op) {
  double width = 0;
  for (const auto& column : op.outputColumns()) {
    width += column.type.physicalType() == engine::PhysicalType::kString
                 ? 24.0
                 : static_cast<double>(engine::physicalTypeWidth(column.type.physicalType()));
  }
  const double rows = op.estimatedRows >= 0 ? op.estimatedRows : 1e6;
  return rows * std::max(width, 1.0);
}

/// Equal values of these two types hash alike (the same bytes go into the CRC32).
bool hashCompatible(const LogicalType& a, const LogicalType& b) {
  return a.physicalType() == b.physicalType() && a.id() == b.id() && a.scale() == b.scale();
}

std::optional<ColumnId> columnIdOf(const engine::Expression& expression) {
  if (expression.kind() != engine::ExpressionKind::kColumnRef) return std::nullopt;
  return static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(expression).columnIndex());
}

ColumnId maxColumnId(const LogicalOperator& op) {
  ColumnId highest = 0;
  for (const auto& column : op.outputColumns()) highest = std::max(highest, column.id);
  for (const auto& child : op.children) highest = std::max(highest, maxColumnId(*child));
  return highest;
}

void collectExchangeInputs(const LogicalOperator& op, std::vector<uint64_t>& inputs) {
  if (op.kind() == LogicalOperatorKind::kScan) {
    const auto& scan = static_cast<const sql::LogicalScan&>(op);
    if (scan.exchangeInput) inputs.push_back(*scan.exchangeInput);
  }
  for (const auto& child : op.children) collectExchangeInputs(*child, inputs);
}

class Planner {
 public:
  Planner(DistributedPlan& out, const TableFinder& tables, uint64_t queryId, ColumnId nextId)
      : out_(out), tables_(tables), queryId_(queryId), nextId_(nextId) {}

  Placed place(LogicalOperatorPtr op) {
    switch (op->kind()) {
      case LogicalOperatorKind::kScan:
        return placeScan(std::move(op));
      case LogicalOperatorKind::kSingleRow:
      case LogicalOperatorKind::kTableFunction:  // the same rows wherever it runs
      case LogicalOperatorKind::kMaterialized:
        return {std::move(op), Spread{Spread::Kind::kReplicated, {}, {}}};
      case LogicalOperatorKind::kFilter:
      case LogicalOperatorKind::kProjectSet: {  // row by row, where its input is (a hash spread still holds)
        Placed child = place(std::move(op->children[0]));
        op->children[0] = std::move(child.op);
        return {std::move(op), child.spread};
      }
      case LogicalOperatorKind::kProject:
        return placeProject(std::move(op));
      case LogicalOperatorKind::kJoin:
        return placeJoin(std::move(op));
      case LogicalOperatorKind::kAggregate:
        return placeAggregate(std::move(op));
      case LogicalOperatorKind::kWindow:
        return placeWindow(std::move(op));
      case LogicalOperatorKind::kSort: {
        Placed child = place(std::move(op->children[0]));
        if (child.spread.distributed()) {
          if (auto merged = mergeSortedParts(static_cast<sql::LogicalSort&>(*op), child)) {
            retired_.push_back(std::move(op));
            return std::move(*merged);
          }
          child = gather(std::move(child));
        }
        op->children[0] = std::move(child.op);
        return {std::move(op), child.spread};
      }
      case LogicalOperatorKind::kLimit:
        return placeLimit(std::move(op));
      case LogicalOperatorKind::kUnionAll: {
        std::vector<Placed> inputs;
        bool allReplicated = true;
        bool allDistributed = true;
        for (auto& child : op->children) {
          inputs.push_back(place(std::move(child)));
          allReplicated = allReplicated && inputs.back().spread.kind == Spread::Kind::kReplicated;
          allDistributed = allDistributed && inputs.back().spread.distributed();
        }
        // Inputs spread over the workers concatenate where they are: each worker unions its own parts. A
        // replicated input beside them (VALUES, a grouping set's extra row) is produced on one worker and spread
        // over all (a repartition on its columns). Otherwise (some on the coordinator) they meet there.
        const bool anyOnCoordinator = std::any_of(inputs.begin(), inputs.end(), [](const Placed& input) {
          return input.spread.kind == Spread::Kind::kCoordinator;
        });
        if (!allReplicated && !allDistributed && !anyOnCoordinator) {
          for (auto& input : inputs) {
            const std::vector<PlanColumn> columns = input.op->outputColumns();
            if (input.spread.kind != Spread::Kind::kReplicated || columns.empty()) continue;
            std::vector<ColumnId> keys;
            for (const auto& column : columns) keys.push_back(column.id);
            input = exchange(std::move(input), FragmentOutput::kRepartition, keys, allNodes());
          }
          allDistributed =
              std::all_of(inputs.begin(), inputs.end(), [](const Placed& input) { return input.spread.distributed(); });
        }
        for (size_t i = 0; i < inputs.size(); ++i) {
          if (!allReplicated && !allDistributed && inputs[i].spread.kind != Spread::Kind::kCoordinator)
            inputs[i] = gather(std::move(inputs[i]));
          op->children[i] = std::move(inputs[i].op);
        }
        Spread::Kind kind = allReplicated    ? Spread::Kind::kReplicated
                            : allDistributed ? Spread::Kind::kAnywhere
                                             : Spread::Kind::kCoordinator;
        return {std::move(op), Spread{kind, {}, {}}};
      }
    }
    SHOAL_UNREACHABLE("operator kind {}", static_cast<int>(op->kind()));
  }

  /// Records which of each operator's output columns the operators above it read (before any rewrite), so that
  /// an exchange sends only those: a scan also outputs the columns its own filters read.
  void findNeededColumns(const LogicalOperator& op, const std::set<ColumnId>& needed) {
    needed_[&op] = needed;
    auto reads = [](const std::vector<ExpressionPtr>& expressions, std::set<ColumnId>& into) {
      for (const auto& expression : expressions) {
        if (expression) sql::collectColumns(*expression, into);
      }
    };
    std::set<ColumnId> below = needed;
    switch (op.kind()) {
      case LogicalOperatorKind::kFilter:
        reads(static_cast<const sql::LogicalFilter&>(op).conditions, below);
        break;
      case LogicalOperatorKind::kProjectSet:
        for (const auto& function : static_cast<const sql::LogicalProjectSet&>(op).functions) {
          reads(function.arguments, below);
        }
        break;
      case LogicalOperatorKind::kProject:
        below.clear();
        reads(static_cast<const sql::LogicalProject&>(op).expressions, below);
        break;
      case LogicalOperatorKind::kJoin: {
        const auto& join = static_cast<const sql::LogicalJoin&>(op);
        reads(join.conditions, below);
        if (join.nullAwareCondition) sql::collectColumns(*join.nullAwareCondition, below);
        break;
      }
      case LogicalOperatorKind::kAggregate: {
        const auto& aggregate = static_cast<const sql::LogicalAggregate&>(op);
        below.clear();
        reads(aggregate.groups, below);
        for (const auto& call : aggregate.aggregates) {
          sql::forEachAggregateInput(call, [&](const engine::Expression& input) { sql::collectColumns(input, below); });
        }
        break;
      }
      case LogicalOperatorKind::kSort:
        for (const auto& key : static_cast<const sql::LogicalSort&>(op).keys)
          sql::collectColumns(*key.expression, below);
        break;
      case LogicalOperatorKind::kWindow:
        sql::forEachExpression(op,
                               [&](const engine::Expression& expression) { sql::collectColumns(expression, below); });
        break;
      case LogicalOperatorKind::kUnionAll:
        // Inputs line up by position: every column of each is read.
        for (const auto& child : op.children) {
          std::set<ColumnId> all;
          for (const auto& column : child->outputColumns()) all.insert(column.id);
          findNeededColumns(*child, all);
        }
        return;
      default:
        break;
    }
    for (const auto& child : op.children) {
      std::set<ColumnId> own;
      for (const auto& column : child->outputColumns()) {
        if (below.count(column.id)) own.insert(column.id);
      }
      findNeededColumns(*child, own);
    }
  }

  /// Moves `input`'s rows through a new exchange; returns the exchange's input on the receiving side.
  Placed exchange(Placed input, FragmentOutput output, const std::vector<ColumnId>& keys,
                  std::vector<uint32_t> destinations) {
    // Only the columns that later operators read travel.
    if (auto needed = needed_.find(input.op.get()); needed != needed_.end()) {
      std::vector<PlanColumn> outputs = input.op->outputColumns();
      std::set<ColumnId> keep = needed->second;
      keep.insert(keys.begin(), keys.end());
      if (keep.size() < outputs.size()) {
        auto project = std::make_unique<sql::LogicalProject>();
        for (const auto& column : outputs) {
          if (!keep.count(column.id)) continue;
          project->expressions.push_back(sql::columnRef(column));
          project->ids.push_back(column.id);
          project->names.push_back(column.name);
        }
        project->estimatedRows = input.op->estimatedRows;
        project->children.push_back(std::move(input.op));
        input.op = std::move(project);
      }
    }
    PlanFragment fragment;
    fragment.id = static_cast<uint32_t>(out_.fragments.size());
    fragment.exchangeId = (queryId_ << 8) | (fragment.id + 1);
    fragment.output = output;
    fragment.onFirstWorkerOnly = input.spread.kind == Spread::Kind::kReplicated;
    std::vector<PlanColumn> columns = input.op->outputColumns();
    for (ColumnId key : keys) {
      auto found = std::find_if(columns.begin(), columns.end(), [&](const PlanColumn& c) { return c.id == key; });
      SHOAL_CHECK(found != columns.end(), "exchange key {} is not an output column", key);
      fragment.keyColumns.push_back(static_cast<size_t>(found - columns.begin()));
    }
    fragment.destinations = destinations;
    collectExchangeInputs(*input.op, fragment.inputs);
    const double rows = input.op->estimatedRows;
    for (const auto& column : columns) fragment.plan.columnNames.push_back(column.name);
    fragment.plan.root = std::move(input.op);

    auto scan = std::make_unique<sql::LogicalScan>();
    scan->exchangeInput = fragment.exchangeId;
    scan->table.name = "fragment " + std::to_string(fragment.id);
    scan->table.isSystemView = false;
    scan->alias = scan->table.name;
    for (size_t i = 0; i < columns.size(); ++i) {
      scan->table.columns.push_back({columns[i].name, columns[i].type});
      scan->tableColumns.push_back(i);
      scan->columns.push_back(columns[i]);
    }
    scan->estimatedRows = rows;
    const uint64_t exchangeId = fragment.exchangeId;
    out_.fragments.push_back(std::move(fragment));

    Spread spread;
    switch (output) {
      case FragmentOutput::kRepartition:
        spread = Spread{Spread::Kind::kHashed, Spread::single(keys), std::move(destinations)};
        break;
      case FragmentOutput::kBroadcast:
        spread.kind = Spread::Kind::kReplicated;
        break;
      case FragmentOutput::kGather:
        spread.kind = Spread::Kind::kCoordinator;
        break;
    }
    exchangeSpreads_[exchangeId] = spread;
    return {std::move(scan), std::move(spread)};
  }

  /// ORDER BY over rows spread across the workers: each worker sorts its part, and the coordinator merges the
  /// sorted streams of the gather (DistributedPlan::mergedGathers). Only for keys that are columns of the input.
  std::optional<Placed> mergeSortedParts(const sql::LogicalSort& sort, Placed& input) {
    std::vector<PlanColumn> columns = input.op->outputColumns();
    std::vector<std::pair<ColumnId, const sql::SortKey*>> keys;
    for (const auto& key : sort.keys) {
      if (key.expression->kind() != engine::ExpressionKind::kColumnRef) return std::nullopt;
      keys.emplace_back(
          static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(*key.expression).columnIndex()), &key);
    }
    auto localSort = std::make_unique<sql::LogicalSort>();
    for (const auto& key : sort.keys) {
      localSort->keys.push_back(sql::SortKey{sql::copyExpression(*key.expression), key.ascending, key.nullsFirst});
    }
    localSort->estimatedRows = input.op->estimatedRows;
    localSort->children.push_back(std::move(input.op));
    Placed gathered = gather(Placed{std::move(localSort), input.spread});
    auto& scan = static_cast<sql::LogicalScan&>(*gathered.op);
    const PlanFragment& producer = out_.producerOf(*scan.exchangeInput);
    std::vector<PlanColumn> sent = producer.plan.root->outputColumns();
    std::vector<engine::SortColumn> positions;
    std::vector<std::string> names;
    for (const auto& [keyId, key] : keys) {
      const ColumnId id = keyId;  // a lambda may not capture a structured binding (clang before 16)
      auto found = std::find_if(sent.begin(), sent.end(), [&](const PlanColumn& c) { return c.id == id; });
      SHOAL_CHECK(found != sent.end(), "sort key {} does not reach the coordinator", id);
      positions.push_back({static_cast<size_t>(found - sent.begin()), key->ascending, key->nullsFirst});
      names.push_back(found->name);
    }
    out_.mergedGathers[*scan.exchangeInput] = std::move(positions);
    scan.table.name += fmt::format(" merged on ({})", fmt::join(names, ", "));
    return gathered;
  }

  Placed gather(Placed input) {
    if (input.spread.kind == Spread::Kind::kCoordinator) return input;
    return exchange(std::move(input), FragmentOutput::kGather, {}, {});
  }

 private:
  /// The destinations of a repartition onto every worker. In the order of the biggest hashed table's
  /// partitions when it has one on every worker, so that rows repartitioned on its key land where its own rows
  /// are and a later join with it stays local.
  std::vector<uint32_t> allNodes() const {
    if (!canonicalOrder_.empty()) return canonicalOrder_;
    std::vector<uint32_t> nodes(out_.workerNames.size());
    for (uint32_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
    return nodes;
  }

 public:
  /// Finds the order allNodes() uses, before placing anything.
  void choosePartitionOrder(const LogicalOperator& op) {
    if (op.kind() == LogicalOperatorKind::kScan) {
      const auto& scan = static_cast<const sql::LogicalScan&>(op);
      auto table = scan.exchangeInput ? nullptr : tables_({scan.table.schema, scan.table.name});
      if (table && table->distribution == Distribution::kHash && table->placement.size() == out_.workerNames.size() &&
          table->rowCount >= canonicalRows_) {
        std::vector<uint32_t> nodes;
        std::set<uint32_t> distinct;
        for (const auto& name : table->placement) {
          for (uint32_t i = 0; i < out_.workerNames.size(); ++i) {
            if (out_.workerNames[i] == name && distinct.insert(i).second) nodes.push_back(i);
          }
        }
        if (nodes.size() == out_.workerNames.size()) {
          canonicalOrder_ = std::move(nodes);
          canonicalRows_ = table->rowCount;
        }
      }
    }
    for (const auto& child : op.children) choosePartitionOrder(*child);
  }

 private:
  bool hasWorker(const std::string& name) const {
    return std::find(out_.workerNames.begin(), out_.workerNames.end(), name) != out_.workerNames.end();
  }

  uint32_t nodeNamed(const std::string& name, const std::string& table) const {
    for (uint32_t i = 0; i < out_.workerNames.size(); ++i) {
      if (out_.workerNames[i] == name) return i;
    }
    SHOAL_USER_FAIL(SqlState::kConnectionFailure, "worker \"{}\", which holds a partition of table \"{}\", is not up",
                    name, table);
  }

  Placed placeScan(LogicalOperatorPtr op) {
    auto& scan = static_cast<sql::LogicalScan&>(*op);
    if (scan.exchangeInput) {
      // A second reader of an exchange this planner made (see reduceAggregation).
      Spread spread = exchangeSpreads_.at(*scan.exchangeInput);
      return {std::move(op), std::move(spread)};
    }
    auto table = tables_({scan.table.schema, scan.table.name});
    if (!table) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", scan.table.name);
    std::vector<uint32_t> nodes;
    for (const auto& name : table->placement) {
      // A replicated table is read from the copies of the workers up; a partition must be on one that is.
      if (table->distribution == Distribution::kReplicated && !hasWorker(name)) continue;
      nodes.push_back(nodeNamed(name, table->name));
    }
    Spread spread;
    switch (table->distribution) {
      case Distribution::kReplicated:
        if (nodes.size() < out_.workerNames.size()) {
          SHOAL_USER_FAIL(SqlState::kObjectNotInPrerequisiteState,
                          "replicated table \"{}\" has copies on {} of the {} workers up; load it again", table->name,
                          nodes.size(), out_.workerNames.size());
        }
        spread.kind = Spread::Kind::kReplicated;
        break;
      case Distribution::kRandom:
        spread.kind = Spread::Kind::kAnywhere;
        break;
      case Distribution::kHash: {
        spread = Spread{Spread::Kind::kHashed, {}, nodes};
        for (size_t column : table->distributionColumns) {
          auto read = std::find(scan.tableColumns.begin(), scan.tableColumns.end(), column);
          if (read == scan.tableColumns.end()) {
            spread = Spread{};  // the key is not read: the rows are still spread, by nothing we can name
            break;
          }
          spread.keys.push_back({scan.columns[static_cast<size_t>(read - scan.tableColumns.begin())].id});
        }
        break;
      }
    }
    return {std::move(op), std::move(spread)};
  }

  Placed placeProject(LogicalOperatorPtr op) {
    auto& project = static_cast<sql::LogicalProject&>(*op);
    Placed child = place(std::move(op->children[0]));
    op->children[0] = std::move(child.op);
    Spread spread = child.spread;
    if (spread.kind == Spread::Kind::kHashed) {
      for (auto& key : spread.keys) {
        std::set<ColumnId> renamed;
        for (size_t i = 0; i < project.expressions.size(); ++i) {
          auto id = columnIdOf(*project.expressions[i]);
          if (id && key.count(*id)) renamed.insert(project.ids[i]);
        }
        if (renamed.empty()) {
          spread = Spread{};
          break;
        }
        key = std::move(renamed);
      }
    }
    return {std::move(op), std::move(spread)};
  }

  /// The equalities between a left and a right column among the join's conditions, with types that hash alike.
  static std::vector<std::pair<ColumnId, ColumnId>> equiPairs(const sql::LogicalJoin& join, const LogicalOperator& left,
                                                              const LogicalOperator& right) {
    std::map<ColumnId, LogicalType> leftTypes;
    std::map<ColumnId, LogicalType> rightTypes;
    for (const auto& column : left.outputColumns()) leftTypes.emplace(column.id, column.type);
    for (const auto& column : right.outputColumns()) rightTypes.emplace(column.id, column.type);
    std::vector<std::pair<ColumnId, ColumnId>> pairs;
    for (const auto& condition : join.conditions) {
      if (condition->kind() != engine::ExpressionKind::kFunction) continue;
      const auto& function = static_cast<const engine::FunctionExpression&>(*condition);
      if (function.function() != engine::ScalarFunction::kEqual || function.arguments().size() != 2) continue;
      auto a = columnIdOf(*function.arguments()[0]);
      auto b = columnIdOf(*function.arguments()[1]);
      if (!a || !b) continue;
      if (leftTypes.count(*b) && rightTypes.count(*a)) std::swap(a, b);
      if (!leftTypes.count(*a) || !rightTypes.count(*b)) continue;
      if (!hashCompatible(leftTypes.at(*a), rightTypes.at(*b))) continue;
      pairs.emplace_back(*a, *b);
    }
    return pairs;
  }

  /// For a side hashed on columns that the join equates with the other side's: those other columns, in key order.
  static std::optional<std::vector<ColumnId>> matchingKeys(const Spread& hashed,
                                                           const std::vector<std::pair<ColumnId, ColumnId>>& pairs,
                                                           bool hashedIsLeft) {
    if (hashed.kind != Spread::Kind::kHashed || hashed.keys.empty()) return std::nullopt;
    std::vector<ColumnId> other;
    for (const auto& key : hashed.keys) {
      auto pair = std::find_if(pairs.begin(), pairs.end(),
                               [&](const auto& p) { return key.count(hashedIsLeft ? p.first : p.second) > 0; });
      if (pair == pairs.end()) return std::nullopt;
      other.push_back(hashedIsLeft ? pair->second : pair->first);
    }
    return other;
  }

  /// The aggregation under `op` (through projections and filters) and the input column each of `keys` is
  /// grouped on, when `keys` are all plain group columns of it.
  static std::optional<std::pair<sql::LogicalAggregate*, std::vector<ColumnId>>> groupedBy(LogicalOperator& op,
                                                                                           std::vector<ColumnId> keys) {
    LogicalOperator* node = &op;
    while (node->kind() == LogicalOperatorKind::kProject || node->kind() == LogicalOperatorKind::kFilter) {
      if (node->kind() == LogicalOperatorKind::kProject) {
        const auto& project = static_cast<const sql::LogicalProject&>(*node);
        for (auto& key : keys) {
          auto at = std::find(project.ids.begin(), project.ids.end(), key);
          if (at == project.ids.end()) return std::nullopt;
          auto input = columnIdOf(*project.expressions[static_cast<size_t>(at - project.ids.begin())]);
          if (!input) return std::nullopt;
          key = *input;
        }
      }
      node = node->children[0].get();
    }
    if (node->kind() != LogicalOperatorKind::kAggregate) return std::nullopt;
    auto& aggregate = static_cast<sql::LogicalAggregate&>(*node);
    for (auto& key : keys) {
      auto at = std::find(aggregate.groupIds.begin(), aggregate.groupIds.end(), key);
      if (at == aggregate.groupIds.end()) return std::nullopt;
      auto input = columnIdOf(*aggregate.groups[static_cast<size_t>(at - aggregate.groupIds.begin())]);
      if (!input) return std::nullopt;
      key = *input;
    }
    return std::pair{&aggregate, keys};
  }

  /// A join of an aggregation grouped by the join keys with a much smaller input computes (and shuffles) every
  /// group, only to drop those without a partner. Broadcasting the small input once lets it also reduce the
  /// aggregation's input with a semi join, before the partial aggregation: the second reader of that
  /// broadcast (TPC-H Q17 then aggregates the lineitems of 200 parts, not of 200,000). Returns the placed small
  /// side, or nothing when the pattern does not apply.
  std::optional<Placed> reduceAggregation(sql::LogicalJoin& join) {
    if (join.type != sql::JoinType::kInner && join.type != sql::JoinType::kSemi) return std::nullopt;
    auto pairs = equiPairs(join, *join.children[0], *join.children[1]);
    if (pairs.empty()) return std::nullopt;
    std::vector<ColumnId> leftKeys;
    for (const auto& pair : pairs) leftKeys.push_back(pair.first);
    auto grouped = groupedBy(*join.children[0], leftKeys);
    if (!grouped) return std::nullopt;
    auto& [aggregate, inputKeys] = *grouped;
    const double small = join.children[1]->estimatedRows;
    const double groups = aggregate->estimatedRows;
    const double input = aggregate->children[0]->estimatedRows;
    // It pays when the small side has far fewer rows than there are groups.
    if (small < 0 || groups < 0 || input < 0 || small > 1e6 || small * 10 > groups) return std::nullopt;
    Placed right = place(std::move(join.children[1]));
    if (!right.spread.distributed()) return right;  // replicated or on the coordinator: nothing to broadcast
    const std::vector<PlanColumn> columns = right.op->outputColumns();
    Placed broadcast = exchange(std::move(right), FragmentOutput::kBroadcast, {}, {});
    const auto& reader = static_cast<const sql::LogicalScan&>(*broadcast.op);
    auto second = std::make_unique<sql::LogicalScan>();
    second->exchangeInput = reader.exchangeInput;
    second->table = reader.table;
    second->alias = reader.alias;
    second->tableColumns = reader.tableColumns;
    second->columns = reader.columns;
    second->estimatedRows = reader.estimatedRows;
    std::map<ColumnId, LogicalType> rightTypes;
    for (const auto& column : columns) rightTypes.emplace(column.id, column.type);
    auto semi = std::make_unique<sql::LogicalJoin>();
    semi->type = sql::JoinType::kSemi;
    std::map<ColumnId, LogicalType> inputTypes;
    for (const auto& column : aggregate->children[0]->outputColumns()) inputTypes.emplace(column.id, column.type);
    for (size_t i = 0; i < pairs.size(); ++i) {
      std::vector<ExpressionPtr> arguments;
      arguments.push_back(sql::columnRef(PlanColumn{inputKeys[i], inputTypes.at(inputKeys[i]), "key"}));
      arguments.push_back(sql::columnRef(PlanColumn{pairs[i].second, rightTypes.at(pairs[i].second), "key"}));
      semi->conditions.push_back(std::make_unique<engine::FunctionExpression>(
          engine::ScalarFunction::kEqual, std::move(arguments), LogicalType::boolean()));
    }
    semi->estimatedRows = input * std::min(1.0, small / std::max(groups, 1.0));
    semi->children.push_back(std::move(aggregate->children[0]));
    semi->children.push_back(std::move(second));
    aggregate->children[0] = std::move(semi);
    return broadcast;
  }

  Placed placeJoin(LogicalOperatorPtr op) {
    auto& join = static_cast<sql::LogicalJoin&>(*op);
    std::optional<Placed> reducedRight = reduceAggregation(join);
    Placed left = place(std::move(op->children[0]));
    Placed right = reducedRight ? std::move(*reducedRight) : place(std::move(op->children[1]));
    // Every join type but inner must see each left row next to every right row it could match.
    const bool innerJoin = join.type == sql::JoinType::kInner;
    Spread result;
    auto finish = [&](Placed l, Placed r, Spread spread) {
      op->children[0] = std::move(l.op);
      op->children[1] = std::move(r.op);
      return Placed{std::move(op), std::move(spread)};
    };
    if (join.type == sql::JoinType::kFull || left.spread.kind == Spread::Kind::kCoordinator ||
        right.spread.kind == Spread::Kind::kCoordinator) {
      return finish(gather(std::move(left)), gather(std::move(right)), Spread{Spread::Kind::kCoordinator, {}, {}});
    }
    if (right.spread.kind == Spread::Kind::kReplicated) {
      Spread spread = left.spread;
      return finish(std::move(left), std::move(right), spread);
    }
    if (left.spread.kind == Spread::Kind::kReplicated) {
      if (innerJoin) {
        Spread spread = right.spread;
        return finish(std::move(left), std::move(right), spread);
      }
      right = exchange(std::move(right), FragmentOutput::kBroadcast, {}, {});
      return finish(std::move(left), std::move(right), Spread{Spread::Kind::kReplicated, {}, {}});
    }
    const auto pairs = equiPairs(join, *left.op, *right.op);
    // An inner join's output is partitioned on either side's key columns alike (they are equal in every row).
    auto joined = [&](Spread spread, const Spread& other) {
      if (innerJoin && spread.kind == Spread::Kind::kHashed && other.kind == Spread::Kind::kHashed &&
          other.keys.size() == spread.keys.size()) {
        for (size_t i = 0; i < spread.keys.size(); ++i)
          spread.keys[i].insert(other.keys[i].begin(), other.keys[i].end());
      }
      return spread;
    };
    // Co-partitioned: both hashed the same way on columns the join equates.
    if (left.spread.kind == Spread::Kind::kHashed && right.spread.kind == Spread::Kind::kHashed &&
        left.spread.nodes == right.spread.nodes && left.spread.keys.size() == right.spread.keys.size()) {
      bool colocated = true;
      for (size_t i = 0; i < left.spread.keys.size() && colocated; ++i) {
        colocated = std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) {
          return left.spread.keys[i].count(p.first) > 0 && right.spread.keys[i].count(p.second) > 0;
        });
      }
      if (colocated) {
        Spread spread = joined(left.spread, right.spread);
        return finish(std::move(left), std::move(right), spread);
      }
    }
    const double leftBytes = estimatedBytes(*left.op);
    const double rightBytes = estimatedBytes(*right.op);
    const double others = static_cast<double>(out_.workerNames.size() - 1);
    // The candidates, by the bytes they move.
    enum class Move { kLeftToRight, kRightToLeft, kBroadcastRight, kBroadcastLeft, kBoth };
    std::vector<std::pair<double, Move>> candidates;
    const auto leftAsRight = matchingKeys(right.spread, pairs, false);  // left columns matching right's keys
    const auto rightAsLeft = matchingKeys(left.spread, pairs, true);    // right columns matching left's keys
    if (leftAsRight) candidates.emplace_back(leftBytes, Move::kLeftToRight);
    if (rightAsLeft) candidates.emplace_back(rightBytes, Move::kRightToLeft);
    candidates.emplace_back(rightBytes * others, Move::kBroadcastRight);
    if (innerJoin) candidates.emplace_back(leftBytes * others, Move::kBroadcastLeft);
    if (!pairs.empty()) candidates.emplace_back(leftBytes + rightBytes, Move::kBoth);
    const Move move = std::min_element(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
                        return a.first < b.first;
                      })->second;
    switch (move) {
      case Move::kLeftToRight: {
        auto nodes = right.spread.nodes;
        left = exchange(std::move(left), FragmentOutput::kRepartition, *leftAsRight, nodes);
        Spread spread = joined(left.spread, right.spread);
        return finish(std::move(left), std::move(right), spread);
      }
      case Move::kRightToLeft: {
        auto nodes = left.spread.nodes;
        right = exchange(std::move(right), FragmentOutput::kRepartition, *rightAsLeft, nodes);
        Spread spread = joined(left.spread, right.spread);
        return finish(std::move(left), std::move(right), spread);
      }
      case Move::kBroadcastRight: {
        right = exchange(std::move(right), FragmentOutput::kBroadcast, {}, {});
        Spread spread = left.spread;
        return finish(std::move(left), std::move(right), spread);
      }
      case Move::kBroadcastLeft: {
        left = exchange(std::move(left), FragmentOutput::kBroadcast, {}, {});
        Spread spread = right.spread;
        return finish(std::move(left), std::move(right), spread);
      }
      case Move::kBoth: {
        std::vector<ColumnId> leftKeys;
        std::vector<ColumnId> rightKeys;
        for (const auto& [l, r] : pairs) {
          leftKeys.push_back(l);
          rightKeys.push_back(r);
        }
        left = exchange(std::move(left), FragmentOutput::kRepartition, leftKeys, allNodes());
        right = exchange(std::move(right), FragmentOutput::kRepartition, rightKeys, allNodes());
        Spread spread = joined(left.spread, right.spread);
        return finish(std::move(left), std::move(right), spread);
      }
    }
    SHOAL_UNREACHABLE("join placement");
  }

  ColumnId freshId() { return nextId_++; }

  Placed placeAggregate(LogicalOperatorPtr op) {
    auto& aggregate = static_cast<sql::LogicalAggregate&>(*op);
    if (LogicalOperatorPtr split = splitDistinctAggregates(aggregate, nextId_)) {
      retired_.push_back(std::move(op));
      return place(std::move(split));
    }
    Placed child = place(std::move(op->children[0]));
    // Group output id of each input column grouped on as is.
    std::map<ColumnId, ColumnId> groupOutputOf;
    std::vector<ColumnId> groupColumns;
    for (size_t i = 0; i < aggregate.groups.size(); ++i) {
      if (auto id = columnIdOf(*aggregate.groups[i])) {
        groupOutputOf.emplace(*id, aggregate.groupIds[i]);
        groupColumns.push_back(*id);
      }
    }
    auto local = [&](Placed input, Spread spread) {
      op->children[0] = std::move(input.op);
      return Placed{std::move(op), std::move(spread)};
    };
    if (!child.spread.distributed()) {
      Spread spread = child.spread;
      return local(std::move(child), spread);
    }
    // The group output of each key, when every key is grouped on as is.
    auto groupedKeys = [&](const Spread& spread) -> std::optional<std::vector<std::set<ColumnId>>> {
      if (spread.kind != Spread::Kind::kHashed || spread.keys.empty()) return std::nullopt;
      std::vector<std::set<ColumnId>> keys;
      for (const auto& key : spread.keys) {
        std::set<ColumnId> outputs;
        for (ColumnId column : key) {
          if (auto found = groupOutputOf.find(column); found != groupOutputOf.end()) outputs.insert(found->second);
        }
        if (outputs.empty()) return std::nullopt;
        keys.push_back(std::move(outputs));
      }
      return keys;
    };
    // Already partitioned on some of the group keys: every group is whole on one node.
    if (auto keys = groupedKeys(child.spread)) {
      Spread spread{Spread::Kind::kHashed, std::move(*keys), child.spread.nodes};
      return local(std::move(child), spread);
    }
    // DISTINCT and collecting aggregates (array_agg, string_agg) need all of a group's values in one place.
    const bool needsWholeGroups = std::any_of(
        aggregate.aggregates.begin(), aggregate.aggregates.end(),
        [](const sql::AggregateCall& call) { return call.distinct || engine::isCollectingAggregate(call.function); });
    if (needsWholeGroups) {
      if (!groupColumns.empty()) {
        child = exchange(std::move(child), FragmentOutput::kRepartition, groupColumns, allNodes());
        Spread spread{Spread::Kind::kHashed, *groupedKeys(child.spread), allNodes()};
        return local(std::move(child), spread);
      }
      if (auto argument = singleDistinctArgument(aggregate); argument && aggregate.groups.empty()) {
        child = exchange(std::move(child), FragmentOutput::kRepartition, {*argument}, allNodes());
        return splitPhases(std::move(op), std::move(child));
      }
      child = gather(std::move(child));
      return local(std::move(child), Spread{Spread::Kind::kCoordinator, {}, {}});
    }
    return splitPhases(std::move(op), std::move(child));
  }

  /// A window needs each partition's rows on one node: where the input is hashed on some of the PARTITION BY
  /// columns it runs in place; otherwise the rows are repartitioned on them, or gathered to the coordinator
  /// when there is no PARTITION BY.
  Placed placeWindow(LogicalOperatorPtr op) {
    auto& window = static_cast<sql::LogicalWindow&>(*op);
    Placed child = place(std::move(op->children[0]));
    std::vector<ColumnId> keys;
    for (const auto& key : window.partitionBy) {
      if (auto id = columnIdOf(*key)) keys.push_back(*id);
    }
    if (child.spread.distributed()) {
      const std::set<ColumnId> keySet(keys.begin(), keys.end());
      const bool partitioned =
          child.spread.kind == Spread::Kind::kHashed && !child.spread.keys.empty() && !keySet.empty() &&
          std::all_of(child.spread.keys.begin(), child.spread.keys.end(), [&](const std::set<ColumnId>& key) {
            return std::any_of(key.begin(), key.end(), [&](ColumnId id) { return keySet.contains(id); });
          });
      if (keys.empty() || keys.size() != window.partitionBy.size()) {
        child = gather(std::move(child));
      } else if (!partitioned) {
        child = exchange(std::move(child), FragmentOutput::kRepartition, keys, allNodes());
      }
    }
    op->children[0] = std::move(child.op);
    return {std::move(op), child.spread};
  }

  /// The column that every aggregate takes DISTINCT, when they all do and are COUNT, SUM, MIN or MAX of it.
  static std::optional<ColumnId> singleDistinctArgument(const sql::LogicalAggregate& aggregate) {
    std::optional<ColumnId> argument;
    for (const auto& call : aggregate.aggregates) {
      if (!call.distinct || !call.argument || call.function == AggregateFunction::kAvg ||
          engine::isCollectingAggregate(call.function)) {
        return std::nullopt;
      }
      auto id = columnIdOf(*call.argument);
      if (!id || (argument && *argument != *id)) return std::nullopt;
      argument = id;
    }
    return argument;
  }

  /// Two-phase aggregation: `op` runs as a partial aggregate where `child` is, its groups move (repartitioned on
  /// the group keys, or gathered when there are none), and a final aggregate combines them.
  Placed splitPhases(LogicalOperatorPtr op, Placed child) {
    auto& aggregate = static_cast<sql::LogicalAggregate&>(*op);
    auto partial = std::make_unique<sql::LogicalAggregate>();
    auto final = std::make_unique<sql::LogicalAggregate>();
    const std::vector<PlanColumn> outputs = aggregate.outputColumns();
    for (size_t i = 0; i < aggregate.groups.size(); ++i) {
      const ColumnId partialId = freshId();
      const LogicalType type = aggregate.groups[i]->type();
      partial->groups.push_back(std::move(aggregate.groups[i]));
      partial->groupIds.push_back(partialId);
      partial->groupNames.push_back(aggregate.groupNames[i]);
      final->groups.push_back(sql::columnRef(PlanColumn{partialId, type, aggregate.groupNames[i]}));
      final->groupIds.push_back(aggregate.groupIds[i]);
      final->groupNames.push_back(aggregate.groupNames[i]);
    }
    // AVG's final value is computed over its final sum and count; every other output passes through.
    std::map<ColumnId, ExpressionPtr> averages;
    auto addPhase = [&](AggregateFunction function, ExpressionPtr argument, LogicalType partialType,
                        AggregateFunction finalFunction, LogicalType finalType, ColumnId finalId,
                        const std::string& name) {
      const ColumnId partialId = freshId();
      partial->aggregates.push_back(
          sql::AggregateCall{function, std::move(argument), false, partialType, partialId, name, nullptr, {}});
      final->aggregates.push_back(sql::AggregateCall{finalFunction,
                                                     sql::columnRef(PlanColumn{partialId, partialType, name}),
                                                     false,
                                                     finalType,
                                                     finalId,
                                                     name,
                                                     nullptr,
                                                     {}});
    };
    for (auto& call : aggregate.aggregates) {
      switch (call.function) {
        case AggregateFunction::kCountStar:
        case AggregateFunction::kCount:
          addPhase(call.distinct ? AggregateFunction::kCount : call.function, std::move(call.argument),
                   LogicalType::bigInt(), AggregateFunction::kSum, LogicalType::bigInt(), call.id, call.name);
          if (call.distinct) partial->aggregates.back().distinct = true;
          break;
        case AggregateFunction::kSum:
        case AggregateFunction::kMin:
        case AggregateFunction::kMax:
          addPhase(call.function, std::move(call.argument), call.resultType,
                   call.function == AggregateFunction::kSum ? AggregateFunction::kSum : call.function, call.resultType,
                   call.id, call.name);
          if (call.distinct) partial->aggregates.back().distinct = true;
          break;
        case AggregateFunction::kAvg: {
          sql::AverageParts parts = sql::averageParts(std::move(call.argument));
          const LogicalType sumType = parts.sumType;
          const ColumnId sumId = freshId();
          const ColumnId countId = freshId();
          addPhase(AggregateFunction::kSum, std::move(parts.summed), sumType, AggregateFunction::kSum, sumType, sumId,
                   call.name + "_sum");
          addPhase(AggregateFunction::kCount, std::move(parts.counted), LogicalType::bigInt(), AggregateFunction::kSum,
                   LogicalType::bigInt(), countId, call.name + "_count");
          std::vector<ExpressionPtr> arguments;
          arguments.push_back(sql::columnRef(PlanColumn{sumId, sumType, call.name + "_sum"}));
          arguments.push_back(sql::columnRef(PlanColumn{countId, LogicalType::bigInt(), call.name + "_count"}));
          averages[call.id] = std::make_unique<engine::FunctionExpression>(engine::ScalarFunction::kAverageOfSum,
                                                                           std::move(arguments), call.resultType);
          break;
        }
        case AggregateFunction::kArrayAgg:
        case AggregateFunction::kStringAgg:
          SHOAL_UNREACHABLE("collecting aggregates are never split into phases");
        case AggregateFunction::kApproxCountDistinct:
        case AggregateFunction::kApproxPercentile: {
          // Each node's sketch travels as one encoded state; the final phase merges them (and keeps the fraction).
          const ColumnId partialId = freshId();
          partial->aggregates.push_back(sql::AggregateCall{engine::sketchPartialOf(call.function),
                                                           std::move(call.argument),
                                                           false,
                                                           LogicalType::text(),
                                                           partialId,
                                                           call.name,
                                                           nullptr,
                                                           {}});
          sql::AggregateCall combine{call.function,
                                     sql::columnRef(PlanColumn{partialId, LogicalType::text(), call.name}),
                                     false,
                                     call.resultType,
                                     call.id,
                                     call.name,
                                     std::move(call.secondArgument),
                                     {}};
          combine.combinesPartials = true;
          final->aggregates.push_back(std::move(combine));
          break;
        }
        default: {
          // The statistics: each node's moments travel as one encoded state, combined in the final phase.
          SHOAL_CHECK(engine::isMomentAggregate(call.function), "{} cannot be split into phases",
                      engine::aggregateFunctionName(call.function));
          const ColumnId partialId = freshId();
          partial->aggregates.push_back(sql::AggregateCall{AggregateFunction::kMoments,
                                                           std::move(call.argument),
                                                           call.distinct,
                                                           LogicalType::text(),
                                                           partialId,
                                                           call.name,
                                                           std::move(call.secondArgument),
                                                           {}});
          sql::AggregateCall combine{
              call.function, sql::columnRef(PlanColumn{partialId, LogicalType::text(), call.name}),
              false,         call.resultType,
              call.id,       call.name,
              nullptr,       {}};
          combine.combinesPartials = true;
          final->aggregates.push_back(std::move(combine));
          break;
        }
      }
    }
    const double groups = aggregate.estimatedRows;
    const double workers = static_cast<double>(out_.workerNames.size());
    partial->estimatedRows = groups >= 0 ? groups * workers : -1;
    final->estimatedRows = groups;
    partial->children.push_back(std::move(child.op));
    Placed partialPlaced{std::move(partial), Spread{}};
    const auto& partialAggregate = static_cast<const sql::LogicalAggregate&>(*partialPlaced.op);
    Placed moved = partialAggregate.groupIds.empty() ? gather(std::move(partialPlaced))
                                                     : exchange(std::move(partialPlaced), FragmentOutput::kRepartition,
                                                                partialAggregate.groupIds, allNodes());
    final->children.push_back(std::move(moved.op));
    Spread spread = moved.spread;
    if (spread.kind == Spread::Kind::kHashed) spread.keys = Spread::single(final->groupIds);
    if (averages.empty()) {
      retired_.push_back(std::move(op));
      return {std::move(final), spread};
    }
    auto project = std::make_unique<sql::LogicalProject>();
    for (const auto& column : outputs) {
      auto average = averages.find(column.id);
      project->expressions.push_back(average != averages.end() ? std::move(average->second) : sql::columnRef(column));
      project->ids.push_back(column.id);
      project->names.push_back(column.name);
    }
    project->estimatedRows = groups;
    project->children.push_back(std::move(final));
    retired_.push_back(std::move(op));
    return {std::move(project), spread};
  }

  Placed placeLimit(LogicalOperatorPtr op) {
    auto& limit = static_cast<sql::LogicalLimit&>(*op);
    LogicalOperator* below = op->children[0].get();
    const bool topN = below->kind() == LogicalOperatorKind::kSort;
    Placed input = place(std::move(topN ? below->children[0] : op->children[0]));
    if (!input.spread.distributed()) {
      if (topN) {
        below->children[0] = std::move(input.op);
      } else {
        op->children[0] = std::move(input.op);
      }
      return {std::move(op), input.spread};
    }
    // Each node keeps its first limit + offset rows (in sort order for a top-N); the coordinator picks from those.
    if (limit.limit) {
      auto localLimit = std::make_unique<sql::LogicalLimit>();
      localLimit->limit = *limit.limit + limit.offset;
      localLimit->estimatedRows = op->estimatedRows;
      if (topN) {
        const auto& sort = static_cast<const sql::LogicalSort&>(*below);
        auto localSort = std::make_unique<sql::LogicalSort>();
        for (const auto& key : sort.keys) {
          localSort->keys.push_back(sql::SortKey{sql::copyExpression(*key.expression), key.ascending, key.nullsFirst});
        }
        localSort->estimatedRows = input.op->estimatedRows;
        localSort->children.push_back(std::move(input.op));
        localLimit->children.push_back(std::move(localSort));
      } else {
        localLimit->children.push_back(std::move(input.op));
      }
      input.op = std::move(localLimit);
    }
    Placed gathered = gather(std::move(input));
    if (topN) {
      below->children[0] = std::move(gathered.op);
    } else {
      op->children[0] = std::move(gathered.op);
    }
    return {std::move(op), gathered.spread};
  }

  DistributedPlan& out_;
  const TableFinder& tables_;
  uint64_t queryId_;
  ColumnId nextId_;
  std::vector<uint32_t> canonicalOrder_;
  uint64_t canonicalRows_ = 0;
  std::map<uint64_t, Spread> exchangeSpreads_;
  /// Keyed by address: an operator replaced during planning is kept here, so that no new one reuses its address.
  std::map<const LogicalOperator*, std::set<ColumnId>> needed_;
  std::vector<LogicalOperatorPtr> retired_;
};

}  // namespace

DistributedPlan planDistributed(sql::LogicalPlan plan, const std::vector<LiveWorker>& workers,
                                const TableFinder& tables, uint64_t queryId) {
  if (workers.empty()) SHOAL_USER_FAIL(SqlState::kConnectionFailure, "no worker is up");
  DistributedPlan out;
  out.queryId = queryId;
  for (const auto& worker : workers) {
    out.workerNames.push_back(worker.name);
    out.workerAddresses.push_back(worker.address);
    out.exchangeAddresses.push_back(worker.exchangeAddress);
  }
  Planner planner(out, tables, queryId & ((uint64_t{1} << 56) - 1), maxColumnId(*plan.root) + 1);
  planner.choosePartitionOrder(*plan.root);
  std::set<ColumnId> outputs;
  for (const auto& column : plan.root->outputColumns()) outputs.insert(column.id);
  planner.findNeededColumns(*plan.root, outputs);
  Placed root = planner.place(std::move(plan.root));
  root = planner.gather(std::move(root));
  out.coordinatorPlan.root = std::move(root.op);
  out.coordinatorPlan.columnNames = std::move(plan.columnNames);
  return out;
}

}  // namespace shoal::coordinator
