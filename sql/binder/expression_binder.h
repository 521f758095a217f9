#pragma once

#include <string_view>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"

namespace pg_query {
class Node;
class TypeName;
}  // namespace pg_query

namespace shoal::sql {

/// Turns parse-tree expressions into typed engine expressions, resolving
/// column names against one input relation, inferring parameter types from
/// context and inserting PostgreSQL's implicit casts. Errors carry the
/// character position of the offending node.
class ExpressionBinder {
 public:
  /// `columns` is the input relation (empty without FROM); `parameterTypes`
  /// holds the declared types of $1..$n (kUnknown where the client left it to
  /// the server) and is updated as parameters are resolved.
  ExpressionBinder(std::string_view queryText, const std::vector<ColumnDescription>& columns,
                   std::vector<engine::LogicalType>& parameterTypes);

  engine::ExpressionPtr bind(const pg_query::Node& node);

  /// Lets aggregate calls appear: each one is added to `aggregates` and bound
  /// as a reference to its result (column i of the aggregation's output).
  /// Without this, an aggregate fails with 42803 naming `clause`.
  void collectAggregates(std::vector<BoundAggregate>* aggregates) { aggregates_ = aggregates; }
  void setClause(std::string clause) { clause_ = std::move(clause); }
  /// Where the first column reference outside any aggregate was, or -1.
  int firstBareColumnLocation() const { return firstBareColumnLocation_; }
  const std::string& firstBareColumnName() const { return firstBareColumnName_; }

  /// Converts `expression` to `target`: an untyped literal or parameter takes
  /// the type; anything else gets a cast when the conversion is allowed.
  engine::ExpressionPtr coerce(engine::ExpressionPtr expression, const engine::LogicalType& target, int location);

  /// Gives any still-untyped literal or parameter the type text, as PostgreSQL
  /// does for output columns.
  engine::ExpressionPtr resolveUnknown(engine::ExpressionPtr expression, int location);

  /// The byte offset in the query text that a parse node reports, or -1.
  static int locationOf(const pg_query::Node& node);

  /// The output column name PostgreSQL would give this expression ("?column?" when none).
  static std::string columnNameOf(const pg_query::Node& node);

  /// Resolves a type name (int, numeric(15,2), varchar(25), ...).
  engine::LogicalType typeFromName(const pg_query::TypeName& typeName) const;

  /// Fails with 42601/0A000 and the position of `location` (a byte offset in the query text).
  [[noreturn]] void fail(std::string_view sqlState, int location, std::string message) const;

 private:
  engine::ExpressionPtr bindConstant(const pg_query::Node& node);
  engine::ExpressionPtr bindColumnRef(const pg_query::Node& node);
  engine::ExpressionPtr bindParameter(const pg_query::Node& node);
  engine::ExpressionPtr bindOperator(const pg_query::Node& node);
  engine::ExpressionPtr bindArithmetic(char op, engine::ExpressionPtr left, engine::ExpressionPtr right, int location);
  engine::ExpressionPtr bindComparison(engine::ScalarFunction function, engine::ExpressionPtr left,
                                       engine::ExpressionPtr right, int location);
  engine::ExpressionPtr bindConcat(engine::ExpressionPtr left, engine::ExpressionPtr right, int location);
  engine::ExpressionPtr bindBoolean(const pg_query::Node& node);
  engine::ExpressionPtr bindNullTest(const pg_query::Node& node);
  engine::ExpressionPtr bindTypeCast(const pg_query::Node& node);
  engine::ExpressionPtr bindFunctionCall(const pg_query::Node& node);
  engine::ExpressionPtr bindAggregate(const pg_query::Node& node, engine::AggregateFunction function);

  [[noreturn]] void failNoOperator(std::string_view op, const engine::LogicalType& left,
                                   const engine::LogicalType& right, int location) const;

  std::string_view queryText_;
  const std::vector<ColumnDescription>& columns_;
  std::vector<engine::LogicalType>& parameterTypes_;
  std::vector<BoundAggregate>* aggregates_ = nullptr;
  std::string clause_ = "WHERE";
  bool insideAggregate_ = false;
  int firstBareColumnLocation_ = -1;
  std::string firstBareColumnName_;
};

}  // namespace shoal::sql
