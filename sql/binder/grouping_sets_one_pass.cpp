// QueryBinder's GROUPING SETS, ROLLUP and CUBE in one pass over the input (as Spark's Expand does): each input row
// is repeated once per grouping set (a ProjectSet over generate_series(0, sets - 1), the set's number), with the
// keys the set leaves out made NULL; one aggregation then groups by the keys and the set's number. The input (a join,
// say) is computed once, where grouping_sets.cpp's union computes it once per set.
//
// An empty grouping set () gives its row even over no input rows. For it, one extra row (the "phantom") joins the
// repeated rows, in set () with every column NULL and a marker FALSE where the real rows have TRUE; each aggregate
// reads its argument only where the marker is TRUE. That leaves the aggregates right when they ignore NULLs, which
// all but array_agg do: with array_agg and an empty set, the binder keeps the union.

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sql/binder/expression_builders.h"
#include "sql/binder/query_binder.h"
#include "sql/plan/aggregate_phases.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

/// CASE WHEN set = s0 THEN v0 WHEN set = s1 THEN v1 ... ELSE otherwise END.
ExpressionPtr perSet(const PlanColumn& set, std::vector<std::pair<size_t, ExpressionPtr>> values,
                     ExpressionPtr otherwise, const LogicalType& type) {
  std::vector<ExpressionPtr> branches;
  for (auto& [number, value] : values) {
    branches.push_back(binaryOf(ScalarFunction::kEqual, LogicalType::boolean(), columnRef(set),
                                constantOf(Value::integer(static_cast<int32_t>(number)))));
    branches.push_back(std::move(value));
  }
  branches.push_back(std::move(otherwise));
  return functionOf(ScalarFunction::kCase, type, std::move(branches));
}

/// `aggregate` over its input grouped by all its keys first: the input's groups (the finest grouping set) below,
/// and above them the same keys and calls that combine the groups' values. `finishes` tells how each of
/// `aggregate`'s calls comes out of the calls above.
std::unique_ptr<LogicalAggregate> preAggregate(std::unique_ptr<LogicalAggregate> aggregate,
                                               std::vector<AggregateFinish>& finishes, ColumnIdGenerator& ids) {
  // Below: the input grouped by every key. Above: the same keys (renamed below) and the calls over its groups.
  auto groups = std::make_unique<LogicalAggregate>();
  auto above = std::make_unique<LogicalAggregate>();
  for (size_t key = 0; key < aggregate->groups.size(); ++key) {
    const PlanColumn column{ids.next(), aggregate->groups[key]->type(), aggregate->groupNames[key]};
    groups->groups.push_back(std::move(aggregate->groups[key]));
    groups->groupIds.push_back(column.id);
    groups->groupNames.push_back(column.name);
    above->groups.push_back(columnRef(column));
    above->groupIds.push_back(aggregate->groupIds[key]);
    above->groupNames.push_back(column.name);
  }
  PhasedCalls phases = splitIntoPhases(std::move(aggregate->aggregates), ids);
  groups->aggregates = std::move(phases.below);
  above->aggregates = std::move(phases.above);
  finishes = std::move(phases.finishes);
  groups->children.push_back(std::move(aggregate->children[0]));
  above->children.push_back(std::move(groups));
  return above;
}

}  // namespace

bool QueryBinder::groupingSetsFitOnePass(const LogicalAggregate& aggregate,
                                         const std::vector<std::vector<size_t>>& sets) {
  if (sets.size() < 2) return false;
  const bool hasEmptySet = std::any_of(sets.begin(), sets.end(), [](const auto& keys) { return keys.empty(); });
  if (!hasEmptySet) return true;
  // The phantom row's NULL argument would be an element of array_agg's array.
  return std::none_of(aggregate.aggregates.begin(), aggregate.aggregates.end(),
                      [](const AggregateCall& call) { return call.function == engine::AggregateFunction::kArrayAgg; });
}

