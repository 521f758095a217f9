#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <google/protobuf/repeated_ptr_field.h>

#include "engine/expression/expression.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"
#include "sql/binder/object_identifiers.h"
#include "sql/plan/logical_operator.h"

namespace pg_query {
class Node;
class TypeName;
class TypeCast;
class A_Expr;
class A_ArrayExpr;
class A_Indirection;
class ColumnRef;
class SubLink;
class FuncCall;
class WindowDef;
}  // namespace pg_query

namespace shoal::sql {

/// Joins `terms` (at least one) with the binary AND or OR `function` into a balanced tree: a list of
/// thousands (x IN (...), a long OR chain) nests log2(n) levels deep, not n, so that no later walk of the
/// tree runs out of stack. AND and OR are associative in three-valued logic, so the shape changes nothing.
/// The last part of a qualified name as the parser gives it (pg_catalog.lower: lower).
std::string lastName(const google::protobuf::RepeatedPtrField<pg_query::Node>& names);
/// A type as PostgreSQL's format_type_be spells it in errors: without its modifiers ("numeric", "character").
std::string typeNameWithoutModifiers(const engine::LogicalType& type);
/// The keyword a SQLValueFunction was written as (current_user, ...), which also names its output column.
std::string_view sqlValueFunctionName(pg_query::SQLValueFunctionOp op);
/// The comparison an operator names ("=", "<>", "!=", "<", ...); nullopt for another operator.
std::optional<engine::ScalarFunction> comparisonFunction(std::string_view op);
/// The regular expression match an operator names (~, !~, ~*, !~*); nullopt for another operator.
std::optional<engine::ScalarFunction> regexFunction(std::string_view op);

engine::ExpressionPtr combineBalanced(engine::ScalarFunction function, std::vector<engine::ExpressionPtr> terms);

/// Whether `name` is one of the mathematical functions ExpressionBinder::bindMathFunction binds.
bool isMathFunction(std::string_view name);
/// Whether `name` is one of the string functions ExpressionBinder::bindStringLibraryFunction binds.
bool isStringLibraryFunction(std::string_view name);

/// A window function call as written: the call (arguments and frame over the query's columns) and its
/// window's PARTITION BY and ORDER BY. The QueryBinder groups the calls by window and projects their inputs.
struct WindowFunctionCall {
  WindowCall call;
  std::vector<engine::ExpressionPtr> partitionBy;
  std::vector<SortKey> orderBy;
};

/// The WINDOW clause's definitions by name, with their positions in it.
using NamedWindows = std::map<std::string, std::pair<const pg_query::WindowDef*, size_t>, std::less<>>;

/// Turns parse-tree expressions into typed engine expressions, resolving
/// column names through the caller's scope, inferring parameter types from
/// context and inserting PostgreSQL's implicit casts. Errors carry the
/// character position of the offending node.
class ExpressionBinder {
 public:
  /// Resolves a column reference (failing with 42703/42702 itself when it cannot).
  using ColumnResolver = std::function<engine::ExpressionPtr(const pg_query::ColumnRef&)>;
  /// Takes an aggregate call (its argument bound) and returns the expression that reads its result.
  using AggregateSink = std::function<engine::ExpressionPtr(AggregateCall)>;
  /// Takes a set-returning function call of the select list (its arguments bound) and returns what reads its
  /// values.
  using SetFunctionSink = std::function<engine::ExpressionPtr(SetFunctionColumn)>;
  /// Takes a window function call (its inputs bound) and returns the expression that reads its result.
  using WindowSink = std::function<engine::ExpressionPtr(WindowFunctionCall)>;
  /// Takes GROUPING(args)'s bound arguments (and where each is written) and returns what reads its value.
  using GroupingSink =
      std::function<engine::ExpressionPtr(std::vector<engine::ExpressionPtr> arguments, std::vector<int> locations)>;
  /// Binds a subquery used as an expression (EXISTS, IN, scalar) and returns what reads its result.
  using SubqueryBinder = std::function<engine::ExpressionPtr(const pg_query::SubLink&, ExpressionBinder&)>;

  /// Resolves names against `columns` (column i is read as ColumnRefExpression(i));
  /// `parameterTypes` holds the declared types of $1..$n (kUnknown where the
  /// client left it to the server) and is updated as parameters are resolved.
  ExpressionBinder(std::string_view queryText, const std::vector<ColumnDescription>& columns,
                   std::vector<engine::LogicalType>& parameterTypes);
  ExpressionBinder(std::string_view queryText, ColumnResolver resolver,
                   std::vector<engine::LogicalType>& parameterTypes);

