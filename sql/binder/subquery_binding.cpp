#include <fmt/format.h>

#include <map>

#include "common/status.h"
#include "engine/types/array_value.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/query_binder.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"

// How a query's subqueries are bound: each becomes a join (single, mark) attached above the clause that
// holds it, which the decorrelator later turns into plain joins when it reads outer columns.

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;

ExpressionBinder QueryBinder::makeBinder(std::vector<PendingSubquery>& pending, std::string clause) {
  // The resolver reports errors through a binder of the same text; it needs no state of its own.
  auto errors = std::make_shared<ExpressionBinder>(text_, std::vector<ColumnDescription>{}, parameterTypes_);
  ExpressionBinder binder(
      text_, [this, errors](const pg_query::ColumnRef& ref) { return scope_.resolve(ref, *errors, database()); },
      parameterTypes_);
  binder.setClause(std::move(clause));
  binder.setCatalog(&catalog_);
  binder.useParameterValues(parameterValues_);
  binder.setSubqueryBinder([this, &pending](const pg_query::SubLink& link, ExpressionBinder& outerBinder) {
    return bindSubquery(link, outerBinder, pending);
  });
  return binder;
}

ExpressionPtr QueryBinder::bindSubquery(const pg_query::SubLink& link, ExpressionBinder& binder,
                                        std::vector<PendingSubquery>& pending) {
  QueryBinder subqueryBinder(catalog_, text_, parameterTypes_, ids_, &scope_, ctes_, views_);
  subqueryBinder.useParameterValues(parameterValues_);
  LogicalPlan plan;
  {
    // A recursive query's recursive term may not read the query inside a subquery.
    ExpressionSubqueryMark mark(ctes_);
    plan = subqueryBinder.bind(link.subselect().select_stmt());
  }
  std::vector<PlanColumn> columns = plan.root->outputColumns();
  PendingSubquery subquery;
  subquery.plan = std::move(plan.root);
  // PostgreSQL words it per kind: a scalar subquery "must return only one column", IN's "has too many columns".
  auto needOneColumn = [&] {
    if (columns.size() == 1) return;
    bool scalar = link.sub_link_type() == pg_query::EXPR_SUBLINK;
    fail(SqlState::kSyntaxError, link.location(),
         columns.empty() ? "subquery must return a column"
         : scalar        ? "subquery must return only one column"
                         : "subquery has too many columns");
  };
  auto markColumn = [&](std::string name) {
    subquery.type = JoinType::kMark;
    subquery.markId = ids_.next();
    return PlanColumn{subquery.markId, LogicalType::boolean(), std::move(name)};
  };
  switch (link.sub_link_type()) {
    case pg_query::EXISTS_SUBLINK: {
      // EXISTS reads no column of its subquery (PostgreSQL drops the select list too): a projection on top, one
      // row for each row below it, becomes one constant, so that outer columns named only in the select list
      // neither correlate the subquery nor widen what the decorrelator would join.
      if (subquery.plan->kind() == LogicalOperatorKind::kProject) {
        auto& project = static_cast<LogicalProject&>(*subquery.plan);
        project.expressions.clear();
        project.expressions.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::integer(1)));
        project.ids = {ids_.next()};
        project.names = {"exists"};
      }
      PlanColumn mark = markColumn("exists");
      pending.push_back(std::move(subquery));
      return columnRef(mark);
    }
    case pg_query::EXPR_SUBLINK: {
      needOneColumn();
      subquery.type = JoinType::kSingle;
      pending.push_back(std::move(subquery));
      return columnRef(columns[0]);
    }
    case pg_query::ARRAY_SUBLINK: {
      needOneColumn();
      if (columns[0].type.isArray()) {
        fail(SqlState::kFeatureNotSupported, link.location(),
             "ARRAY() of a subquery returning arrays is not supported: arrays have one dimension");
      }
      PlanColumn array = collectIntoArray(subquery.plan, columns[0]);
      subquery.type = JoinType::kSingle;
      pending.push_back(std::move(subquery));
      // Over no rows array_agg is NULL, ARRAY() the empty array.
      std::vector<ExpressionPtr> arguments;
      arguments.push_back(columnRef(array));
      arguments.push_back(std::make_unique<engine::ConstantExpression>(engine::makeArrayValue({}, array.type)));
      return std::make_unique<engine::FunctionExpression>(engine::ScalarFunction::kCoalesce, std::move(arguments),
                                                          array.type);
    }
    case pg_query::ANY_SUBLINK:
    case pg_query::ALL_SUBLINK: {
      needOneColumn();
      std::string op = link.oper_name_size() == 0 ? "=" : link.oper_name().rbegin()->string().sval();
      bool all = link.sub_link_type() == pg_query::ALL_SUBLINK;
      if (all) {
        // x op ALL (S) is NOT (x negated-op ANY (S)).
        static const std::map<std::string, std::string, std::less<>> kNegations = {
            {"=", "<>"}, {"<>", "="}, {"<", ">="}, {">=", "<"}, {">", "<="}, {"<=", ">"}};
        auto negation = kNegations.find(op);
        if (negation == kNegations.end()) {
          fail(SqlState::kFeatureNotSupported, link.location(), fmt::format("{} ALL is not supported", op));
        }
        op = negation->second;
      }
      ExpressionPtr test = binder.bind(link.testexpr());
      subquery.nullAwareCondition =
          binder.bindComparisonOperator(op, std::move(test), columnRef(columns[0]), link.location());
      PlanColumn mark = markColumn(all ? "all" : "any");
      pending.push_back(std::move(subquery));
      if (!all) return columnRef(mark);
      std::vector<ExpressionPtr> arguments;
      arguments.push_back(columnRef(mark));
      return std::make_unique<engine::FunctionExpression>(engine::ScalarFunction::kNot, std::move(arguments),
                                                          LogicalType::boolean());
    }
    default:
      fail(SqlState::kFeatureNotSupported, link.location(), "this kind of subquery is not supported");
  }
}