LogicalOperatorPtr QueryBinder::aggregateGroupingSetsInOnePass(std::unique_ptr<LogicalAggregate> aggregate,
                                                               const std::vector<std::vector<size_t>>& sets,
                                                               const std::vector<GroupingCall>& calls,
                                                               const std::vector<std::vector<size_t>>& callKeys) {
  // When every aggregate combines from its values over parts of the input, the input is first grouped by all the
  // keys, and only those groups are repeated per set, not the input's rows.
  std::vector<AggregateFinish> finishes;
  const bool preAggregated = combinesFromParts(*aggregate);
  if (preAggregated) aggregate = preAggregate(std::move(aggregate), finishes, ids_);
  // The input columns the keys and aggregates read: those the repeated rows carry on.
  std::set<ColumnId> read;
  for (const auto& key : aggregate->groups) collectColumns(*key, read);
  for (const auto& call : aggregate->aggregates) {
    if (call.argument) collectColumns(*call.argument, read);
    if (call.secondArgument) collectColumns(*call.secondArgument, read);
    for (const auto& key : call.orderBy) collectColumns(*key.expression, read);
  }
  std::vector<PlanColumn> inputColumns;
  for (const auto& column : aggregate->children[0]->outputColumns()) {
    if (read.contains(column.id)) inputColumns.push_back(column);
  }
  std::optional<size_t> emptySet;
  for (size_t s = 0; s < sets.size(); ++s) {
    if (sets[s].empty()) emptySet = s;
  }

  // Each input row once per set, with the set's number.
  auto repeat = std::make_unique<LogicalProjectSet>();
  SetFunctionColumn number;
  number.function = engine::TableFunction::kGenerateSeries;
  number.arguments.push_back(constantOf(Value::integer(0)));
  number.arguments.push_back(constantOf(Value::integer(static_cast<int32_t>(sets.size() - 1))));
  number.column = PlanColumn{ids_.next(), LogicalType::integer(), "grouping_set"};
  PlanColumn set = number.column;
  repeat->functions.push_back(std::move(number));
  // Only the columns read travel on: ProjectSet copies each column it repeats.
  auto narrowed = std::make_unique<LogicalProject>();
  for (const auto& column : inputColumns) {
    narrowed->expressions.push_back(columnRef(column));
    narrowed->ids.push_back(column.id);
    narrowed->names.push_back(column.name);
  }
  narrowed->children.push_back(std::move(aggregate->children[0]));
  repeat->children.push_back(std::move(narrowed));
  LogicalOperatorPtr expanded = std::move(repeat);

  // With an empty set: the real rows, marked TRUE, and the phantom row of set (), marked FALSE.
  std::map<ColumnId, ColumnId> renamed;
  std::optional<PlanColumn> real;
  if (emptySet) {
    auto unionAll = std::make_unique<LogicalUnionAll>();
    auto rows = std::make_unique<LogicalProject>();
    auto phantom = std::make_unique<LogicalProject>();
    auto add = [&](ExpressionPtr rowValue, ExpressionPtr phantomValue, const PlanColumn& column) {
      rows->expressions.push_back(std::move(rowValue));
      phantom->expressions.push_back(std::move(phantomValue));
      for (auto* project : {rows.get(), phantom.get()}) {
        project->ids.push_back(ids_.next());
        project->names.push_back(column.name);
      }
      unionAll->columns.push_back(PlanColumn{ids_.next(), column.type, column.name});
      return unionAll->columns.back();
    };
    for (const auto& column : inputColumns) {
      renamed[column.id] = add(columnRef(column), constantOf(Value::null(column.type)), column).id;
    }
    const PlanColumn setBelow = set;
    set = add(columnRef(setBelow), constantOf(Value::integer(static_cast<int32_t>(*emptySet))), setBelow);
    real = add(constantOf(Value::boolean(true)), constantOf(Value::boolean(false)),
               PlanColumn{0, LogicalType::boolean(), "real_row"});
    rows->children.push_back(std::move(expanded));
    phantom->children.push_back(std::make_unique<LogicalSingleRow>());
    unionAll->children.push_back(std::move(rows));
    unionAll->children.push_back(std::move(phantom));
    expanded = std::move(unionAll);
  }
  auto remap = [&](const engine::Expression& expression) { return withRenamedColumns(expression, renamed); };
  // An aggregate reads only the real rows: elsewhere its argument is NULL, which it ignores.
  auto onRealRows = [&](ExpressionPtr argument) -> ExpressionPtr {
    if (!real || preAggregated) return argument;  // the extra row's partial values are NULL already
    const LogicalType type = argument->type();
    std::vector<ExpressionPtr> branches;
    branches.push_back(columnRef(*real));
    branches.push_back(std::move(argument));
    branches.push_back(constantOf(Value::null(type)));
    return functionOf(ScalarFunction::kCase, type, std::move(branches));
  };

  // One aggregation over every set: by the keys (each NULL in the sets without it) and the set's number.
  auto grouped = std::make_unique<LogicalAggregate>();
  std::vector<PlanColumn> keyColumns;
  for (size_t key = 0; key < aggregate->groups.size(); ++key) {
    const LogicalType type = aggregate->groups[key]->type();
    std::vector<std::pair<size_t, ExpressionPtr>> inSets;
    for (size_t s = 0; s < sets.size(); ++s) {
      if (std::find(sets[s].begin(), sets[s].end(), key) != sets[s].end()) {
        inSets.emplace_back(s, remap(*aggregate->groups[key]));
      }
    }
    grouped->groups.push_back(inSets.size() == sets.size() && !emptySet
                                  ? remap(*aggregate->groups[key])
                                  : perSet(set, std::move(inSets), constantOf(Value::null(type)), type));
    keyColumns.push_back(PlanColumn{ids_.next(), type, aggregate->groupNames[key]});
    grouped->groupIds.push_back(keyColumns.back().id);
    grouped->groupNames.push_back(aggregate->groupNames[key]);
  }
  grouped->groups.push_back(columnRef(set));
  const PlanColumn setColumn{ids_.next(), LogicalType::integer(), set.name};
  grouped->groupIds.push_back(setColumn.id);
  grouped->groupNames.push_back(set.name);
  std::vector<PlanColumn> aggregateColumns;
  for (const auto& call : aggregate->aggregates) {
    AggregateCall copy = renamedAggregateCall(call, renamed, ids_.next());
    if (call.function == engine::AggregateFunction::kCountStar && real) {
      copy.function = engine::AggregateFunction::kCount;  // count(*) of the real rows: a count of a constant
      copy.argument = onRealRows(constantOf(Value::integer(1)));
    } else if (copy.argument) {
      copy.argument = onRealRows(std::move(copy.argument));
    }
    aggregateColumns.push_back(PlanColumn{copy.id, copy.resultType, copy.name});
    grouped->aggregates.push_back(std::move(copy));
  }
  grouped->children.push_back(std::move(expanded));

  // The aggregate's columns under their ids, then each GROUPING() call: its bits in the row's set.
  auto result = std::make_unique<LogicalProject>();
  auto output = [&](ExpressionPtr expression, ColumnId id, const std::string& name) {
    result->expressions.push_back(std::move(expression));
    result->ids.push_back(id);
    result->names.push_back(name);
  };
  for (size_t key = 0; key < keyColumns.size(); ++key) {
    output(columnRef(keyColumns[key]), aggregate->groupIds[key], aggregate->groupNames[key]);
  }
  if (!preAggregated) {
    for (size_t a = 0; a < aggregateColumns.size(); ++a) {
      output(columnRef(aggregateColumns[a]), aggregate->aggregates[a].id, aggregate->aggregates[a].name);
    }
  }
  for (const AggregateFinish& finish : finishes) {
    // Over no rows only the empty set has a row, where a count is 0.
    output(finishedValue(finish, aggregateColumns, emptySet.has_value()), finish.column.id, finish.column.name);
  }
  // GROUPING(a, b, ...) in set s: a bit per argument, 1 where s leaves that key out.
  auto bitsOf = [&](size_t call, size_t s) {
    int32_t bits = 0;
    for (size_t key : callKeys[call]) {
      const bool inSet = std::find(sets[s].begin(), sets[s].end(), key) != sets[s].end();
      bits = (bits << 1) | (inSet ? 0 : 1);
    }
    return constantOf(Value::integer(bits));
  };
  for (size_t c = 0; c < calls.size(); ++c) {
    std::vector<std::pair<size_t, ExpressionPtr>> bitsPerSet;
    for (size_t s = 0; s + 1 < sets.size(); ++s) bitsPerSet.emplace_back(s, bitsOf(c, s));
    output(perSet(setColumn, std::move(bitsPerSet), bitsOf(c, sets.size() - 1), LogicalType::integer()), calls[c].id,
           "grouping");
  }
  result->children.push_back(std::move(grouped));
  return result;
}

}  // namespace shoal::sql
