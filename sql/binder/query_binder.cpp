#include "sql/binder/query_binder.h"
#include "common/stack_depth.h"
#include "common/status.h"

#include <set>

#include "engine/expression/expression_evaluator.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/privilege_checks.h"
#include "sql/binder/search_path.h"
#include "sql/binder/type_coercion.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;

const CteScope* CteScope::find(std::string_view wanted) const {
  for (const CteScope* scope = this; scope != nullptr; scope = scope->parent) {
    if (scope->name == wanted) return scope;
  }
  return nullptr;
}

QueryBinder::QueryBinder(const CatalogReader& catalog, std::string_view text, std::vector<LogicalType>& parameterTypes,
                         ColumnIdGenerator& ids, const BindScope* outer, const CteScope* ctes,
                         const ViewExpansion* views)
    : catalog_(catalog),
      text_(text),
      parameterTypes_(parameterTypes),
      ids_(ids),
      outer_(outer),
      ctes_(ctes),
      views_(views),
      scope_(outer) {}

bool ViewExpansion::contains(std::string_view wanted) const {
  for (const ViewExpansion* view = this; view != nullptr; view = view->parent) {
    if (view->name == wanted) return true;
  }
  return false;
}

void QueryBinder::fail(std::string_view sqlState, int location, std::string message) const {
  int position = characterPosition(text_, location);
  throw ShoalError(Status(sqlState, std::move(message), position > 0 ? std::optional<int>(position) : std::nullopt));
}

LogicalPlan QueryBinder::bind(const pg_query::SelectStmt& select) {
  checkStackDepth();
  if (select.op() != pg_query::SETOP_NONE) return bindSetOperation(select);
  if (select.values_lists_size() > 0) return bindValues(select);
  return bindSimpleSelect(select);
}

void QueryBinder::rejectUnsupportedClauses(const pg_query::SelectStmt& select) const {
  auto reject = [&](bool present, std::string_view clause) {
    if (present) fail(SqlState::kFeatureNotSupported, -1, fmt::format("{} is not supported yet", clause));
  };
  reject(select.has_into_clause(), "SELECT INTO");
  reject(select.locking_clause_size() > 0, "FOR UPDATE/SHARE");
  reject(select.group_distinct(), "GROUP BY DISTINCT");
  reject(select.limit_option() == pg_query::LIMIT_OPTION_WITH_TIES, "FETCH ... WITH TIES");
}

void QueryBinder::registerCtes(const pg_query::SelectStmt& select) {
  if (!select.has_with_clause()) return;
  std::set<std::string> names;
  for (const auto& node : select.with_clause().ctes()) {
    const auto& cte = node.common_table_expr();
    if (!names.insert(cte.ctename()).second) {
      fail(SqlState::kDuplicateAlias, cte.location(),
           fmt::format("WITH query name \"{}\" specified more than once", cte.ctename()));
    }
    if (!cte.ctequery().has_select_stmt()) {
      fail(SqlState::kFeatureNotSupported, cte.location(), "only SELECT is supported in WITH");
    }
    auto& scope = cteStorage_.emplace_back(std::make_unique<CteScope>());
    scope->name = cte.ctename();
    scope->definition = &cte;
    scope->recursive = select.with_clause().recursive() && readsRelation(cte.ctequery(), cte.ctename());
    scope->parent = ctes_;
    ctes_ = scope.get();
  }
}

// --- SELECT ---------------------------------------------------------------------------------------

namespace {

/// A select-list entry: the bound expression (over FROM, or aggregate results) and its output name.
struct SelectItem {
  ExpressionPtr expression;
  std::string name;
  int location = -1;
};

}  // namespace

