// The FROM clause of QueryBinder: tables, views and CTEs by name (bindRangeVar), joins with their conditions,
// USING and NATURAL (bindJoin), subqueries and functions in FROM, and the aliases that rename what they yield.

#include "common/stack_depth.h"
#include "common/status.h"
#include "engine/expression/expression_evaluator.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/privilege_checks.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/search_path.h"
#include "sql/binder/type_coercion.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"

#include <set>

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;

void QueryBinder::addRelation(BindScope& scope, const std::string& relation) const {
  // PostgreSQL reports this one without a position.
  if (!scope.addRelation(relation)) {
    fail(SqlState::kDuplicateAlias, -1, fmt::format("table name \"{}\" specified more than once", relation));
  }
}

LogicalOperatorPtr QueryBinder::renameRelation(LogicalPlan plan, const std::string& relation,
                                               const std::vector<std::string>& aliases, int location,
                                               BindScope& scope) {
  std::vector<PlanColumn> columns = plan.root->outputColumns();
  if (aliases.size() > columns.size()) {
    fail(SqlState::kInvalidColumnReference, location,
         fmt::format("table \"{}\" has {} columns available but {} columns specified", relation, columns.size(),
                     aliases.size()));
  }
  addRelation(scope, relation);
  auto project = std::make_unique<LogicalProject>();
  for (size_t i = 0; i < columns.size(); ++i) {
    std::string name = i < aliases.size() ? aliases[i] : plan.columnNames[i];
    project->expressions.push_back(columnRef(columns[i]));
    project->ids.push_back(ids_.next());
    project->names.push_back(name);
    scope.add(relation, {project->ids.back(), columns[i].type, name});
  }
  project->children.push_back(std::move(plan.root));
  return project;
}

namespace {

std::vector<std::string> aliasNames(const google::protobuf::RepeatedPtrField<pg_query::Node>& names) {
  std::vector<std::string> result;
  for (const auto& name : names) result.push_back(name.string().sval());
  return result;
}

}  // namespace

LogicalOperatorPtr QueryBinder::bindRangeVar(const pg_query::Node& item, BindScope& scope) {
  const auto& range = item.range_var();
  std::string relation = range.has_alias() ? range.alias().aliasname() : range.relname();
  std::vector<std::string> aliases =
      range.has_alias() ? aliasNames(range.alias().colnames()) : std::vector<std::string>{};
  // An unqualified name is looked for along the search path (pg_catalog first, then search_path's
  // schemas), after the WITH queries in scope; a WITH query is never schema-qualified.
  const std::string& schema = range.schemaname();
  if (range.schemaname().empty()) {
    if (const auto* found = ctes_ ? ctes_->find(range.relname()) : nullptr) {
      if (found->recursive) return bindRecursiveReference(*found, relation, aliases, range.location(), scope);
      // Each reference binds the WITH query anew, where it was defined: inlined, with its own column ids.
      const pg_query::CommonTableExpr* cte = found->definition;
      QueryBinder binder(catalog_, text_, parameterTypes_, ids_, nullptr, found->parent, views_);
      binder.useParameterValues(parameterValues_);
      LogicalPlan plan = binder.bind(cte->ctequery().select_stmt());
      std::vector<std::string> cteAliases = aliasNames(cte->aliascolnames());
      if (aliases.empty()) aliases = cteAliases;
      return renameRelation(std::move(plan), relation, aliases, range.location(), scope);
    }
  }
  // A schema that does not exist is a relation that does not exist (42P01), as PostgreSQL reports it.
  std::optional<QualifiedName> resolved = resolveRelation(catalog_, schema, range.relname());
  if (resolved) {
    if (auto view = catalog_.findView(*resolved)) {
      const std::string viewName = resolved->toString();
      if (views_ && views_->contains(viewName)) {
        fail(SqlState::kInvalidObjectDefinition, range.location(),
             fmt::format("infinite recursion detected in rules for relation \"{}\"", view->name));
      }
      requireRelationPrivilege(catalog_, *resolved, kAclSelect, true, text_, range.location());
      LogicalPlan plan;
      try {
        ParsedScript script = ParsedScript::parse(view->query);
        ViewExpansion expansion{viewName, views_};
        // The view's unqualified names are those of the search path it was created under.
        ViewQueryCatalog viewCatalog(catalog_, view->searchPath, view->owner);
        QueryBinder binder(viewCatalog, script.text(), parameterTypes_, ids_, nullptr, nullptr, &expansion);
        plan = binder.bind(script.statement(0).view_stmt().query().select_stmt());
      } catch (const ShoalError& error) {
        // Positions would point into the view's text, not the query's.
        fail(error.status().sqlState(), range.location(),
             fmt::format("in view \"{}\": {}", view->name, error.status().message()));
      }
      if (aliases.empty()) aliases = view->columnNames;
      return renameRelation(std::move(plan), relation, aliases, range.location(), scope);
    }
  }
  auto table = resolved ? catalog_.findTable(*resolved) : std::nullopt;
  if (!table) {
    std::string name = range.schemaname().empty() ? range.relname() : range.schemaname() + "." + range.relname();
    std::string hint;
    size_t best = std::max<size_t>(2, range.relname().size() / 3) + 1;
    for (const auto& candidate : catalog_.relationNames()) {
      if (size_t distance = editDistance(range.relname(), candidate); distance < best) {
        best = distance;
        hint = fmt::format("Perhaps you meant to reference the table \"{}\".", candidate);
      }
    }
    ExpressionBinder errors(text_, std::vector<ColumnDescription>{}, parameterTypes_);
    errors.fail(SqlState::kUndefinedTable, range.location(), fmt::format("relation \"{}\" does not exist", name), hint);
  }
  requireRelationPrivilege(catalog_, {table->schema, table->name}, kAclSelect, false, text_, range.location());
  if (aliases.size() > table->columns.size()) {
    fail(SqlState::kInvalidColumnReference, range.location(),
         fmt::format("table \"{}\" has {} columns available but {} columns specified", relation, table->columns.size(),
                     aliases.size()));
  }
  addRelation(scope, relation);
  auto scan = std::make_unique<LogicalScan>();
  scan->alias = relation;
  for (size_t i = 0; i < table->columns.size(); ++i) {
    std::string name = i < aliases.size() ? aliases[i] : table->columns[i].name;
    // Plans print a self-joined table's columns under its alias (n1.n_name, n2.n_name).
    std::string display = relation == table->name ? name : relation + "." + name;
    PlanColumn column{ids_.next(), table->columns[i].type, display};
    scan->tableColumns.push_back(i);
    scan->columns.push_back(column);
    // Named without an alias, the table can be named with its schema too (pg_catalog.pg_class.relname).
    scope.add(relation, name, column, range.has_alias() ? std::string() : table->schema);
  }
  scan->table = std::move(*table);
  return scan;
}

