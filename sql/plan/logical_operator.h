#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/aggregate/aggregate_function.h"
#include "engine/expression/expression.h"
#include "engine/pipeline/table_function_source.h"
#include "engine/vector/chunk.h"
#include "engine/window/window_function.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// Names one column of a query, unique within it. Expressions of the logical
/// plan refer to columns by id (a ColumnRefExpression whose columnIndex is the
/// id), never by position, so that rewrites can move operators freely; a
/// reference to an id that the operator's inputs do not produce is a correlated
/// (outer) reference.
using ColumnId = uint32_t;

struct PlanColumn {
  ColumnId id;
  engine::LogicalType type;
  std::string name;
};

enum class LogicalOperatorKind {
  kScan,
  kSingleRow,
  kFilter,
  kProject,
  kJoin,
  kAggregate,
  kSort,
  kLimit,
  kUnionAll,
  kTableFunction,
  kProjectSet,
  kWindow,
  kMaterialized,
};

class LogicalOperator;
using LogicalOperatorPtr = std::unique_ptr<LogicalOperator>;

/// A node of the logical plan: what the binder builds and the optimizer rewrites.
class LogicalOperator {
 public:
  virtual ~LogicalOperator() = default;

  LogicalOperatorKind kind() const { return kind_; }
  /// The columns this operator produces, in order.
  virtual std::vector<PlanColumn> outputColumns() const = 0;

  std::vector<LogicalOperatorPtr> children;
  /// The optimizer's estimate of the rows this operator produces (negative: not estimated yet).
  double estimatedRows = -1;

 protected:
  explicit LogicalOperator(LogicalOperatorKind kind) : kind_(kind) {}

 private:
  LogicalOperatorKind kind_;
};

/// Reads some columns of a table (or system view); `filters` are conjuncts the
/// scan applies itself, where zone maps can skip segments.
///
/// In a fragment of a distributed plan, a scan with `exchangeInput` set reads
/// instead the rows other fragments send it through that exchange: `table`
/// then describes those rows (one column per output column) and there are no filters.
/// A scan column that reads no table column but the row's id: which worker holds the row (a tag the
/// coordinator gives each worker per query), in which segment and where (worker/storage/row_versions.h). BIGINT.
inline constexpr size_t kRowIdColumn = 0xFFFFFFFFu;

class LogicalScan final : public LogicalOperator {
 public:
  LogicalScan() : LogicalOperator(LogicalOperatorKind::kScan) {}
  std::vector<PlanColumn> outputColumns() const override { return columns; }

  std::optional<uint64_t> exchangeInput;
  TableDescription table;
  /// The alias the query gave it (or its name), for EXPLAIN.
  std::string alias;
  /// tableColumns[i] is the table column that output column i reads (kRowIdColumn: the row's id, for UPDATE
  /// and DELETE).
  std::vector<size_t> tableColumns;
  std::vector<PlanColumn> columns;
  std::vector<engine::ExpressionPtr> filters;
};

/// One row of no columns: the input of a SELECT without FROM.
class LogicalSingleRow final : public LogicalOperator {
 public:
  LogicalSingleRow() : LogicalOperator(LogicalOperatorKind::kSingleRow) {}
  std::vector<PlanColumn> outputColumns() const override { return {}; }
};

/// A set-returning function in FROM (generate_series, unnest, generate_subscripts) over arguments that
/// read no column: constants and parameters. Its rows are the same wherever it runs.
class LogicalTableFunction final : public LogicalOperator {
 public:
  LogicalTableFunction() : LogicalOperator(LogicalOperatorKind::kTableFunction) {}
  std::vector<PlanColumn> outputColumns() const override { return columns; }

  engine::TableFunction function = engine::TableFunction::kGenerateSeries;
  std::vector<engine::ExpressionPtr> arguments;
  /// The function's value, then its ordinality (BIGINT) when WITH ORDINALITY.
  std::vector<PlanColumn> columns;
  bool withOrdinality = false;
};

/// One set-returning function of a select list: its arguments read the input row.
struct SetFunctionColumn {
  engine::TableFunction function = engine::TableFunction::kUnnest;
  std::vector<engine::ExpressionPtr> arguments;
  PlanColumn column;  // its values
  /// WITH ORDINALITY (a function in FROM over other items' columns): a BIGINT column numbering its rows of each
  /// input row from 1, right after `column`.
  std::optional<PlanColumn> ordinality = std::nullopt;
};

