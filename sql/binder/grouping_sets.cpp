// QueryBinder's GROUPING SETS, ROLLUP and CUBE: in one pass over the input where it can (grouping_sets_one_pass.cpp),
// else one aggregation per grouping set, each over its own copy of the input, concatenated (UNION ALL); a key a set
// leaves out is NULL in its rows, and GROUPING(a, b, ...) is a constant per set whose bit for each argument is 1 where
// the set leaves that key out. Each aggregation is distributed like any GROUP BY.

#include <fmt/format.h>

#include <set>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/query_binder.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;

std::vector<std::vector<size_t>> QueryBinder::groupingSetsOf(
    const pg_query::GroupingSet& set, const std::function<size_t(const pg_query::Node&)>& addGroup) {
  // An element of ROLLUP or CUBE is a key or a parenthesized list of keys, which stay together.
  auto element = [&](const pg_query::Node& node) {
    std::vector<size_t> keys;
    if (node.has_grouping_set() && node.grouping_set().kind() == pg_query::GROUPING_SET_SIMPLE) {
      for (const auto& key : node.grouping_set().content()) keys.push_back(addGroup(key));
    } else if (node.has_row_expr()) {
      for (const auto& key : node.row_expr().args()) keys.push_back(addGroup(key));
    } else {
      keys.push_back(addGroup(node));
    }
    return keys;
  };
  std::vector<std::vector<size_t>> sets;
  switch (set.kind()) {
    case pg_query::GROUPING_SET_EMPTY:
      sets.push_back({});
      break;
    case pg_query::GROUPING_SET_SIMPLE:
      sets.emplace_back();
      for (const auto& key : set.content()) sets.back().push_back(addGroup(key));
      break;
    case pg_query::GROUPING_SET_ROLLUP: {
      // ROLLUP (a, b, c): (a, b, c), (a, b), (a), ().
      std::vector<std::vector<size_t>> elements;
      for (const auto& node : set.content()) elements.push_back(element(node));
      for (size_t length = elements.size() + 1; length-- > 0;) {
        std::vector<size_t> keys;
        for (size_t i = 0; i < length; ++i) keys.insert(keys.end(), elements[i].begin(), elements[i].end());
        sets.push_back(std::move(keys));
      }
      break;
    }
    case pg_query::GROUPING_SET_CUBE: {
      // CUBE (a, b): every subset, the larger ones first.
      std::vector<std::vector<size_t>> elements;
      for (const auto& node : set.content()) elements.push_back(element(node));
      if (elements.size() > 12) {
        fail(SqlState::kStatementTooComplex, set.location(), "CUBE is limited to 12 elements");
      }
      const size_t all = (size_t{1} << elements.size()) - 1;
      for (size_t mask = all + 1; mask-- > 0;) {
        std::vector<size_t> keys;
        for (size_t i = 0; i < elements.size(); ++i) {
          if (mask & (size_t{1} << (elements.size() - 1 - i))) {
            keys.insert(keys.end(), elements[i].begin(), elements[i].end());
          }
        }
        sets.push_back(std::move(keys));
      }
      break;
    }
    case pg_query::GROUPING_SET_SETS:
      // GROUPING SETS ((a, b), a, ROLLUP (c), ()): the union of what each element spans.
      for (const auto& node : set.content()) {
        if (node.has_grouping_set()) {
          for (auto& keys : groupingSetsOf(node.grouping_set(), addGroup)) sets.push_back(std::move(keys));
        } else {
          sets.push_back(element(node));
        }
      }
      break;
    default:
      fail(SqlState::kFeatureNotSupported, set.location(), "this kind of grouping set is not supported");
  }
  return sets;
}