LogicalOperatorPtr QueryBinder::bindJoin(const pg_query::Node& item, BindScope& scope) {
  const auto& join = item.join_expr();
  BindScope leftScope(outer_);
  BindScope rightScope(outer_);
  LogicalOperatorPtr left = bindFromItem(join.larg(), leftScope);
  // A LATERAL subquery on the right reads the left side's columns: the join is dependent, and the optimizer
  // decorrelates it as it does a correlated subquery.
  // A function on the right of an INNER or LEFT join is LATERAL, even unsaid, as in PostgreSQL: its arguments
  // may read the left side.
  const bool outerOnLeft = join.jointype() == pg_query::JOIN_RIGHT || join.jointype() == pg_query::JOIN_FULL;
  const bool lateralFunction = join.rarg().has_range_function() && !outerOnLeft;
  const bool lateral =
      (join.rarg().has_range_subselect() && join.rarg().range_subselect().lateral()) || lateralFunction;
  if ((lateral || (join.rarg().has_range_function() && join.rarg().range_function().lateral())) && outerOnLeft) {
    fail(SqlState::kInvalidColumnReference, -1,
         "the combining JOIN type must be INNER or LEFT for a LATERAL reference");
  }
  LogicalOperatorPtr right = lateralFunction ? bindLateralFunction(join.rarg().range_function(), rightScope, leftScope)
                                             : bindFromItem(join.rarg(), rightScope, &leftScope);
  auto op = std::make_unique<LogicalJoin>();
  switch (join.jointype()) {
    case pg_query::JOIN_INNER:
      op->type = JoinType::kInner;
      break;
    case pg_query::JOIN_LEFT:
    case pg_query::JOIN_RIGHT:
      op->type = JoinType::kLeft;
      break;
    case pg_query::JOIN_FULL:
      op->type = JoinType::kFull;
      break;
    default:
      fail(SqlState::kFeatureNotSupported, -1, "this join type is not supported");
  }
  if (join.has_alias()) fail(SqlState::kFeatureNotSupported, -1, "aliases on JOIN expressions are not supported yet");
  bool rightJoin = join.jointype() == pg_query::JOIN_RIGHT;
  BindScope joined(outer_);
  // USING and NATURAL match the columns each side shows by its bare name (not ones an earlier USING hid).
  auto visible = [](const BindScope& side, const std::string& name) {
    std::vector<const BindScope::Entry*> found;
    for (const auto& entry : side.entries()) {
      if (entry.name == name && !entry.hiddenUnqualified) found.push_back(&entry);
    }
    return found;
  };
  std::vector<std::string> usingColumns = aliasNames(join.using_clause());
  if (join.is_natural()) {
    for (const auto& entry : leftScope.entries()) {
      if (entry.hiddenUnqualified || !visible(rightScope, entry.name).size()) continue;
      if (std::find(usingColumns.begin(), usingColumns.end(), entry.name) == usingColumns.end()) {
        usingColumns.push_back(entry.name);
      }
    }
  }
  std::set<std::string> usingSet(usingColumns.begin(), usingColumns.end());
  for (const auto& relation : leftScope.relations()) joined.addRelation(relation);
  for (const auto& relation : rightScope.relations()) {
    if (!joined.addRelation(relation)) {
      fail(SqlState::kDuplicateAlias, -1, fmt::format("table name \"{}\" specified more than once", relation));
    }
  }
  std::vector<std::pair<const BindScope::Entry*, const BindScope::Entry*>> usingPairs;
  for (const auto& name : usingColumns) {
    auto leftColumns = visible(leftScope, name);
    auto rightColumns = visible(rightScope, name);
    if (leftColumns.empty() || rightColumns.empty()) {
      fail(SqlState::kUndefinedColumn, -1,
           fmt::format("column \"{}\" specified in USING clause does not exist in {} table", name,
                       leftColumns.empty() ? "left" : "right"));
    }
    if (leftColumns.size() > 1 || rightColumns.size() > 1) {
      fail(SqlState::kAmbiguousColumn, -1,
           fmt::format("common column name \"{}\" appears more than once in {} table", name,
                       leftColumns.size() > 1 ? "left" : "right"));
    }
    usingPairs.emplace_back(leftColumns[0], rightColumns[0]);
    std::vector<PendingSubquery> none;
    ExpressionBinder binder = makeBinder(none, "JOIN conditions");
    op->conditions.push_back(
        binder.bindComparisonOperator("=", columnRef(leftColumns[0]->column), columnRef(rightColumns[0]->column), -1));
  }
  // As in PostgreSQL, SELECT * shows the USING columns first (from the side the join keeps), then the rest of
  // each side. The other copy of a USING column stays reachable qualified; what an earlier USING hid stays hidden.
  // A FULL JOIN keeps neither side's copy: its USING column is COALESCE(left, right), in their common type,
  // computed by a projection over the join (and reachable by its bare name only).
  const bool merged = op->type == JoinType::kFull && !usingPairs.empty();
  auto mergedColumns = std::make_unique<LogicalProject>();
  std::set<const BindScope::Entry*> usingEntries;
  for (const auto& [leftColumn, rightColumn] : usingPairs) {
    usingEntries.insert(leftColumn);
    usingEntries.insert(rightColumn);
    if (!merged) {
      joined.add(*(rightJoin ? rightColumn : leftColumn), false);
      continue;
    }
    std::vector<PendingSubquery> none;
    ExpressionBinder types = makeBinder(none, "JOIN/USING");
    LogicalType type = types.commonType({leftColumn->column.type, rightColumn->column.type}, "JOIN/USING", -1);
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(types.coerce(columnRef(leftColumn->column), type, -1));
    arguments.push_back(types.coerce(columnRef(rightColumn->column), type, -1));
    mergedColumns->expressions.push_back(functionOf(engine::ScalarFunction::kCoalesce, type, std::move(arguments)));
    mergedColumns->ids.push_back(ids_.next());
    mergedColumns->names.push_back(leftColumn->name);
    joined.add("", leftColumn->name, PlanColumn{mergedColumns->ids.back(), type, leftColumn->name});
  }
  for (const auto* side : {&leftScope, &rightScope}) {
    for (const auto& entry : side->entries()) {
      if (usingEntries.contains(&entry)) {
        bool kept = !merged && (side == &rightScope) == rightJoin;
        if (!kept) joined.add(entry, true);
        continue;
      }
      joined.add(entry, entry.hiddenUnqualified);
    }
  }
  if (join.has_quals()) {
    auto errors = std::make_shared<ExpressionBinder>(text_, std::vector<ColumnDescription>{}, parameterTypes_);
    ExpressionBinder binder(
        text_,
        [this, &joined, errors](const pg_query::ColumnRef& ref) { return joined.resolve(ref, *errors, database()); },
        parameterTypes_);
    binder.setClause("JOIN conditions");
    binder.setCatalog(&catalog_);
    binder.useParameterValues(parameterValues_);
    splitConjunction(binder.bindCondition(join.quals(), "JOIN/ON"), op->conditions);
  }
  op->dependent = lateral;
  if (rightJoin) {
    op->children.push_back(std::move(right));
    op->children.push_back(std::move(left));
  } else {
    op->children.push_back(std::move(left));
    op->children.push_back(std::move(right));
  }
  for (const auto& relation : joined.relations()) addRelation(scope, relation);
  scope.append(joined);
  if (!merged) return op;
  // The merged USING columns, beside every column of the join.
  for (const auto& column : op->outputColumns()) {
    mergedColumns->expressions.push_back(columnRef(column));
    mergedColumns->ids.push_back(column.id);
    mergedColumns->names.push_back(column.name);
  }
  mergedColumns->children.push_back(std::move(op));
  return mergedColumns;
}