/// Set-returning functions in the select list (PostgreSQL's ProjectSet): each input row is repeated for as
/// many rows as its longest function gives, with the functions' values beside it (see ProjectSetOperator).
/// Outputs the input's columns, then one per function (and its ordinality, when it has one).
class LogicalProjectSet final : public LogicalOperator {
 public:
  LogicalProjectSet() : LogicalOperator(LogicalOperatorKind::kProjectSet) {}
  std::vector<PlanColumn> outputColumns() const override {
    std::vector<PlanColumn> columns = children[0]->outputColumns();
    for (const auto& function : functions) {
      columns.push_back(function.column);
      if (function.ordinality) columns.push_back(*function.ordinality);
    }
    return columns;
  }

  std::vector<SetFunctionColumn> functions;
};

class LogicalFilter final : public LogicalOperator {
 public:
  LogicalFilter() : LogicalOperator(LogicalOperatorKind::kFilter) {}
  std::vector<PlanColumn> outputColumns() const override { return children[0]->outputColumns(); }

  /// Conjuncts: a row passes when every one is TRUE.
  std::vector<engine::ExpressionPtr> conditions;
};

/// Computes new columns; only they are output.
class LogicalProject final : public LogicalOperator {
 public:
  LogicalProject() : LogicalOperator(LogicalOperatorKind::kProject) {}
  std::vector<PlanColumn> outputColumns() const override;

  std::vector<engine::ExpressionPtr> expressions;
  std::vector<ColumnId> ids;
  std::vector<std::string> names;
};

enum class JoinType {
  kInner,
  kLeft,   // left outer
  kFull,   // full outer
  kSemi,   // left rows with a match
  kAnti,   // left rows without a match
  kMark,   // every left row, plus a BOOLEAN mark: matched (TRUE), not (FALSE), or unknown (NULL)
  kSingle  // left outer with at most one match, else 21000 (scalar subqueries)
};

std::string_view joinTypeName(JoinType type);

/// Joins two inputs on the conjuncts in `conditions` (none: every pair).
class LogicalJoin final : public LogicalOperator {
 public:
  LogicalJoin() : LogicalOperator(LogicalOperatorKind::kJoin) {}
  std::vector<PlanColumn> outputColumns() const override;

  JoinType type = JoinType::kInner;
  std::vector<engine::ExpressionPtr> conditions;
  /// The right input refers to columns of the left one: a subquery not yet
  /// decorrelated. The optimizer removes every one.
  bool dependent = false;
  /// The comparison of IN / NOT IN / op ANY / op ALL, for mark and anti joins:
  /// where it is NULL (not FALSE) for some right row and TRUE for none, the mark
  /// is NULL, so NOT IN over a set holding NULL keeps no row. Kept apart from
  /// `conditions`, which (correlation predicates) decide plainly which right
  /// rows take part at all. Null when the join is not NULL-aware.
  engine::ExpressionPtr nullAwareCondition;
  /// The mark column of kMark.
  ColumnId markId = 0;
  std::string markName;
  /// Which input the hash table is built from: the smaller, once the optimizer has chosen.
  bool buildLeft = false;
};

struct SortKey {
  engine::ExpressionPtr expression;
  bool ascending = true;
  bool nullsFirst = false;
};

struct AggregateCall {
  engine::AggregateFunction function;
  engine::ExpressionPtr argument;  // null for COUNT(*)
  bool distinct = false;
  engine::LogicalType resultType;
  ColumnId id;
  std::string name;
  engine::ExpressionPtr secondArgument;  // string_agg's delimiter, or the x of regr_slope(y, x)
  std::vector<SortKey> orderBy;          // array_agg(x ORDER BY y): the order the values are collected in
  bool combinesPartials = false;         // the argument holds kMoments partial states of an earlier phase
};

/// Groups by `groups` (none: one row over everything) and computes `aggregates`.
/// Outputs the group columns, then the aggregates.
class LogicalAggregate final : public LogicalOperator {
 public:
  LogicalAggregate() : LogicalOperator(LogicalOperatorKind::kAggregate) {}
  std::vector<PlanColumn> outputColumns() const override;

  std::vector<engine::ExpressionPtr> groups;
  std::vector<ColumnId> groupIds;
  std::vector<std::string> groupNames;
  std::vector<AggregateCall> aggregates;
};

class LogicalSort final : public LogicalOperator {
 public:
  LogicalSort() : LogicalOperator(LogicalOperatorKind::kSort) {}
  std::vector<PlanColumn> outputColumns() const override { return children[0]->outputColumns(); }

  std::vector<SortKey> keys;
};

class LogicalLimit final : public LogicalOperator {
 public:
  LogicalLimit() : LogicalOperator(LogicalOperatorKind::kLimit) {}
  std::vector<PlanColumn> outputColumns() const override { return children[0]->outputColumns(); }

  std::optional<int64_t> limit;
  int64_t offset = 0;
};

