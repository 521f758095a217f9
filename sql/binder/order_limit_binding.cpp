// QueryBinder's LIMIT and OFFSET (constants or parameters), and the ORDER BY of a result that only names its
// output columns (set operations, VALUES).

#include <fmt/format.h>

#include "common/status.h"
#include "engine/expression/expression_evaluator.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/type_coercion.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;

std::optional<int64_t> QueryBinder::bindLimit(const pg_query::Node& node, std::string_view clause) {
  std::vector<PendingSubquery> none;
  ExpressionBinder binder = makeBinder(none, std::string(clause));
  ExpressionPtr expression = binder.bind(node);
  int location = ExpressionBinder::locationOf(node);
  if (expression->kind() != engine::ExpressionKind::kConstant && expression->kind() != engine::ExpressionKind::kCast &&
      expression->kind() != engine::ExpressionKind::kParameter) {
    fail(SqlState::kFeatureNotSupported, location, fmt::format("{} must be a constant or a parameter", clause));
  }
  if (!columnsOf(*expression).empty()) {
    fail(SqlState::kInvalidColumnReference, location, fmt::format("argument of {} must not contain variables", clause));
  }
  if (!none.empty())
    fail(SqlState::kFeatureNotSupported, location, fmt::format("subqueries in {} are not supported yet", clause));
  expression = binder.coerce(std::move(expression), LogicalType::bigInt(), location);
  const engine::Expression* inner = expression.get();
  while (inner->kind() == engine::ExpressionKind::kCast)
    inner = &static_cast<const engine::CastExpression*>(inner)->child();
  if (parameterValues_.empty() && inner->kind() == engine::ExpressionKind::kParameter) {
    return std::nullopt;  // LIMIT $1 before its value is known: the session binds again with it
  }
  engine::ExpressionEvaluator evaluator(parameterValues_);
  engine::Vector value = evaluator.evaluate(*expression, engine::Chunk(1));
  if (value.isNull(0)) return std::nullopt;
  int64_t count = value.data<int64_t>()[0];
  if (count < 0) {
    fail(clause == "OFFSET" ? SqlState::kInvalidRowCountInOffset : SqlState::kInvalidRowCountInLimit, location,
         fmt::format("{} must not be negative", clause));
  }
  return count;
}

LogicalOperatorPtr QueryBinder::addLimit(const pg_query::SelectStmt& select, LogicalOperatorPtr plan) {
  std::optional<int64_t> limit = select.has_limit_count() ? bindLimit(select.limit_count(), "LIMIT") : std::nullopt;
  int64_t offset = select.has_limit_offset() ? bindLimit(select.limit_offset(), "OFFSET").value_or(0) : 0;
  if (!limit && offset == 0) return plan;
  auto op = std::make_unique<LogicalLimit>();
  op->limit = limit;
  op->offset = offset;
  op->children.push_back(std::move(plan));
  return op;
}

bool sortsNullsFirst(const pg_query::SortBy& sortBy) {
  if (sortBy.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT) return sortBy.sortby_dir() == pg_query::SORTBY_DESC;
  return sortBy.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
}

LogicalOperatorPtr QueryBinder::orderAndLimitOutput(const pg_query::SelectStmt& select, LogicalOperatorPtr plan,
                                                    const std::vector<PlanColumn>& output, std::string_view construct) {
  if (select.sort_clause_size() > 0) {
    auto sort = std::make_unique<LogicalSort>();
    for (const auto& sortNode : select.sort_clause()) {
      const auto& sortBy = sortNode.sort_by();
      const auto& node = sortBy.node();
      int location = ExpressionBinder::locationOf(node);
      std::optional<size_t> column;
      if (node.has_a_const() && node.a_const().has_ival()) {
        int ordinal = node.a_const().ival().ival();
        if (ordinal >= 1 && static_cast<size_t>(ordinal) <= output.size()) column = ordinal - 1;
      } else if (node.has_column_ref() && node.column_ref().fields_size() == 1 &&
                 node.column_ref().fields(0).has_string()) {
        for (size_t i = 0; i < output.size(); ++i) {
          if (output[i].name == node.column_ref().fields(0).string().sval()) column = i;
        }
      }
      if (!column && node.has_a_const() && node.a_const().has_ival()) {
        fail(SqlState::kInvalidColumnReference, location,
             fmt::format("ORDER BY position {} is not in select list", node.a_const().ival().ival()));
      }
      if (!column && node.has_column_ref()) {
        fail(SqlState::kUndefinedColumn, location,
             fmt::format("column \"{}\" does not exist", ExpressionBinder::columnNameOf(node)));
      }
      if (!column) {
        fail(SqlState::kFeatureNotSupported, location,
             fmt::format("ORDER BY on a {} result must name an output column or its position", construct));
      }
      // jsonb would sort on its sort key, a column the output does not have (yet): refused, not by text.
      if (auto reason = uncomparableReason(output[*column].type, true)) fail(reason->first, location, reason->second);
      sort->keys.push_back(
          {columnRef(output[*column]), sortBy.sortby_dir() != pg_query::SORTBY_DESC, sortsNullsFirst(sortBy)});
    }
    sort->children.push_back(std::move(plan));
    plan = std::move(sort);
  }
  return addLimit(select, std::move(plan));
}

}  // namespace shoal::sql
