// QueryBinder's set operations: UNION [ALL] as a concatenation (and a grouping without ALL); INTERSECT and EXCEPT
// [ALL] as a grouping of both sides' rows that counts each row's copies on either side, distributed like any
// GROUP BY (repartitioned on all columns).

#include <fmt/format.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/type_coercion.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;

namespace {

std::string_view operationName(pg_query::SetOperation op) {
  switch (op) {
    case pg_query::SETOP_INTERSECT:
      return "INTERSECT";
    case pg_query::SETOP_EXCEPT:
      return "EXCEPT";
    default:
      return "UNION";
  }
}

}  // namespace

LogicalPlan QueryBinder::bindSetOperation(const pg_query::SelectStmt& select) {
  rejectUnsupportedClauses(select);
  const std::string_view name = operationName(select.op());
  registerCtes(select);
  QueryBinder leftBinder(catalog_, text_, parameterTypes_, ids_, outer_, ctes_, views_);
  QueryBinder rightBinder(catalog_, text_, parameterTypes_, ids_, outer_, ctes_, views_);
  leftBinder.keepUntypedOutputs();
  rightBinder.keepUntypedOutputs();
  LogicalPlan left = leftBinder.bind(select.larg());
  LogicalPlan right = rightBinder.bind(select.rarg());
  std::vector<PlanColumn> leftColumns = left.root->outputColumns();
  std::vector<PlanColumn> rightColumns = right.root->outputColumns();
  if (leftColumns.size() != rightColumns.size()) {
    fail(SqlState::kSyntaxError, -1, fmt::format("each {} query must have the same number of columns", name));
  }
  ExpressionBinder types(text_, std::vector<ColumnDescription>{}, parameterTypes_);
  std::vector<LogicalType> columnTypes;
  for (size_t i = 0; i < leftColumns.size(); ++i) {
    columnTypes.push_back(types.commonType({leftColumns[i].type, rightColumns[i].type}, name, -1));
  }
  // INTERSECT and EXCEPT count each row's copies on the left and on the right: two extra columns, 1 or 0.
  const bool counting = select.op() != pg_query::SETOP_UNION;
  auto unionAll = std::make_unique<LogicalUnionAll>();
  for (size_t i = 0; i < columnTypes.size(); ++i) {
    unionAll->columns.push_back({ids_.next(), columnTypes[i], left.columnNames[i]});
  }
  if (counting) {
    for (const char* side : {"?left?", "?right?"})
      unionAll->columns.push_back({ids_.next(), LogicalType::integer(), side});
  }
  for (auto* side : {&left, &right}) {
    // An untyped literal takes the UNION's type where the select list computes it.
    LogicalOperator* below = side->root.get();
    while (below->kind() == LogicalOperatorKind::kSort || below->kind() == LogicalOperatorKind::kLimit) {
      below = below->children[0].get();
    }
    if (below->kind() == LogicalOperatorKind::kProject) {
      auto& project = static_cast<LogicalProject&>(*below);
      for (size_t i = 0; i < project.expressions.size() && i < columnTypes.size(); ++i) {
        if (project.expressions[i]->type().id() == TypeId::kUnknown) {
          project.expressions[i] = types.coerce(std::move(project.expressions[i]), columnTypes[i], -1);
        }
      }
    }
    std::vector<PlanColumn> columns = side->root->outputColumns();
    auto cast = std::make_unique<LogicalProject>();
    for (size_t i = 0; i < columns.size(); ++i) {
      cast->expressions.push_back(types.coerce(columnRef(columns[i]), columnTypes[i], -1));
      cast->ids.push_back(ids_.next());
      cast->names.push_back(columns[i].name);
    }
    if (counting) {
      for (int copy : {side == &left ? 1 : 0, side == &left ? 0 : 1}) {
        cast->expressions.push_back(constantOf(engine::Value::integer(copy)));
        cast->ids.push_back(ids_.next());
        cast->names.push_back("?copies?");
      }
    }
    cast->children.push_back(std::move(side->root));
    unionAll->children.push_back(std::move(cast));
  }
  LogicalOperatorPtr plan = std::move(unionAll);
  std::vector<PlanColumn> output = plan->outputColumns();
  if (!select.all() || counting) {
    // One group per distinct row (NULLs equal, as set operations compare), with its copies on either side.
    auto aggregate = std::make_unique<LogicalAggregate>();
    for (size_t i = 0; i < columnTypes.size(); ++i) {
      PlanColumn& column = output[i];
      if (auto reason = uncomparableReason(column.type, false)) fail(reason->first, -1, reason->second);
      aggregate->groups.push_back(columnRef(column));
      aggregate->groupIds.push_back(ids_.next());
      aggregate->groupNames.push_back(column.name);
      column.id = aggregate->groupIds.back();
    }
    std::vector<PlanColumn> copies;
    if (counting) {
      for (size_t side = 0; side < 2; ++side) {
        AggregateCall sum;
        sum.function = engine::AggregateFunction::kSum;
        sum.argument = columnRef(output[columnTypes.size() + side]);
        sum.resultType = LogicalType::bigInt();
        sum.id = ids_.next();
        sum.name = side == 0 ? "?left?" : "?right?";
        copies.push_back({sum.id, sum.resultType, sum.name});
        aggregate->aggregates.push_back(std::move(sum));
      }
    }
    aggregate->children.push_back(std::move(plan));
    plan = std::move(aggregate);
    output.resize(columnTypes.size());
    if (counting) plan = keepCopies(std::move(plan), select, output, copies[0], copies[1]);
  }
  plan = orderAndLimitOutput(select, std::move(plan), output, name);
  LogicalPlan result;
  result.root = std::move(plan);
  result.columnNames = std::move(left.columnNames);
  return result;
}