/// One end of a window frame. `offset` (n PRECEDING/FOLLOWING) is a constant or a parameter: a count of rows or
/// peer groups, or for RANGE a distance in the ORDER BY key's values. A RANGE offset also has `rangeBound`,
/// a column of the input holding each row's key minus or plus the offset (in the key's direction).
struct WindowFrameEnd {
  engine::FrameBound bound = engine::FrameBound::kUnboundedPreceding;
  engine::ExpressionPtr offset;
  engine::ExpressionPtr rangeBound;
};

struct WindowFrameClause {
  engine::FrameUnit unit = engine::FrameUnit::kRange;
  WindowFrameEnd start;
  WindowFrameEnd end{engine::FrameBound::kCurrentRow, nullptr, nullptr};
  engine::FrameExclusion exclusion = engine::FrameExclusion::kNoOthers;
  /// RANGE with an offset: the ORDER BY key as a column of the type its bounds have.
  engine::ExpressionPtr rangeKey;
};

/// One window function call. Its inputs are columns of the window's input (the binder projects them).
struct WindowCall {
  engine::WindowFunction function = engine::WindowFunction::kRowNumber;
  /// kAggregate: the aggregate and its argument(s) (never DISTINCT, never with ORDER BY).
  AggregateCall aggregate;
  /// The other functions' arguments (ntile's count; lag/lead's value, offset, default; nth_value's value, n).
  std::vector<engine::ExpressionPtr> arguments;
  WindowFrameClause frame;
  engine::LogicalType resultType;
  ColumnId id = 0;
  std::string name;
};

/// Window functions over one PARTITION BY and ORDER BY (each call with its own frame). Every expression is a
/// column of the input. Outputs the input's columns, then one per call.
class LogicalWindow final : public LogicalOperator {
 public:
  LogicalWindow() : LogicalOperator(LogicalOperatorKind::kWindow) {}
  std::vector<PlanColumn> outputColumns() const override {
    std::vector<PlanColumn> columns = children[0]->outputColumns();
    for (const auto& call : calls) columns.push_back({call.id, call.resultType, call.name});
    return columns;
  }

  std::vector<engine::ExpressionPtr> partitionBy;
  std::vector<SortKey> orderBy;
  std::vector<WindowCall> calls;
};

/// Concatenates its inputs; input i's column c becomes output column c.
class LogicalUnionAll final : public LogicalOperator {
 public:
  LogicalUnionAll() : LogicalOperator(LogicalOperatorKind::kUnionAll) {}
  std::vector<PlanColumn> outputColumns() const override { return columns; }

  std::vector<PlanColumn> columns;
};

/// The plan of a query, with the names the client sees for its output columns.
struct LogicalPlan {
  LogicalOperatorPtr root;
  /// Output column i is root's column i, named columnNames[i].
  std::vector<std::string> columnNames;
};

/// A recursive WITH query (`WITH RECURSIVE t AS (non-recursive term UNION [ALL] recursive term)`): the
/// executor runs the non-recursive term, then the recursive term over the rows the previous step gave (its
/// working table) until a step gives none; the query's rows are all the steps' rows. Under UNION, each
/// term's plan already drops the rows given so far and repeats (an EXCEPT of the rows so far).
struct RecursiveQuery {
  std::string name;
  /// Its rows' columns (ids local to the terms' plans; each reference gives them its own).
  std::vector<PlanColumn> columns;
  LogicalPlan nonRecursiveTerm;
  LogicalPlan recursiveTerm;
};

/// Rows computed before the plan runs and carried in it: a recursive WITH query's result, or, inside its
/// terms, its working table and the rows it has given so far. The executor fills `rows`
/// (coordinator/query/recursive_queries.h); a plan shipped to a worker carries the rows themselves.
class LogicalMaterialized final : public LogicalOperator {
 public:
  enum class Role : uint8_t { kResult, kWorkingTable, kRowsSoFar };

  LogicalMaterialized() : LogicalOperator(LogicalOperatorKind::kMaterialized) {}
  std::vector<PlanColumn> outputColumns() const override { return columns; }

  std::vector<PlanColumn> columns;
  /// The WITH query's name, for EXPLAIN.
  std::string name;
  Role role = Role::kResult;
  /// kResult: the query that computes the rows (its plans live as long as any copy of this node).
  std::shared_ptr<const RecursiveQuery> query;
  /// kWorkingTable and kRowsSoFar: the query whose recursive step reads them (its identity only).
  const RecursiveQuery* step = nullptr;
  /// The rows, once computed (null before).
  std::shared_ptr<const std::vector<engine::Chunk>> rows;
};

}  // namespace shoal::sql
