#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "sql/binder/bind_scope.h"
#include "sql/binder/catalog_reader.h"
#include "sql/binder/expression_binder.h"
#include "sql/plan/logical_operator.h"

namespace pg_query {
class SelectStmt;
class Node;
class CommonTableExpr;
class SubLink;
class RangeFunction;
class SortBy;
class GroupingSet;
}  // namespace pg_query

namespace shoal::sql {

/// Whether an ORDER BY key puts NULLs first: PostgreSQL sorts them as larger than any value unless told otherwise.
bool sortsNullsFirst(const pg_query::SortBy& sortBy);

/// Hands out the column ids of one statement's plan.
class ColumnIdGenerator {
 public:
  explicit ColumnIdGenerator(ColumnId first = 0) : next_(first) {}
  ColumnId next() { return next_++; }

 private:
  ColumnId next_ = 0;
};

/// One WITH query and, through `parent`, those visible where it is defined:
/// the ones defined before it, in its WITH clause and around it. Its body is
/// bound with `parent`, so it never sees itself or what follows it.
struct CteScope {
  std::string name;
  const pg_query::CommonTableExpr* definition = nullptr;
  const CteScope* parent = nullptr;

  /// WITH RECURSIVE's query that reads itself: bound once, on its first reference, as a RecursiveQuery that
  /// each reference reads (recursive_query_binding.cpp). Its body sees itself.
  bool recursive = false;
  enum class Binding : uint8_t { kNotYet, kNonRecursiveTerm, kRecursiveTerm, kDone };
  mutable Binding binding = Binding::kNotYet;
  mutable std::shared_ptr<RecursiveQuery> query;
  /// While the recursive term is bound: the references to the query in it, and the expression subqueries open
  /// around the one being bound (where PostgreSQL refuses a reference).
  mutable int selfReferences = 0;
  mutable int referenceLocation = -1;
  mutable int subqueryDepth = 0;

  /// The innermost visible WITH query of that name.
  const CteScope* find(std::string_view name) const;
};

/// Whether `tree` names `relation`, unqualified, as a table anywhere: a WITH RECURSIVE query that reads itself.
bool readsRelation(const google::protobuf::Message& tree, std::string_view relation);

/// While alive, the recursive terms being bound along `ctes` are inside an expression subquery.
class ExpressionSubqueryMark {
 public:
  explicit ExpressionSubqueryMark(const CteScope* ctes);
  ~ExpressionSubqueryMark();
  ExpressionSubqueryMark(const ExpressionSubqueryMark&) = delete;
  ExpressionSubqueryMark& operator=(const ExpressionSubqueryMark&) = delete;

 private:
  std::vector<const CteScope*> marked_;
};

/// The views being expanded around the query being bound, innermost first. A view met again inside its
/// own expansion refers to itself and would expand forever: it is refused with 42P17.
struct ViewExpansion {
  std::string_view name;
  const ViewExpansion* parent = nullptr;
  bool contains(std::string_view wanted) const;
};

/// Binds one SELECT (or UNION) into a logical plan: FROM items (tables, views,
/// WITH queries, subqueries, joins), WHERE, GROUP BY, HAVING, the select list,
/// DISTINCT, ORDER BY, LIMIT and OFFSET. A subquery used as an expression
/// becomes a join with the query it is nested in — a mark join for EXISTS and
/// IN, a single join for a scalar subquery — marked dependent when it refers
/// to the outer query; the optimizer decorrelates it.
class QueryBinder {
 public:
  /// `outer` is the scope of the query this one is nested in (null at the top); `views`, the views whose
  /// expansion (or, for CREATE VIEW, whose definition) this query is part of.
  QueryBinder(const CatalogReader& catalog, std::string_view text, std::vector<engine::LogicalType>& parameterTypes,
              ColumnIdGenerator& ids, const BindScope* outer = nullptr, const CteScope* ctes = nullptr,
              const ViewExpansion* views = nullptr);

  LogicalPlan bind(const pg_query::SelectStmt& select);

  /// Leaves untyped literals in the select list untyped, for a UNION to give them the other branch's type.
  void keepUntypedOutputs() { keepUntypedOutputs_ = true; }
  /// The values of $1..$n, when they are known at binding: LIMIT $1 and OFFSET $2 then take them. Without
  /// them such a LIMIT binds as none (its parameter typed bigint), for a plan that only describes the result.
  void useParameterValues(std::span<const engine::Value> values) { parameterValues_ = values; }