  engine::ExpressionPtr bind(const pg_query::Node& node);
  /// Binds a select-list entry: as bind(), except that a reg* cast ('t'::regclass) gives the name it prints.
  engine::ExpressionPtr bindOutput(const pg_query::Node& node);

  /// Lets aggregate calls appear. Without a sink an aggregate fails with 42803 naming the clause.
  void setAggregateSink(AggregateSink sink) { aggregateSink_ = std::move(sink); }
  /// Lets window functions appear (the select list and ORDER BY), over the WINDOW clause's `named` windows.
  /// Without a sink they fail with 42P20 naming the clause.
  void setWindowSink(WindowSink sink, const NamedWindows* named) {
    windowSink_ = std::move(sink);
    namedWindows_ = named;
  }
  /// Lets GROUPING(...) appear (select list, HAVING, ORDER BY). Without a sink it fails with 42803.
  void setGroupingSink(GroupingSink sink) { groupingSink_ = std::move(sink); }
  /// Lets set-returning functions appear (the select list). Without a sink they fail with 0A000 naming the clause.
  void setSetFunctionSink(SetFunctionSink sink) { setFunctionSink_ = std::move(sink); }
  /// Lets subqueries appear. Without this they fail with 0A000.
  void setSubqueryBinder(SubqueryBinder binder) { subqueryBinder_ = std::move(binder); }
  void setClause(std::string clause) { clause_ = std::move(clause); }
  /// The values of $1..$n, when the statement is bound to run (a cast of $1 to regclass resolves it).
  void useParameterValues(std::span<const engine::Value> values) { parameterValues_ = values; }
  /// Lets current_user, current_database() and the like answer for the catalog's session, and the catalog
  /// functions (pg_table_is_visible, pg_get_userbyid) for its relations (null: they fail).
  void setCatalog(const CatalogReader* catalog) {
    catalog_ = catalog;
    session_ = catalog != nullptr ? catalog->session() : nullptr;
  }
  const std::string& clause() const { return clause_; }
  /// Every column reference bound outside an aggregate, with its location, in order.
  const std::vector<std::pair<ColumnId, int>>& bareColumnReferences() const { return bareColumnReferences_; }

  /// Binds `left <op> right` for a comparison operator ("=", "<", ...), with PostgreSQL's implicit casts.
  engine::ExpressionPtr bindComparisonOperator(std::string_view op, engine::ExpressionPtr left,
                                               engine::ExpressionPtr right, int location);
  /// The type CASE, COALESCE and UNION resolve a set of types to (42804 naming `construct` when none).
  engine::LogicalType commonType(const std::vector<engine::LogicalType>& types, std::string_view construct,
                                 int location) const;

  /// Converts `expression` to `target`: an untyped literal or parameter takes
  /// the type; anything else gets a cast when the conversion is allowed.
  engine::ExpressionPtr coerce(engine::ExpressionPtr expression, const engine::LogicalType& target, int location);
  /// The session's TimeZone setting ("UTC" outside a session): casts to and from timestamptz carry it.
  std::string timeZoneSetting() const;

  /// Gives any still-untyped literal or parameter the type text, as PostgreSQL
  /// does for output columns.
  engine::ExpressionPtr resolveUnknown(engine::ExpressionPtr expression, int location);

  /// The byte offset in the query text that a parse node reports, or -1.
  static int locationOf(const pg_query::Node& node);

  /// The output column name PostgreSQL would give this expression ("?column?" when none).
  static std::string columnNameOf(const pg_query::Node& node);

  /// Resolves a type name (int, numeric(15,2), varchar(25), timestamp(0), ...) (type_cast_binding.cpp).
  engine::LogicalType typeFromName(const pg_query::TypeName& typeName) const;

  /// Fails with 42601/0A000 and the position of `location` (a byte offset in the query text).
  [[noreturn]] void fail(std::string_view sqlState, int location, std::string message) const;
  /// The same, with a HINT for the client (empty: none).
  [[noreturn]] void fail(std::string_view sqlState, int location, std::string message, std::string hint) const;

  /// The condition of `clause` (WHERE, HAVING, JOIN/ON): an untyped literal read as boolean, any other
  /// non-boolean type 42804 "argument of <clause> must be type boolean".
  engine::ExpressionPtr bindCondition(const pg_query::Node& node, std::string_view clause);