LogicalPlan QueryBinder::bindSimpleSelect(const pg_query::SelectStmt& select) {
  rejectUnsupportedClauses(select);
  registerCtes(select);

  // FROM: comma-separated items are joined with no condition; the optimizer finds the predicates.
  LogicalOperatorPtr plan;
  for (const auto& item : select.from_clause()) {
    // A function is implicitly LATERAL: when it reads the items before it, it consumes their plan.
    // A LATERAL subquery reads the items before it as outer columns: its join is dependent.
    LogicalOperatorPtr bound = item.has_range_function() ? bindRangeFunction(item.range_function(), scope_, &plan)
                                                         : bindFromItem(item, scope_, &scope_);
    if (!plan || bound->kind() == LogicalOperatorKind::kProjectSet) {
      plan = std::move(bound);
      continue;
    }
    auto join = std::make_unique<LogicalJoin>();
    join->dependent = item.has_range_subselect() && item.range_subselect().lateral();
    join->children.push_back(std::move(plan));
    join->children.push_back(std::move(bound));
    plan = std::move(join);
  }
  if (!plan) plan = std::make_unique<LogicalSingleRow>();
  std::set<ColumnId> fromIds = outputIds(*plan);
  if (select.has_where_clause()) {
    std::vector<PendingSubquery> pending;
    ExpressionBinder binder = makeBinder(pending, "WHERE");
    ExpressionPtr where = binder.bindCondition(select.where_clause(), "WHERE");
    plan = attachSubqueries(std::move(plan), pending);
    auto filter = std::make_unique<LogicalFilter>();
    splitConjunction(std::move(where), filter->conditions);
    filter->children.push_back(std::move(plan));
    plan = std::move(filter);
  }

  // Aggregates anywhere in SELECT, HAVING or ORDER BY land here; each is bound as a reference to its result.
  std::vector<AggregateCall> aggregates;
  auto aggregateSink = [&](AggregateCall call) -> ExpressionPtr {
    for (const auto& existing : aggregates) {
      if (sameAggregateCall(existing, call)) return columnRef({existing.id, existing.resultType, existing.name});
    }
    call.id = ids_.next();
    PlanColumn column{call.id, call.resultType, call.name};
    aggregates.push_back(std::move(call));
    return columnRef(column);
  };

  // Window function calls of the select list and ORDER BY, each bound as a reference to its result.
  const NamedWindows windows = namedWindows(select);
  std::vector<WindowFunctionCall> windowCalls;
  auto windowSink = [&](WindowFunctionCall call) -> ExpressionPtr {
    call.call.id = ids_.next();
    PlanColumn column{call.call.id, call.call.resultType, call.call.name};
    windowCalls.push_back(std::move(call));
    return columnRef(column);
  };

  // GROUPING(...) calls: each a column of the grouped rows, a constant in each grouping set.
  std::vector<GroupingCall> groupingCalls;
  auto groupingSink = [&](std::vector<ExpressionPtr> arguments, std::vector<int> locations) -> ExpressionPtr {
    groupingCalls.push_back({std::move(arguments), ids_.next(), std::move(locations)});
    return columnRef({groupingCalls.back().id, LogicalType::integer(), "grouping"});
  };

  // The select list.
  std::vector<PendingSubquery> selectSubqueries;
  ExpressionBinder selectBinder = makeBinder(selectSubqueries, "SELECT");
  selectBinder.setAggregateSink(aggregateSink);
  selectBinder.setGroupingSink(groupingSink);
  selectBinder.setWindowSink(windowSink, &windows);
  // Set-returning functions of the select list: computed by a ProjectSet below the final projection.
  std::vector<SetFunctionColumn> setFunctions;
  selectBinder.setSetFunctionSink([&](SetFunctionColumn function) -> ExpressionPtr {
    function.column.id = ids_.next();
    setFunctions.push_back(std::move(function));
    return columnRef(setFunctions.back().column);
  });
  std::vector<SelectItem> items;
  for (const auto& targetNode : select.target_list()) {
    const auto& target = targetNode.res_target();
    const auto& value = target.val();
    if (value.has_column_ref() && value.column_ref().fields().rbegin()->has_a_star()) {
      const auto& fields = value.column_ref().fields();
      std::string relation = fields.size() == 2 ? fields[0].string().sval() : "";
      if (select.from_clause_size() == 0) {
        fail(SqlState::kSyntaxError, target.location(), "SELECT * with no tables specified is not valid");
      }
      if (!relation.empty() && !scope_.hasRelation(relation)) {
        fail(SqlState::kUndefinedTable, value.column_ref().location(),
             fmt::format("missing FROM-clause entry for table \"{}\"", relation));
      }
      for (const auto& entry : scope_.entries()) {
        if (!relation.empty() ? entry.relation != relation : entry.hiddenUnqualified) continue;
        items.push_back({columnRef(entry.column), entry.name, target.location()});
      }
      continue;
    }
    ExpressionPtr expression = selectBinder.bindOutput(value);
    if (!keepUntypedOutputs_) expression = selectBinder.resolveUnknown(std::move(expression), target.location());
    items.push_back(
        {std::move(expression), target.name().empty() ? ExpressionBinder::columnNameOf(value) : target.name(),
         ExpressionBinder::locationOf(value) >= 0 ? ExpressionBinder::locationOf(value) : target.location()});
  }

  // GROUP BY: input columns first, then output names and ordinals, as PostgreSQL resolves them.
  // A select-list entry named in GROUP BY (by position or alias) must not hold an aggregate or a subquery.
  auto groupableCopy = [&](const SelectItem& item) {
    std::set<ColumnId> subqueryColumns;
    for (const auto& subquery : selectSubqueries) {
      for (ColumnId id : outputIds(*subquery.plan)) subqueryColumns.insert(id);
      if (subquery.type == JoinType::kMark) subqueryColumns.insert(subquery.markId);
    }
    for (ColumnId id : columnsOf(*item.expression)) {
      if (std::any_of(aggregates.begin(), aggregates.end(), [&](const AggregateCall& call) { return call.id == id; })) {
        fail(SqlState::kGroupingError, item.location, "aggregate functions are not allowed in GROUP BY");
      }
      if (subqueryColumns.contains(id)) {
        fail(SqlState::kFeatureNotSupported, item.location, "subqueries in GROUP BY are not supported yet");
      }
    }
    return copyExpression(*item.expression);
  };
  std::vector<ExpressionPtr> groups;
  std::vector<PendingSubquery> groupSubqueries;
  ExpressionBinder groupBinder = makeBinder(groupSubqueries, "GROUP BY");
  // Each GROUP BY key once, as an index into `groups`.
  auto addGroup = [&](const pg_query::Node& groupNode) -> size_t {
    int location = ExpressionBinder::locationOf(groupNode);
    ExpressionPtr group;
    if (groupNode.has_a_const() && groupNode.a_const().has_ival()) {
      int ordinal = groupNode.a_const().ival().ival();
      if (ordinal < 1 || static_cast<size_t>(ordinal) > items.size()) {
        fail(SqlState::kInvalidColumnReference, location,
             fmt::format("GROUP BY position {} is not in select list", ordinal));
      }
      group = groupableCopy(items[ordinal - 1]);
    } else if (groupNode.has_column_ref() && groupNode.column_ref().fields_size() == 1 &&
               groupNode.column_ref().fields(0).has_string()) {
      const std::string& name = groupNode.column_ref().fields(0).string().sval();
      bool inputColumn = false;
      for (const auto& entry : scope_.entries()) inputColumn = inputColumn || entry.name == name;
      if (!inputColumn) {
        auto alias =
            std::find_if(items.begin(), items.end(), [&](const SelectItem& item) { return item.name == name; });
        if (alias != items.end()) group = groupableCopy(*alias);
      }
    }
    if (!group) group = groupBinder.resolveUnknown(groupBinder.bind(groupNode), location);
    for (size_t i = 0; i < groups.size(); ++i) {
      if (sameExpression(*groups[i], *group)) return i;
    }
    groups.push_back(std::move(group));
    return groups.size() - 1;
  };
  // The grouping sets, each a list of keys: one (every key) without ROLLUP, CUBE or GROUPING SETS.
  std::vector<std::vector<size_t>> groupingSets{{}};
  bool hasGroupingSets = false;
  for (const auto& groupNode : select.group_clause()) {
    std::vector<std::vector<size_t>> alternatives;
    if (groupNode.has_grouping_set()) {
      hasGroupingSets = true;
      alternatives = groupingSetsOf(groupNode.grouping_set(), addGroup);
    } else {
      alternatives = {{addGroup(groupNode)}};
    }
    // GROUP BY a, ROLLUP (b): every set so far with every alternative of this item.
    std::vector<std::vector<size_t>> crossed;
    for (const auto& set : groupingSets) {
      for (const auto& alternative : alternatives) {
        crossed.push_back(set);
        crossed.back().insert(crossed.back().end(), alternative.begin(), alternative.end());
      }
    }
    groupingSets = std::move(crossed);
    if (groupingSets.size() > kMaxGroupingSets) {
      fail(SqlState::kStatementTooComplex, ExpressionBinder::locationOf(groupNode),
           fmt::format("too many grouping sets present (maximum {})", kMaxGroupingSets));
    }
  }
  for (const auto& group : groups) {
    if (auto reason = uncomparableReason(group->type(), false)) fail(reason->first, -1, reason->second);
  }
  if (!groupSubqueries.empty()) {
    fail(SqlState::kFeatureNotSupported, -1, "subqueries in GROUP BY are not supported");
  }

  // HAVING.
  std::vector<PendingSubquery> havingSubqueries;
  ExpressionBinder havingBinder = makeBinder(havingSubqueries, "HAVING");
  havingBinder.setAggregateSink(aggregateSink);
  havingBinder.setGroupingSink(groupingSink);
  ExpressionPtr having;
  if (select.has_having_clause()) {
    having = havingBinder.bindCondition(select.having_clause(), "HAVING");
  }

  // ORDER BY: output names and ordinals first, then expressions over the input.
  struct OrderItem {
    size_t column;  // index into items (hidden ones are appended)
    bool ascending;
    bool nullsFirst;
  };
  std::vector<OrderItem> orderItems;
  size_t visibleColumns = items.size();
  std::vector<PendingSubquery> orderSubqueries;
  ExpressionBinder orderBinder = makeBinder(orderSubqueries, "ORDER BY");
  orderBinder.setAggregateSink(aggregateSink);
  orderBinder.setGroupingSink(groupingSink);
  orderBinder.setWindowSink(windowSink, &windows);
  // DISTINCT ON (keys) keeps each key's first row in the ORDER BY; plain DISTINCT groups by the whole row.
  const bool distinctOn =
      select.distinct_clause_size() > 0 && select.distinct_clause(0).node_case() != pg_query::Node::NODE_NOT_SET;
  bool distinct = select.distinct_clause_size() > 0 && !distinctOn;
  for (size_t i = 0; distinct && i < visibleColumns; ++i) {
    if (auto reason = uncomparableReason(items[i].expression->type(), false)) {
      fail(reason->first, items[i].location, reason->second);
    }
  }
  for (const auto& sortNode : select.sort_clause()) {
    const auto& sortBy = sortNode.sort_by();
    if (sortBy.sortby_dir() == pg_query::SORTBY_USING) {
      fail(SqlState::kFeatureNotSupported, sortBy.location(), "ORDER BY ... USING is not supported");
    }
    bool ascending = sortBy.sortby_dir() != pg_query::SORTBY_DESC;
    bool nullsFirst = sortsNullsFirst(sortBy);
    const auto& node = sortBy.node();
    int location = ExpressionBinder::locationOf(node);
    std::optional<size_t> column;
    if (node.has_a_const() && node.a_const().has_ival()) {
      int ordinal = node.a_const().ival().ival();
      if (ordinal < 1 || static_cast<size_t>(ordinal) > visibleColumns) {
        fail(SqlState::kInvalidColumnReference, location,
             fmt::format("ORDER BY position {} is not in select list", ordinal));
      }
      column = static_cast<size_t>(ordinal - 1);
    } else if (node.has_column_ref() && node.column_ref().fields_size() == 1 &&
               node.column_ref().fields(0).has_string()) {
      const std::string& name = node.column_ref().fields(0).string().sval();
      for (size_t i = 0; i < visibleColumns; ++i) {
        if (items[i].name != name) continue;
        // Two outputs of one name are ambiguous unless they compute the same thing (SELECT a, a ... ORDER BY a).
        if (column && !sameExpression(*items[*column].expression, *items[i].expression)) {
          fail(SqlState::kAmbiguousColumn, location, fmt::format("ORDER BY \"{}\" is ambiguous", name));
        }
        if (!column) column = i;
      }
    }
    if (!column) {
      ExpressionPtr expression = orderBinder.resolveUnknown(orderBinder.bind(node), location);
      for (size_t i = 0; i < items.size() && !column; ++i) {
        if (sameExpression(*items[i].expression, *expression)) column = i;
      }
      if (!column) {
        if (distinct) {
          fail(SqlState::kInvalidColumnReference, location,
               "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
        }
        items.push_back({std::move(expression), "?order?", location});
        column = items.size() - 1;
      }
    }
    const LogicalType& keyType = items[*column].expression->type();
    if (keyType.isJsonb() && !keyType.isArray() && !distinct) {
      // jsonb sorts by structure: on bytes that order as it does.
      items.push_back({makeFunction(engine::ScalarFunction::kJsonbSortKey, LogicalType::bytea(),
                                    copyExpression(*items[*column].expression)),
                       "?order?", location});
      column = items.size() - 1;
    } else if (auto reason = uncomparableReason(keyType, true)) {
      fail(reason->first, location, reason->second);
    }
    orderItems.push_back({*column, ascending, nullsFirst});
  }

  // DISTINCT ON's keys, resolved as ORDER BY's are; they must be ORDER BY's first keys.
  std::vector<size_t> distinctKeys;
  for (int n = 0; distinctOn && n < select.distinct_clause_size(); ++n) {
    const pg_query::Node& node = select.distinct_clause(n);
    const int location = ExpressionBinder::locationOf(node);
    std::optional<size_t> column;
    if (node.has_a_const() && node.a_const().has_ival()) {
      const int ordinal = node.a_const().ival().ival();
      if (ordinal < 1 || static_cast<size_t>(ordinal) > visibleColumns) {
        fail(SqlState::kInvalidColumnReference, location,
             fmt::format("SELECT DISTINCT ON position {} is not in select list", ordinal));
      }
      column = static_cast<size_t>(ordinal - 1);
    } else if (node.has_column_ref() && node.column_ref().fields_size() == 1 &&
               node.column_ref().fields(0).has_string()) {
      for (size_t i = 0; i < visibleColumns && !column; ++i) {
        if (items[i].name == node.column_ref().fields(0).string().sval()) column = i;
      }
    }
    if (!column) {
      ExpressionPtr expression = orderBinder.resolveUnknown(orderBinder.bind(node), location);
      for (size_t i = 0; i < items.size() && !column; ++i) {
        if (sameExpression(*items[i].expression, *expression)) column = i;
      }
      if (!column) {
        items.push_back({std::move(expression), "?distinct?", location});
        column = items.size() - 1;
      }
    }
    if (auto reason = uncomparableReason(items[*column].expression->type(), false)) {
      fail(reason->first, location, reason->second);
    }
    distinctKeys.push_back(*column);
  }
  for (size_t i = 0; i < std::min(distinctKeys.size(), orderItems.size()); ++i) {
    if (std::find(distinctKeys.begin(), distinctKeys.end(), orderItems[i].column) == distinctKeys.end()) {
      fail(SqlState::kInvalidColumnReference, ExpressionBinder::locationOf(select.distinct_clause(0)),
           "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
    }
  }

  // Aggregation: group keys and aggregates replace the input; what is left must not read the input.
  bool aggregating =
      !aggregates.empty() || !groups.empty() || having != nullptr || hasGroupingSets || !groupingCalls.empty();
  if (aggregating) {
    auto aggregate = std::make_unique<LogicalAggregate>();
    for (auto& group : groups) {
      aggregate->groupIds.push_back(ids_.next());
      std::string name = group->kind() == engine::ExpressionKind::kColumnRef
                             ? static_cast<const engine::ColumnRefExpression&>(*group).name()
                             : group->toString();
      aggregate->groupNames.push_back(name);
      aggregate->groups.push_back(std::move(group));
    }
    aggregate->aggregates = std::move(aggregates);
    aggregate->children.push_back(std::move(plan));
    std::map<ColumnId, int> bareLocations;
    for (const ExpressionBinder* binder : {&selectBinder, &havingBinder, &orderBinder}) {
      for (const auto& [id, location] : binder->bareColumnReferences()) bareLocations.emplace(id, location);
    }
    auto rewrite = [&](const engine::Expression& expression) {
      return rewriteExpression(expression, [&](const engine::Expression& node) -> ExpressionPtr {
        for (size_t i = 0; i < aggregate->groups.size(); ++i) {
          if (sameExpression(node, *aggregate->groups[i])) {
            return columnRef({aggregate->groupIds[i], node.type(), aggregate->groupNames[i]});
          }
        }
        if (node.kind() == engine::ExpressionKind::kColumnRef) {
          const auto& ref = static_cast<const engine::ColumnRefExpression&>(node);
          auto id = static_cast<ColumnId>(ref.columnIndex());
          if (fromIds.contains(id)) {
            auto location = bareLocations.find(id);
            std::string qualified = ref.name();
            for (const auto& entry : scope_.entries()) {
              if (entry.column.id == id) qualified = entry.relation + "." + entry.name;
            }
            fail(SqlState::kGroupingError, location == bareLocations.end() ? -1 : location->second,
                 fmt::format("column \"{}\" must appear in the GROUP BY clause or be used in an aggregate function",
                             qualified));
          }
        }
        return nullptr;
      });
    };
    for (auto& item : items) item.expression = rewrite(*item.expression);
    if (having) having = rewrite(*having);
    // Subqueries above the aggregation may read group keys, which now have new ids.
    for (auto& function : setFunctions) {
      for (auto& argument : function.arguments) argument = rewrite(*argument);
    }
    for (auto& call : windowCalls) {
      // In PostgreSQL's order: a bare column in the arguments is reported before one in the window.
      forEachWindowInput(call.call, [&](ExpressionPtr& input) { input = rewrite(*input); });
      for (auto& key : call.partitionBy) key = rewrite(*key);
      for (auto& key : call.orderBy) key.expression = rewrite(*key.expression);
    }
    for (auto* list : {&selectSubqueries, &havingSubqueries, &orderSubqueries}) {
      for (auto& subquery : *list) {
        rewritePlanExpressions(*subquery.plan, [&](const engine::Expression& e) { return rewrite(e); });
        for (auto& condition : subquery.conditions) condition = rewrite(*condition);
      }
    }
    if (hasGroupingSets || !groupingCalls.empty()) {
      plan = expandGroupingSets(std::move(aggregate), groupingSets, groupingCalls);
    } else {
      plan = std::move(aggregate);
    }
  }

  if (having) {
    plan = attachSubqueries(std::move(plan), havingSubqueries);
    auto filter = std::make_unique<LogicalFilter>();
    splitConjunction(std::move(having), filter->conditions);
    filter->children.push_back(std::move(plan));
    plan = std::move(filter);
  }
  plan = attachSubqueries(std::move(plan), selectSubqueries);
  plan = attachSubqueries(std::move(plan), orderSubqueries);
  plan = addWindows(std::move(plan), std::move(windowCalls));
  if (!setFunctions.empty()) {
    auto projectSet = std::make_unique<LogicalProjectSet>();
    projectSet->functions = std::move(setFunctions);
    projectSet->children.push_back(std::move(plan));
    plan = std::move(projectSet);
  }

  auto project = std::make_unique<LogicalProject>();
  for (auto& item : items) {
    project->ids.push_back(ids_.next());
    project->names.push_back(item.name);
    project->expressions.push_back(std::move(item.expression));
  }
  project->children.push_back(std::move(plan));
  std::vector<PlanColumn> projected = project->outputColumns();
  plan = std::move(project);

  if (distinctOn) {
    std::vector<PlanColumn> keys;
    for (size_t column : distinctKeys) keys.push_back(projected[column]);
    std::vector<SortKey> order;
    for (const auto& item : orderItems) {
      if (std::find(distinctKeys.begin(), distinctKeys.end(), item.column) != distinctKeys.end()) continue;
      order.push_back({columnRef(projected[item.column]), item.ascending, item.nullsFirst});
    }
    plan = keepFirstOfEach(std::move(plan), keys, std::move(order), projected);
  }

  if (distinct) {
    auto aggregate = std::make_unique<LogicalAggregate>();
    for (size_t i = 0; i < projected.size(); ++i) {
      aggregate->groups.push_back(columnRef(projected[i]));
      aggregate->groupIds.push_back(ids_.next());
      aggregate->groupNames.push_back(projected[i].name);
      projected[i].id = aggregate->groupIds.back();
    }
    aggregate->children.push_back(std::move(plan));
    plan = std::move(aggregate);
  }

  if (!orderItems.empty()) {
    auto sort = std::make_unique<LogicalSort>();
    for (const auto& item : orderItems) {
      sort->keys.push_back({columnRef(projected[item.column]), item.ascending, item.nullsFirst});
    }
    sort->children.push_back(std::move(plan));
    plan = std::move(sort);
  }

  plan = addLimit(select, std::move(plan));

  LogicalPlan result;
  if (projected.size() > visibleColumns) {
    // Drop the columns only ORDER BY needed.
    auto visible = std::make_unique<LogicalProject>();
    for (size_t i = 0; i < visibleColumns; ++i) {
      visible->expressions.push_back(columnRef(projected[i]));
      visible->ids.push_back(ids_.next());
      visible->names.push_back(projected[i].name);
    }
    visible->children.push_back(std::move(plan));
    plan = std::move(visible);
  }
  for (size_t i = 0; i < visibleColumns; ++i) result.columnNames.push_back(projected[i].name);
  result.root = std::move(plan);
  return result;
}

}  // namespace shoal::sql