LogicalOperatorPtr QueryBinder::expandGroupingSets(std::unique_ptr<LogicalAggregate> aggregate,
                                                   const std::vector<std::vector<size_t>>& sets,
                                                   std::vector<GroupingCall>& calls) {
  // Which key each GROUPING() argument is: it must be one.
  std::vector<std::vector<size_t>> callKeys;
  for (const auto& call : calls) {
    std::vector<size_t> keys;
    for (size_t a = 0; a < call.arguments.size(); ++a) {
      size_t key = 0;
      while (key < aggregate->groups.size() && !sameExpression(*aggregate->groups[key], *call.arguments[a])) ++key;
      if (key == aggregate->groups.size()) {
        fail(SqlState::kGroupingError, call.locations[a],
             "arguments to GROUPING must be grouping expressions of the associated query level");
      }
      keys.push_back(key);
    }
    // 54023, too_many_arguments, as PostgreSQL says it.
    if (keys.size() > 31) fail("54023", call.locations[31], "GROUPING must have fewer than 32 arguments");
    callKeys.push_back(std::move(keys));
  }

  if (groupingSetsFitOnePass(*aggregate, sets)) {
    return aggregateGroupingSetsInOnePass(std::move(aggregate), sets, calls, callKeys);
  }
  auto unionAll = std::make_unique<LogicalUnionAll>();
  for (size_t key = 0; key < aggregate->groups.size(); ++key) {
    unionAll->columns.push_back({aggregate->groupIds[key], aggregate->groups[key]->type(), aggregate->groupNames[key]});
  }
  for (const auto& call : aggregate->aggregates) unionAll->columns.push_back({call.id, call.resultType, call.name});
  for (const auto& call : calls) unionAll->columns.push_back({call.id, LogicalType::integer(), "grouping"});

  LogicalOperatorPtr input = std::move(aggregate->children[0]);
  for (size_t s = 0; s < sets.size(); ++s) {
    const std::set<size_t> keys(sets[s].begin(), sets[s].end());
    // Every set but the last reads a copy of the input, with columns of its own.
    LogicalOperatorPtr branchInput;
    std::map<ColumnId, ColumnId> renamed;
    if (s + 1 < sets.size()) {
      branchInput = copyPlan(*input);
      renamed = renumberColumns(*branchInput, ids_);
    } else {
      branchInput = std::move(input);
    }
    auto remap = [&](const engine::Expression& expression) { return withRenamedColumns(expression, renamed); };
    auto branch = std::make_unique<LogicalAggregate>();
    std::map<size_t, ColumnId> keyIds;
    for (size_t key : keys) {
      branch->groups.push_back(remap(*aggregate->groups[key]));
      keyIds[key] = ids_.next();
      branch->groupIds.push_back(keyIds[key]);
      branch->groupNames.push_back(aggregate->groupNames[key]);
    }
    for (const auto& call : aggregate->aggregates) {
      branch->aggregates.push_back(renamedAggregateCall(call, renamed, ids_.next()));
    }
    branch->children.push_back(std::move(branchInput));
    // The set's rows in the union's columns: its keys, NULL for the others, its aggregates and GROUPING()s.
    auto project = std::make_unique<LogicalProject>();
    for (size_t key = 0; key < aggregate->groups.size(); ++key) {
      const LogicalType type = aggregate->groups[key]->type();
      project->expressions.push_back(keys.contains(key) ? columnRef({keyIds[key], type, aggregate->groupNames[key]})
                                                        : constantOf(engine::Value::null(type)));
    }
    for (const auto& call : branch->aggregates)
      project->expressions.push_back(columnRef({call.id, call.resultType, call.name}));
    for (const auto& argumentKeys : callKeys) {
      int32_t bits = 0;
      for (size_t key : argumentKeys) bits = (bits << 1) | (keys.contains(key) ? 0 : 1);
      project->expressions.push_back(constantOf(engine::Value::integer(bits)));
    }
    for (const auto& column : unionAll->columns) {
      project->ids.push_back(ids_.next());
      project->names.push_back(column.name);
    }
    project->children.push_back(std::move(branch));
    unionAll->children.push_back(std::move(project));
  }
  return unionAll;
}

}  // namespace shoal::sql