 private:
  /// An untyped literal's value as `target`: timestamptz in the session's TimeZone, 'now' at its clock.
  engine::Value parseLiteral(const std::string& text, const engine::LogicalType& target) const;
  engine::ExpressionPtr bindConstant(const pg_query::Node& node);
  engine::ExpressionPtr bindColumnRef(const pg_query::Node& node);
  engine::ExpressionPtr bindParameter(const pg_query::Node& node);
  engine::ExpressionPtr bindOperator(const pg_query::Node& node);
  engine::ExpressionPtr bindArithmetic(char op, engine::ExpressionPtr left, engine::ExpressionPtr right, int location);
  engine::ExpressionPtr bindComparison(engine::ScalarFunction function, engine::ExpressionPtr left,
                                       engine::ExpressionPtr right, int location);
  engine::ExpressionPtr bindConcat(engine::ExpressionPtr left, engine::ExpressionPtr right, int location);
  /// The integer bit operators & | # << >> (math_function_binding.cpp); nullopt for another operator.
  std::optional<engine::ExpressionPtr> bindBitOperator(std::string_view op, engine::ExpressionPtr& left,
                                                       engine::ExpressionPtr& right, int location);
  /// expr COLLATE c: accepted for the collations that compare byte-wise, as Shoal does; 0A000 for others.
  engine::ExpressionPtr bindCollate(const pg_query::Node& node);
  /// LIKE, NOT LIKE, ~, !~, ~*, !~*: a string (a CHAR(n) keeps its padding) against a text pattern.
  engine::ExpressionPtr bindPatternMatch(engine::ScalarFunction function, std::string_view op,
                                         engine::ExpressionPtr left, engine::ExpressionPtr pattern, int location);
  engine::ExpressionPtr bindBoolean(const pg_query::Node& node);
  engine::ExpressionPtr bindNullTest(const pg_query::Node& node);
  /// int4in('5'), numeric_out(x), array_in('{1}', 23, -1): casts from and to text; 0A000 for the binary and
  /// typmod routines pg_type names; nullopt for a function that is no type's I/O routine
  /// (type_io_function_binding.cpp).
  std::optional<engine::ExpressionPtr> bindTypeIoFunction(const pg_query::FuncCall& call);
  /// CAST(x AS type) and x::type (type_cast_binding.cpp).
  engine::ExpressionPtr bindTypeCast(const pg_query::Node& node);
  /// x op ANY/ALL (ARRAY[...]) over the array's elements; nullopt for another array or operator.
  std::optional<engine::ExpressionPtr> bindArrayComparison(const pg_query::A_Expr& expr);
  // Arrays (array_binding.cpp).
  /// int[], text[], _int4 ...: the array type a type name names; nullopt when it names no array.
  std::optional<engine::LogicalType> arrayTypeFromName(std::string_view name, const pg_query::TypeName& typeName) const;
  /// ARRAY[a, b, ...], its elements of `elementType` when the constructor is cast (ARRAY[]::int[]).
  engine::ExpressionPtr bindArrayConstructor(const pg_query::A_ArrayExpr& array,
                                             std::optional<engine::LogicalType> elementType);
  /// array[i], or (record).field; slices fail with 0A000.
  engine::ExpressionPtr bindSubscript(const pg_query::A_Indirection& indirection);
  // Records (record_binding.cpp).
  /// information_schema._pg_expandarray(array): a record (x, n) per element, through the ProjectSet.
  engine::ExpressionPtr bindExpandArray(const pg_query::FuncCall& call);
  /// (record).field: 42809 when the value is no record, 42703 for a field it lacks.
  engine::ExpressionPtr bindFieldSelection(const pg_query::A_Indirection& indirection);
  /// x op ANY (array) and x op ALL (array) over any array value: a column, a parameter, a literal.
  engine::ExpressionPtr bindQuantifiedComparison(engine::ScalarFunction comparison, std::string_view op, bool isAll,
                                                 const pg_query::A_Expr& expr);
  /// || with an array on either side.
  engine::ExpressionPtr bindArrayConcat(engine::ExpressionPtr left, engine::ExpressionPtr right, int location);
  /// array_to_string, array_length, array_lower, array_upper, cardinality; nullopt for another name or
  /// arguments that fit no signature.
  std::optional<engine::ExpressionPtr> bindArrayFunction(std::string_view name,
                                                         std::vector<engine::ExpressionPtr>& arguments, int location);
  // JSON (json_binding.cpp).
  /// json -> key/index, ->>, #> path, #>>; nullopt for another operator. Fails with 42883 unless the left side
  /// is json or jsonb and the right a key, an index or a text[] path.
  std::optional<engine::ExpressionPtr> bindJsonOperator(std::string_view op, engine::ExpressionPtr& left,
                                                        engine::ExpressionPtr& right, int location);
  /// jsonb op jsonb, through jsonb_cmp: PostgreSQL orders jsonb by structure, not by its text.
  engine::ExpressionPtr bindJsonbComparison(engine::ScalarFunction comparison, engine::ExpressionPtr left,
                                            engine::ExpressionPtr right);
  /// json_typeof, jsonb_typeof, json[b]_extract_path[_text]; nullopt for another name.
  std::optional<engine::ExpressionPtr> bindJsonFunction(std::string_view name,
                                                        std::vector<engine::ExpressionPtr>& arguments, int location);
  /// The object identifier type `node` casts to, when it is such a cast (x::regclass).
  static std::optional<ObjectIdentifierType> objectIdentifierCast(const pg_query::Node& node);
  /// Whether `function` is to_regclass(), to_regtype() or another lookup of an object identifier by name.
  static bool isObjectIdentifierLookup(std::string_view function);
  /// x::regclass and the like: an OID (BIGINT), resolved now from a constant name.
  engine::ExpressionPtr bindObjectIdentifierCast(const pg_query::TypeCast& cast, ObjectIdentifierType type);
  /// to_regclass(text) and the like: as the cast, but NULL where nothing has the name.
  engine::ExpressionPtr bindObjectIdentifierLookup(std::string_view function,
                                                   std::vector<engine::ExpressionPtr> arguments, int location);
  /// The OID `text` (a constant, or a parameter whose value is known) names as type `type`.
  engine::ExpressionPtr resolveObjectIdentifier(engine::ExpressionPtr text, ObjectIdentifierType type,
                                                std::string_view typeName, int location, bool nullWhenMissing);
  /// The OID of the type `text` names, as regtype reads it; 42704 for a type Shoal does not have.
  int64_t typeOidFromText(const std::string& text) const;
  engine::ExpressionPtr bindFunctionCall(const pg_query::Node& node);
  engine::ExpressionPtr bindSqlValueFunction(const pg_query::Node& node);
  engine::ExpressionPtr bindAggregate(const pg_query::Node& node, engine::AggregateFunction function);
  /// stddev, variance, covar, corr and regr_* (statistical_aggregate_binding.cpp).
  engine::ExpressionPtr bindStatisticalAggregate(const pg_query::Node& node, engine::AggregateFunction function);
  /// percentile_cont, percentile_disc and mode WITHIN GROUP (ORDER BY x) (statistical_aggregate_binding.cpp).
  engine::ExpressionPtr bindOrderedSetAggregate(const pg_query::Node& node, engine::AggregateFunction function);
  /// approx_count_distinct(x) and approx_percentile(x, fraction).
  engine::ExpressionPtr bindApproximateAggregate(const pg_query::Node& node, engine::AggregateFunction function);
  /// Refuses an aggregate inside another, in FILTER, or in a clause without aggregates (42803).
  void checkAggregateAllowed(const pg_query::FuncCall& call);
  /// Hands a bound aggregate call to the aggregate sink, or, for an aggregate called OVER a window, to the
  /// window sink as a window aggregate over that window.
  engine::ExpressionPtr emitAggregate(AggregateCall call);
  /// What binding an aggregate's arguments changes, to put back after (endAggregateArguments).
  struct AggregateArguments {
    const WindowFunctionCall* window;
    bool insideAggregate;
    bool insideWindow;
  };
  /// Entered before an aggregate's arguments are bound: nested aggregates are errors there, except in a window
  /// aggregate's arguments, which may hold plain ones (sum(sum(x)) OVER (...)) but no window function.
  AggregateArguments beginAggregateArguments();
  void endAggregateArguments(const AggregateArguments& saved);
  /// f(...) OVER (...) (window_binding.cpp).
  engine::ExpressionPtr bindWindowFunction(const pg_query::Node& node);
  /// The window of an OVER clause (or, `definesName`, of a WINDOW clause entry), after the WINDOW clause entry
  /// it names, into `into`.
  void bindWindowDefinition(const pg_query::WindowDef& definition, WindowFunctionCall& into, int location,
                            bool definesName = false);
  /// The frame clause of `definition` (`options`: its FRAMEOPTION_ bits) into `into`.
  void bindWindowFrame(const pg_query::WindowDef& definition, WindowFunctionCall& into);
  /// A RANGE frame's offset: the per-row bound (the key minus or plus the offset) and the key as its type.
  void bindRangeOffset(const pg_query::Node& offsetNode, WindowFrameEnd& end, WindowFunctionCall& into);
  /// An aggregate's FILTER (WHERE c) condition, bound; null without one.
  engine::ExpressionPtr bindAggregateFilter(const pg_query::FuncCall& call);
  /// `argument` where `filter` holds, else NULL (the argument itself without a filter).
  engine::ExpressionPtr filteredArgument(engine::ExpressionPtr filter, engine::ExpressionPtr argument);
  /// A set-returning function in the select list (unnest, generate_series, generate_subscripts).
  engine::ExpressionPtr bindSetFunction(const pg_query::Node& node);
  /// An aggregate's own ORDER BY (array_agg(x ORDER BY y)); under DISTINCT its keys must be its arguments.
  std::vector<SortKey> bindAggregateOrder(const pg_query::FuncCall& call, bool distinct,
                                          const engine::Expression& argument, const engine::Expression* delimiter);
  engine::ExpressionPtr bindSpecialOperator(const pg_query::Node& node);
  engine::ExpressionPtr bindCase(const pg_query::Node& node);
  // conditional_binding.cpp: COALESCE, GREATEST and LEAST, IS [NOT] TRUE/FALSE/UNKNOWN, num_nulls.
  engine::ExpressionPtr bindCoalesce(const pg_query::Node& node);
  engine::ExpressionPtr bindGreatestOrLeast(const pg_query::MinMaxExpr& expression);
  engine::ExpressionPtr bindBooleanTest(const pg_query::BooleanTest& test);
  /// num_nulls(...) and num_nonnulls(...) over bound arguments of any type.
  engine::ExpressionPtr bindNullCount(std::string_view name, std::vector<engine::ExpressionPtr>& arguments,
                                      int location);
  engine::ExpressionPtr bindSubLink(const pg_query::Node& node);
  engine::ExpressionPtr bindExtract(const pg_query::Node& node);
  engine::ExpressionPtr bindSubstring(const pg_query::Node& node);
  /// EXTRACT(unit FROM timestamp) (numeric at the unit's scale) and date_part (double precision).
  engine::ExpressionPtr bindTimestampPart(const std::string& unit, engine::ExpressionPtr source, bool asDouble,
                                          int location);
  /// PostgreSQL's mathematical functions (math_function_binding.cpp), with their arguments bound;
  /// `undefined` fails with 42883 for a signature PostgreSQL does not have.
  engine::ExpressionPtr bindMathFunction(std::string_view name, std::vector<engine::ExpressionPtr>& arguments,
                                         int location, const std::function<void()>& undefined);
  /// PostgreSQL's string library (string_function_binding.cpp): concat, lpad, btrim, split_part, regexp_replace
  /// and the rest of text_functions.h, with their arguments bound.
  /// The byte-string functions (engine/expression/bytea_functions.h): octet_length, length, md5 and substring
  /// of a bytea, encode and decode; nullptr when `name` with these arguments is none of them.
  engine::ExpressionPtr bindByteaFunction(std::string_view name, std::vector<engine::ExpressionPtr>& arguments,
                                          int location, const std::function<void()>& undefined);
  engine::ExpressionPtr bindStringLibraryFunction(std::string_view name, std::vector<engine::ExpressionPtr>& arguments,
                                                  int location, const std::function<void()>& undefined);
  /// `text` as TEXT; a CHAR(n) value keeps its padding to n characters, which its cast to text strips: how
  /// PostgreSQL's output function (concat) and bpchar operators (ILIKE) see it.
  engine::ExpressionPtr paddedText(engine::ExpressionPtr text, int location);
  /// date_trunc(unit, timestamp [, zone]).
  engine::ExpressionPtr bindDateTrunc(const pg_query::FuncCall& call);
  /// to_char(timestamp, timestamptz or date, format) (datetime_to_char.h).
  engine::ExpressionPtr bindToChar(const pg_query::FuncCall& call);
  /// isfinite(date | timestamp | timestamptz | interval): not 'infinity' nor '-infinity'.
  engine::ExpressionPtr bindIsFinite(std::vector<engine::ExpressionPtr>& arguments,
                                     const std::function<void()>& undefined);
  /// make_interval(...), its arguments positional or named (days => 10).
  engine::ExpressionPtr bindMakeInterval(const pg_query::FuncCall& call);
  /// make_date, make_timestamp, make_timestamptz and to_timestamp(seconds), or nullptr for another name.
  engine::ExpressionPtr bindDateTimeConstructor(const std::string& name, std::vector<engine::ExpressionPtr>& arguments,
                                                int location, const std::function<void()>& undefined);
  /// age, justify_hours, justify_days and justify_interval, or nullptr for another name.
  engine::ExpressionPtr bindIntervalFunction(const std::string& name, std::vector<engine::ExpressionPtr>& arguments,
                                             int location, const std::function<void()>& undefined);
  /// EXTRACT(unit FROM date) (numeric) or date_part(unit, date) (double precision, of the date's midnight).
  engine::ExpressionPtr bindDatePart(const std::string& unit, engine::ExpressionPtr date, bool asDouble, int location);
  /// EXTRACT(unit FROM interval) or date_part(unit, interval).
  engine::ExpressionPtr bindIntervalPart(const std::string& unit, engine::ExpressionPtr source, bool asDouble,
                                         int location);
  /// date_trunc(unit, interval).
  engine::ExpressionPtr bindIntervalTrunc(const std::string& unit, engine::ExpressionPtr source, int location);
  /// sum(interval) and avg(interval), from sums of the intervals' fields.
  engine::ExpressionPtr bindIntervalSum(engine::AggregateFunction function, engine::ExpressionPtr argument,
                                        engine::ExpressionPtr filter, bool distinct, int location);
  /// `value`::interval, interval 'text' [fields] [(precision)]: a literal is read once, here.
  engine::ExpressionPtr bindIntervalCast(const pg_query::TypeCast& cast);
  /// + - * / over intervals and timestamps (interval_functions.h), or nullptr when neither operand is an
  /// interval or a timestamp; the operands are consumed only when an expression is returned.
  engine::ExpressionPtr bindDateTimeArithmetic(char op, engine::ExpressionPtr& left, engine::ExpressionPtr& right,
                                               int location);
  /// time ± interval, interval + time, time - time, date + time and time + date; 42883 otherwise.
  engine::ExpressionPtr bindTimeArithmetic(char op, engine::ExpressionPtr& left, engine::ExpressionPtr& right,
                                           int location);