LogicalOperatorPtr QueryBinder::bindLateralFunction(const pg_query::RangeFunction& range, BindScope& scope,
                                                    const BindScope& lateral) {
  // Bound as LATERAL (SELECT * FROM f(...) alias) alias: a subquery whose arguments read the left side as outer
  // columns, which the optimizer decorrelates, LEFT JOIN's unmatched rows included.
  pg_query::SelectStmt select;
  select.add_target_list()->mutable_res_target()->mutable_val()->mutable_column_ref()->add_fields()->mutable_a_star();
  pg_query::RangeFunction* function = select.add_from_clause()->mutable_range_function();
  *function = range;
  function->set_lateral(false);
  select.set_limit_option(pg_query::LIMIT_OPTION_DEFAULT);
  select.set_op(pg_query::SETOP_NONE);
  QueryBinder binder(catalog_, text_, parameterTypes_, ids_, &lateral, ctes_, views_);
  binder.useParameterValues(parameterValues_);
  LogicalPlan plan = binder.bind(select);
  const auto& items = range.functions(0).list().items();
  const std::string relation = range.has_alias() ? range.alias().aliasname()
                               : !items.empty() && items[0].has_func_call()
                                   ? items[0].func_call().funcname().rbegin()->string().sval()
                                   : "unnamed_function";
  return renameRelation(std::move(plan), relation, {}, -1, scope);
}