LogicalOperatorPtr QueryBinder::keepCopies(LogicalOperatorPtr grouped, const pg_query::SelectStmt& select,
                                           std::vector<PlanColumn>& output, const PlanColumn& left,
                                           const PlanColumn& right) {
  const bool intersect = select.op() == pg_query::SETOP_INTERSECT;
  // How many copies of the row the result holds: INTERSECT ALL min(l, r), EXCEPT ALL l - r (where positive);
  // without ALL, one.
  ExpressionPtr count;
  if (intersect) {
    std::vector<ExpressionPtr> branches;
    branches.push_back(
        makeFunction(engine::ScalarFunction::kLess, LogicalType::boolean(), columnRef(left), columnRef(right)));
    branches.push_back(columnRef(left));
    branches.push_back(columnRef(right));
    count = std::make_unique<engine::FunctionExpression>(engine::ScalarFunction::kCase, std::move(branches),
                                                         LogicalType::bigInt());
  } else {
    count = makeFunction(engine::ScalarFunction::kSubtract, LogicalType::bigInt(), columnRef(left), columnRef(right));
  }
  // EXCEPT keeps a row the right side does not have at all, however many copies the left has.
  auto filter = std::make_unique<LogicalFilter>();
  if (!intersect && !select.all()) {
    filter->conditions.push_back(makeFunction(engine::ScalarFunction::kEqual, LogicalType::boolean(), columnRef(right),
                                              constantOf(engine::Value::bigInt(0))));
  } else {
    filter->conditions.push_back(makeFunction(engine::ScalarFunction::kGreater, LogicalType::boolean(),
                                              copyExpression(*count), constantOf(engine::Value::bigInt(0))));
  }
  filter->children.push_back(std::move(grouped));
  LogicalOperatorPtr plan = std::move(filter);
  if (select.all()) {
    // Each row as many times as it has copies: generate_series(1, copies) beside it.
    auto repeat = std::make_unique<LogicalProjectSet>();
    SetFunctionColumn series;
    series.function = engine::TableFunction::kGenerateSeries;
    series.arguments.push_back(constantOf(engine::Value::bigInt(1)));
    series.arguments.push_back(std::move(count));
    series.column = {ids_.next(), LogicalType::bigInt(), "?copy?"};
    repeat->functions.push_back(std::move(series));
    repeat->children.push_back(std::move(plan));
    plan = std::move(repeat);
  }
  // Only the row's own columns go on, under new ids (a column has one producer).
  auto project = std::make_unique<LogicalProject>();
  for (auto& column : output) {
    project->expressions.push_back(columnRef(column));
    column.id = ids_.next();
    project->ids.push_back(column.id);
    project->names.push_back(column.name);
  }
  project->children.push_back(std::move(plan));
  return project;
}

}  // namespace shoal::sql