  [[noreturn]] void failNoOperator(std::string_view op, const engine::LogicalType& left,
                                   const engine::LogicalType& right, int location) const;

  std::string_view queryText_;
  ColumnResolver resolveColumn_;
  std::vector<engine::LogicalType>& parameterTypes_;
  AggregateSink aggregateSink_;
  SetFunctionSink setFunctionSink_;
  bool insideSetFunction_ = false;
  SubqueryBinder subqueryBinder_;
  WindowSink windowSink_;
  GroupingSink groupingSink_;
  const NamedWindows* namedWindows_ = nullptr;
  /// The window of the aggregate being bound as a window function (null otherwise).
  const WindowFunctionCall* windowOfAggregate_ = nullptr;
  /// Whether that aggregate handed a call to the window sink (a plain function called OVER does not).
  bool windowAggregateEmitted_ = false;
  /// Binding a window function's arguments, where another window function is an error.
  bool insideWindow_ = false;
  /// Binding an OVER clause's PARTITION BY, ORDER BY and frame.
  bool insideWindowDefinition_ = false;
  /// WINDOW clause entries followed from one OVER clause (more than there are: a cycle).
  size_t windowReferenceDepth_ = 0;
  std::string clause_ = "WHERE";
  const SessionInfo* session_ = nullptr;
  const CatalogReader* catalog_ = nullptr;
  std::span<const engine::Value> parameterValues_;
  bool insideAggregate_ = false;
  /// Binding an aggregate's FILTER condition, where PostgreSQL names a nested aggregate's error after FILTER.
  bool insideFilter_ = false;
  std::vector<std::pair<ColumnId, int>> bareColumnReferences_;
};

}  // namespace shoal::sql