LogicalOperatorPtr QueryBinder::bindFromItem(const pg_query::Node& item, BindScope& scope, const BindScope* lateral) {
  switch (item.node_case()) {
    case pg_query::Node::kRangeVar:
      return bindRangeVar(item, scope);
    case pg_query::Node::kJoinExpr:
      return bindJoin(item, scope);
    case pg_query::Node::kRangeFunction:  // inside a JOIN (the comma list binds its functions itself)
      if (item.range_function().lateral()) fail(SqlState::kFeatureNotSupported, -1, "LATERAL is not supported yet");
      return bindRangeFunction(item.range_function(), scope);
    case pg_query::Node::kRangeSubselect: {
      const auto& subselect = item.range_subselect();
      if (subselect.lateral() && lateral == nullptr) {
        fail(SqlState::kFeatureNotSupported, -1, "LATERAL is not supported here yet");
      }
      QueryBinder binder(catalog_, text_, parameterTypes_, ids_, subselect.lateral() ? lateral : outer_, ctes_, views_);
      binder.useParameterValues(parameterValues_);
      LogicalPlan plan = binder.bind(subselect.subquery().select_stmt());
      std::string relation = subselect.has_alias() ? subselect.alias().aliasname() : "unnamed_subquery";
      std::vector<std::string> aliases =
          subselect.has_alias() ? aliasNames(subselect.alias().colnames()) : std::vector<std::string>{};
      return renameRelation(std::move(plan), relation, aliases, -1, scope);
    }
    default: {
      const auto* field = item.GetDescriptor()->FindFieldByNumber(item.node_case());
      fail(SqlState::kFeatureNotSupported, -1,
           fmt::format("FROM item {} is not supported yet", field ? field->message_type()->name() : "?"));
    }
  }
}

}  // namespace shoal::sql