 private:
  struct PendingSubquery {
    JoinType type;
    LogicalOperatorPtr plan;
    std::vector<engine::ExpressionPtr> conditions;
    ColumnId markId = 0;
    engine::ExpressionPtr nullAwareCondition;
  };

  /// UNION, INTERSECT and EXCEPT [ALL] (set_operation_binding.cpp).
  LogicalPlan bindSetOperation(const pg_query::SelectStmt& select);
  /// A GROUPING(args) call of the query: its arguments (group keys) and the column that holds its value.
  struct GroupingCall {
    std::vector<engine::ExpressionPtr> arguments;
    ColumnId id;
    std::vector<int> locations;  // of each argument
  };
  static constexpr size_t kMaxGroupingSets = 4096;
  /// The grouping sets a ROLLUP, CUBE or GROUPING SETS item spans, each a list of keys that `addGroup` numbers
  /// (grouping_sets.cpp).
  std::vector<std::vector<size_t>> groupingSetsOf(const pg_query::GroupingSet& set,
                                                  const std::function<size_t(const pg_query::Node&)>& addGroup);
  /// Turns `aggregate` into an aggregation over each grouping set: in one pass when it can, else one aggregation
  /// per set over a copy of its input, concatenated. Keys outside a set are NULL, and each GROUPING() call is the
  /// set's constant. Outputs the aggregate's columns,
  /// then the GROUPING() calls' (grouping_sets.cpp).
  /// Whether aggregateGroupingSetsInOnePass serves `sets`: several sets, and no array_agg beside an empty set.
  static bool groupingSetsFitOnePass(const LogicalAggregate& aggregate, const std::vector<std::vector<size_t>>& sets);
  /// `aggregate` over every grouping set in one pass over its input: the input's rows repeated once per set and
  /// aggregated by their keys and set (grouping_sets_one_pass.cpp). `callKeys`: the keys each GROUPING() reads.
  LogicalOperatorPtr aggregateGroupingSetsInOnePass(std::unique_ptr<LogicalAggregate> aggregate,
                                                    const std::vector<std::vector<size_t>>& sets,
                                                    const std::vector<GroupingCall>& calls,
                                                    const std::vector<std::vector<size_t>>& callKeys);
  LogicalOperatorPtr expandGroupingSets(std::unique_ptr<LogicalAggregate> aggregate,
                                        const std::vector<std::vector<size_t>>& sets, std::vector<GroupingCall>& calls);
  /// Keeps the rows of a grouped INTERSECT or EXCEPT as many times as the result has them, from their copies on
  /// the `left` and `right` sides; outputs `output`, which gets the ids it has above.
  LogicalOperatorPtr keepCopies(LogicalOperatorPtr grouped, const pg_query::SelectStmt& select,
                                std::vector<PlanColumn>& output, const PlanColumn& left, const PlanColumn& right);
  /// ORDER BY (output names and positions only) and LIMIT/OFFSET over a set operation's or VALUES' `output`.
  LogicalOperatorPtr orderAndLimitOutput(const pg_query::SelectStmt& select, LogicalOperatorPtr plan,
                                         const std::vector<PlanColumn>& output, std::string_view construct);
  /// VALUES (...), (...) as a table of columns column1, column2, ... (values_binding.cpp).
  LogicalPlan bindValues(const pg_query::SelectStmt& select);
  LogicalPlan bindSimpleSelect(const pg_query::SelectStmt& select);
  void rejectUnsupportedClauses(const pg_query::SelectStmt& select) const;
  /// Makes the WITH queries of `select` visible to the rest of it.
  void registerCtes(const pg_query::SelectStmt& select);