PlanColumn QueryBinder::collectIntoArray(LogicalOperatorPtr& plan, const PlanColumn& column) {
  // The subquery's own ORDER BY orders the array: it becomes the aggregate's, and the sort goes unless a LIMIT
  // needs it to choose its rows. Below a final projection (which only drops sort-only columns) and the limit,
  // the sort's child produces the sort keys as well as the value.
  LogicalOperatorPtr input = std::move(plan);
  ExpressionPtr value = columnRef(column);
  if (input->kind() == LogicalOperatorKind::kProject) {
    auto& project = static_cast<LogicalProject&>(*input);
    const LogicalOperatorKind below = project.children[0]->kind();
    if (below == LogicalOperatorKind::kSort || below == LogicalOperatorKind::kLimit) {
      value = std::move(project.expressions[0]);
      input = std::move(project.children[0]);
    }
  }
  std::vector<SortKey> order;
  LogicalOperator* sortParent = nullptr;
  LogicalOperator* sort = input.get();
  if (sort->kind() == LogicalOperatorKind::kLimit) {
    sortParent = sort;
    sort = sort->children[0].get();
  }
  if (sort->kind() == LogicalOperatorKind::kSort) {
    for (const auto& key : static_cast<LogicalSort&>(*sort).keys) {
      order.push_back({copyExpression(*key.expression), key.ascending, key.nullsFirst});
    }
    if (sortParent == nullptr) {
      input = std::move(sort->children[0]);
    }
  }
  auto aggregate = std::make_unique<LogicalAggregate>();
  AggregateCall call;
  call.function = engine::AggregateFunction::kArrayAgg;
  call.argument = std::move(value);
  call.resultType = engine::aggregateResultType(call.function, column.type);
  call.id = ids_.next();
  call.name = "array";
  call.orderBy = std::move(order);
  PlanColumn collected{call.id, call.resultType, call.name};
  aggregate->aggregates.push_back(std::move(call));
  aggregate->children.push_back(std::move(input));
  // Shaped like a scalar subquery over an aggregate (a projection on top), which the decorrelator knows.
  auto project = std::make_unique<LogicalProject>();
  project->ids.push_back(ids_.next());
  project->names.push_back(collected.name);
  project->expressions.push_back(columnRef(collected));
  project->children.push_back(std::move(aggregate));
  PlanColumn result{project->ids[0], collected.type, collected.name};
  plan = std::move(project);
  return result;
}

LogicalOperatorPtr QueryBinder::attachSubqueries(LogicalOperatorPtr input, std::vector<PendingSubquery>& pending) {
  for (auto& subquery : pending) {
    auto join = std::make_unique<LogicalJoin>();
    join->type = subquery.type;
    join->conditions = std::move(subquery.conditions);
    join->markId = subquery.markId;
    join->markName = "mark";
    join->nullAwareCondition = std::move(subquery.nullAwareCondition);
    join->dependent = !freeColumns(*subquery.plan).empty();
    join->children.push_back(std::move(input));
    join->children.push_back(std::move(subquery.plan));
    input = std::move(join);
  }
  pending.clear();
  return input;
}

}  // namespace shoal::sql