  /// Binds a FROM item; its columns are added to `scope`.
  /// `lateral`: what a LATERAL subquery among the items may read besides the outer query (the FROM items before
  /// it); it then reads them as outer columns, and the caller makes its join dependent.
  LogicalOperatorPtr bindFromItem(const pg_query::Node& item, BindScope& scope, const BindScope* lateral = nullptr);
  /// generate_series(...), unnest(...), generate_subscripts(...) in FROM (table_function_binder.cpp).
  /// A function in FROM. When its arguments read the FROM items bound before it (`lateralInput`, the plan of
  /// the comma list so far), it takes that plan as its input and returns a ProjectSet over it; otherwise a
  /// Function Scan to be joined. Without `lateralInput` (inside a JOIN) its arguments may read no column.
  LogicalOperatorPtr bindRangeFunction(const pg_query::RangeFunction& range, BindScope& scope,
                                       LogicalOperatorPtr* lateralInput = nullptr);
  /// A function on the right of an INNER or LEFT JOIN, which may read the left side (`lateral`): bound as a
  /// LATERAL subquery over it (from_clause_binding.cpp).
  LogicalOperatorPtr bindLateralFunction(const pg_query::RangeFunction& range, BindScope& scope,
                                         const BindScope& lateral);
  LogicalOperatorPtr bindRangeVar(const pg_query::Node& item, BindScope& scope);
  /// A reference to a recursive WITH query: inside its own recursive term, the working table; elsewhere its rows
  /// (the query is bound on its first reference).
  LogicalOperatorPtr bindRecursiveReference(const CteScope& cte, const std::string& relation,
                                            std::vector<std::string> aliases, int location, BindScope& scope);
  void bindRecursiveQuery(const CteScope& cte);
  /// Casts a recursive query's term (whose output is `columns`) to the query's column types.
  void castTo(LogicalPlan& term, const std::vector<PlanColumn>& columns, const RecursiveQuery& query,
              ExpressionBinder& types);
  /// Under UNION (not ALL): `term` without repeated rows and without the rows `query` has given so far.
  void dropRowsSoFar(LogicalPlan& term, const RecursiveQuery& query);
  LogicalOperatorPtr bindJoin(const pg_query::Node& item, BindScope& scope);
  /// Gives a bound query's columns fresh ids and the names in `aliases` (or its own), under `relation`.
  LogicalOperatorPtr renameRelation(LogicalPlan plan, const std::string& relation,
                                    const std::vector<std::string>& aliases, int location, BindScope& scope);

  /// Registers a FROM item's name in `scope`; 42712 when the scope has it already.
  void addRelation(BindScope& scope, const std::string& relation) const;
  /// The session's database, which a four-part column name must name.
  std::string_view database() const {
    return catalog_.session() != nullptr ? std::string_view(catalog_.session()->database) : std::string_view();
  }
  /// An expression binder over the FROM scope that collects subqueries into `pending`.
  ExpressionBinder makeBinder(std::vector<PendingSubquery>& pending, std::string clause);
  engine::ExpressionPtr bindSubquery(const pg_query::SubLink& link, ExpressionBinder& binder,
                                     std::vector<PendingSubquery>& pending);
  /// Turns the plan of ARRAY(subquery) into one row holding its rows' `column` as an array, collected in the
  /// subquery's ORDER BY; returns that array's column.
  PlanColumn collectIntoArray(LogicalOperatorPtr& plan, const PlanColumn& column);
  /// Puts each pending subquery's join on top of `input`.
  LogicalOperatorPtr attachSubqueries(LogicalOperatorPtr input, std::vector<PendingSubquery>& pending);

  /// The WINDOW clause's definitions by name; 42P20 for a name defined twice (window_planning.cpp).
  NamedWindows namedWindows(const pg_query::SelectStmt& select) const;
  /// Computes the window function calls over `plan`: their inputs as columns, then a window per PARTITION BY
  /// and ORDER BY. Outputs the plan's columns and one per call (its id).
  LogicalOperatorPtr addWindows(LogicalOperatorPtr plan, std::vector<WindowFunctionCall> calls);

  /// SELECT DISTINCT ON (keys): the first row of each distinct `keys` in `order`; `columns` (the plan's) get the
  /// ids they have above it (window_planning.cpp).
  LogicalOperatorPtr keepFirstOfEach(LogicalOperatorPtr plan, const std::vector<PlanColumn>& keys,
                                     std::vector<SortKey> order, std::vector<PlanColumn>& columns);

  std::optional<int64_t> bindLimit(const pg_query::Node& node, std::string_view clause);
  /// Puts the statement's LIMIT and OFFSET (if any) on top of `plan`.
  LogicalOperatorPtr addLimit(const pg_query::SelectStmt& select, LogicalOperatorPtr plan);
  [[noreturn]] void fail(std::string_view sqlState, int location, std::string message) const;

  const CatalogReader& catalog_;
  std::string_view text_;
  std::vector<engine::LogicalType>& parameterTypes_;
  ColumnIdGenerator& ids_;
  const BindScope* outer_;
  const CteScope* ctes_;
  const ViewExpansion* views_;
  /// The FROM items of the query being bound.
  BindScope scope_;
  bool keepUntypedOutputs_ = false;
  std::span<const engine::Value> parameterValues_;
  /// CTEs of the query being bound; keeps the view texts they parse alive.
  std::vector<std::unique_ptr<CteScope>> cteStorage_;
};

}  // namespace shoal::sql
