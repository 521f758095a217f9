// ExpressionBinder's binding of function calls: the aggregates, EXTRACT and substring, the catalog, session,
// array and string functions, and the errors PostgreSQL gives for a call that fits no function.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/status.h"
#include "engine/aggregate/moments.h"
#include "engine/expression/cast.h"
#include "engine/expression/timestamp_functions.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/catalog_functions.h"
#include "sql/binder/description_functions.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/privilege_functions.h"
#include "sql/binder/session_functions.h"
#include "sql/binder/set_functions.h"
#include "sql/binder/type_coercion.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;

ExpressionPtr ExpressionBinder::bindFunctionCall(const pg_query::Node& node) {
  const auto& call = node.func_call();
  std::string name = lastName(call.funcname());
  static const std::map<std::string, engine::AggregateFunction, std::less<>> kAggregates = {
      {"count", engine::AggregateFunction::kCount},
      {"sum", engine::AggregateFunction::kSum},
      {"avg", engine::AggregateFunction::kAvg},
      {"min", engine::AggregateFunction::kMin},
      {"max", engine::AggregateFunction::kMax},
      {"array_agg", engine::AggregateFunction::kArrayAgg},
      // Over booleans (false < true): bool_and is the minimum, bool_or the maximum.
      {"bool_and", engine::AggregateFunction::kMin},
      {"every", engine::AggregateFunction::kMin},
      {"bool_or", engine::AggregateFunction::kMax},
      {"string_agg", engine::AggregateFunction::kStringAgg}};
  if (call.has_over() && windowOfAggregate_ == nullptr) return bindWindowFunction(node);
  static const std::map<std::string, engine::AggregateFunction, std::less<>> kOrderedSetAggregates = {
      {"percentile_cont", engine::AggregateFunction::kPercentileCont},
      {"percentile_disc", engine::AggregateFunction::kPercentileDisc},
      {"mode", engine::AggregateFunction::kMode}};
  if (auto orderedSet = kOrderedSetAggregates.find(name); orderedSet != kOrderedSetAggregates.end()) {
    if (windowOfAggregate_ != nullptr) {
      fail(SqlState::kFeatureNotSupported, call.location(),
           fmt::format("OVER is not supported for ordered-set aggregate {}", name));
    }
    return bindOrderedSetAggregate(node, orderedSet->second);
  }
  if (auto aggregate = kAggregates.find(name); aggregate != kAggregates.end() && !call.agg_within_group()) {
    return bindAggregate(node, aggregate->second);
  }
  if (name == "approx_count_distinct")
    return bindApproximateAggregate(node, engine::AggregateFunction::kApproxCountDistinct);
  if (name == "approx_percentile") return bindApproximateAggregate(node, engine::AggregateFunction::kApproxPercentile);
  static const std::map<std::string, engine::AggregateFunction, std::less<>> kStatistics = {
      {"stddev", engine::AggregateFunction::kStddevSamp},
      {"stddev_samp", engine::AggregateFunction::kStddevSamp},
      {"stddev_pop", engine::AggregateFunction::kStddevPop},
      {"variance", engine::AggregateFunction::kVarSamp},
      {"var_samp", engine::AggregateFunction::kVarSamp},
      {"var_pop", engine::AggregateFunction::kVarPop},
      {"covar_pop", engine::AggregateFunction::kCovarPop},
      {"covar_samp", engine::AggregateFunction::kCovarSamp},
      {"corr", engine::AggregateFunction::kCorr},
      {"regr_count", engine::AggregateFunction::kRegrCount},
      {"regr_sxx", engine::AggregateFunction::kRegrSxx},
      {"regr_syy", engine::AggregateFunction::kRegrSyy},
      {"regr_sxy", engine::AggregateFunction::kRegrSxy},
      {"regr_avgx", engine::AggregateFunction::kRegrAvgX},
      {"regr_avgy", engine::AggregateFunction::kRegrAvgY},
      {"regr_r2", engine::AggregateFunction::kRegrR2},
      {"regr_slope", engine::AggregateFunction::kRegrSlope},
      {"regr_intercept", engine::AggregateFunction::kRegrIntercept}};
  if (auto statistic = kStatistics.find(name); statistic != kStatistics.end() && !call.agg_within_group()) {
    return bindStatisticalAggregate(node, statistic->second);
  }
  if (call.agg_within_group()) {
    // As PostgreSQL resolves `agg(direct) WITHIN GROUP (ORDER BY x)`: by all its arguments. An ordinary
    // aggregate that takes that many is the wrong kind (42809); else there is no such function (42883).
    const auto known = kAggregates.find(name);
    const auto statistic = kStatistics.find(name);
    const int arguments = (call.agg_star() ? 0 : call.args_size()) + call.agg_order_size();
    const bool twoArguments = (known != kAggregates.end() && known->second == engine::AggregateFunction::kStringAgg) ||
                              (statistic != kStatistics.end() && engine::takesTwoVariables(statistic->second));
    if ((known != kAggregates.end() || statistic != kStatistics.end()) && arguments == (twoArguments ? 2 : 1)) {
      fail(SqlState::kWrongObjectType, call.location(),
           fmt::format("{} is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name));
    }
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function {}(...) does not exist", name),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  }
  // Aggregate clauses on a function that is no aggregate, refused as PostgreSQL refuses them.
  if (call.agg_star()) {
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function {}() does not exist", name));
  }
  for (auto [given, clause] :
       {std::pair{call.agg_distinct(), "DISTINCT"}, std::pair{call.agg_order_size() > 0, "ORDER BY"},
        std::pair{call.has_agg_filter(), "FILTER"}}) {
    if (given) {
      fail(SqlState::kWrongObjectType, call.location(),
           fmt::format("{} specified, but {} is not an aggregate function", clause, name));
    }
  }
  if (isSetFunctionName(name)) return bindSetFunction(node);
  if (name == "_pg_expandarray") return bindExpandArray(call);
  if (auto value = bindSessionFunction(name, static_cast<size_t>(call.args_size()), session_, catalog_)) return value;
  if (auto io = bindTypeIoFunction(call)) return std::move(*io);
  if (name == "pg_typeof" && call.args_size() == 1 && !call.agg_star()) {
    // A regtype: the argument's type, known as the statement is bound.
    ExpressionPtr argument = bind(call.args(0));
    return std::make_unique<engine::ConstantExpression>(
        engine::Value::bigInt(isUnknown(argument) ? engine::pg_oid::kUnknown : argument->type().postgresOid()));
  }
  if (name == "extract" || name == "date_part") {
    return bindExtract(node);
  }
  if (name == "substring" || name == "substr") {
    return bindSubstring(node);
  }
  if (name == "date_trunc") return bindDateTrunc(call);
  if (name == "to_char") return bindToChar(call);
  if (name == "make_interval") return bindMakeInterval(call);
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) {
    arguments.push_back(bind(argument));
  }
  // The argument types as written, taken now: the binders below coerce and move arguments before they may
  // find no signature (justify_hours(1) took the coordinator down reading a moved-out argument).
  std::string writtenTypes;
  for (const auto& argument : arguments)
    writtenTypes += (writtenTypes.empty() ? "" : ", ") + argument->type().toString();
  auto signature = [&] { return fmt::format("{}({})", name, writtenTypes); };
  auto undefined = [&]() {
    int position = characterPosition(queryText_, call.location());
    throw ShoalError(Status(SqlState::kUndefinedFunction, fmt::format("function {} does not exist", signature()),
                            position > 0 ? std::optional<int>(position) : std::nullopt)
                         .withHint("No function matches the given name and argument types. You might need to add "
                                   "explicit type casts."));
  };
  auto textual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
  if (ExpressionPtr bytes = bindByteaFunction(name, arguments, call.location(), undefined)) return bytes;
  if (isMathFunction(name)) return bindMathFunction(name, arguments, call.location(), undefined);
  if (ExpressionPtr interval = bindIntervalFunction(name, arguments, call.location(), undefined)) return interval;
  if (ExpressionPtr made = bindDateTimeConstructor(name, arguments, call.location(), undefined)) return made;
  if (isStringLibraryFunction(name)) return bindStringLibraryFunction(name, arguments, call.location(), undefined);
  if (name == "num_nulls" || name == "num_nonnulls") {
    if (arguments.empty()) undefined();
    return bindNullCount(name, arguments, call.location());
  }
  if (isDescriptionFunction(name)) {
    // obj_description(oid [, catalog]), col_description(oid, integer), shobj_description(oid, catalog).
    const bool twoArguments = name != "obj_description" || arguments.size() == 2;
    if (arguments.size() != (twoArguments ? 2u : 1u)) undefined();
    if (isUnknown(arguments[0])) arguments[0] = coerce(std::move(arguments[0]), LogicalType::bigInt(), call.location());
    if (!arguments[0]->type().isIntegral()) undefined();
    if (name == "col_description" && isUnknown(arguments[1])) {
      arguments[1] = coerce(std::move(arguments[1]), LogicalType::integer(), call.location());
    }
    if (name == "col_description" ? !arguments[1]->type().isIntegral() : twoArguments && !textual(arguments[1])) {
      undefined();
    }
    if (catalog_ == nullptr)
      fail(SqlState::kFeatureNotSupported, call.location(), fmt::format("{}() is not supported here", name));
    return bindDescriptionFunction(name, std::move(arguments), *catalog_);
  }
  if (name == "set_config") {
    fail(SqlState::kFeatureNotSupported, call.location(),
         "set_config() runs only alone, as SELECT set_config('name', 'value', false) with constants");
  }
  if (isObjectIdentifierLookup(name)) {
    if (arguments.size() != 1 || !textual(arguments[0])) undefined();
    return bindObjectIdentifierLookup(name, std::move(arguments), call.location());
  }
  if (name == "pg_get_indexdef" || name == "pg_get_constraintdef") {
    const bool index = name == "pg_get_indexdef";
    if (index ? arguments.size() != 1 && arguments.size() != 3 : arguments.empty() || arguments.size() > 2) undefined();
    auto take = [&](size_t i, const LogicalType& type, bool fits) {
      if (!fits && !isUnknown(arguments[i])) undefined();
      arguments[i] = coerce(std::move(arguments[i]), type, call.location());
    };
    take(0, LogicalType::bigInt(), arguments[0]->type().isIntegral());
    if (index && arguments.size() == 3) take(1, LogicalType::integer(), arguments[1]->type().isIntegral());
    if (arguments.size() > 1) {
      take(arguments.size() - 1, LogicalType::boolean(), arguments.back()->type().id() == TypeId::kBoolean);
    }
    if (catalog_ == nullptr) {
      fail(SqlState::kFeatureNotSupported, call.location(), fmt::format("{}() is not supported here", name));
    }
    return bindKeyDefinition(name, std::move(arguments), *catalog_);
  }
  if (name == "pg_get_viewdef") {
    // (oid [, pretty | wrap column]) or (view name [, pretty]): the name is resolved as 'name'::regclass is.
    if (arguments.empty() || arguments.size() > 2) undefined();
    if (arguments.size() == 2 && arguments[1]->type().id() != TypeId::kBoolean && !arguments[1]->type().isIntegral() &&
        !isUnknown(arguments[1])) {
      undefined();
    }
    if (textual(arguments[0])) {
      arguments[0] = resolveObjectIdentifier(std::move(arguments[0]), ObjectIdentifierType::kRegclass, "regclass",
                                             call.location(), false);
    }
    if (!arguments[0]->type().isIntegral()) undefined();
    if (catalog_ == nullptr)
      fail(SqlState::kFeatureNotSupported, call.location(), "pg_get_viewdef() is not supported here");
    return bindViewDefinition(coerce(std::move(arguments[0]), LogicalType::bigInt(), call.location()), *catalog_);
  }
  if (name == "pg_get_expr") {
    // Shoal's catalogs keep expressions (PostgreSQL's pg_node_tree columns) as SQL text, which is the answer.
    if (arguments.size() < 2 || arguments.size() > 3 || !textual(arguments[0])) undefined();
    if (!arguments[1]->type().isIntegral() && !isUnknown(arguments[1])) undefined();
    return coerce(std::move(arguments[0]), LogicalType::text(), call.location());
  }
  if (name == "current_schemas") {
    if (arguments.size() != 1) undefined();
    if (isUnknown(arguments[0]))
      arguments[0] = coerce(std::move(arguments[0]), LogicalType::boolean(), call.location());
    if (arguments[0]->type().id() != TypeId::kBoolean) undefined();
    return bindCurrentSchemas(std::move(arguments[0]), catalog_);
  }
  if (name == "current_setting") {
    if (arguments.empty() || arguments.size() > 2 || !textual(arguments[0])) undefined();
    if (arguments.size() == 2 && !textual(arguments[1]) && arguments[1]->type().id() != engine::TypeId::kBoolean) {
      undefined();
    }
    return bindCurrentSetting(arguments, session_);
  }
  if (isPrivilegeFunction(name)) {
    if (arguments.size() != 2 && arguments.size() != 3) undefined();
    // Each argument is a name (text) or an OID, except the privileges, which are text.
    for (size_t i = 0; i < arguments.size(); ++i) {
      const bool last = i + 1 == arguments.size();
      if (!textual(arguments[i]) && (last || !arguments[i]->type().isIntegral())) undefined();
    }
    if (catalog_ == nullptr) {
      fail(SqlState::kFeatureNotSupported, call.location(), fmt::format("{}() is not supported here", name));
    }
    return bindPrivilegeFunction(name, std::move(arguments), *catalog_);
  }
  if (auto signature = catalogFunctionSignature(name)) {
    if (arguments.size() != signature->size()) undefined();
    for (size_t i = 0; i < arguments.size(); ++i) {
      // Each argument of the family its parameter is: integers for OIDs and numbers, strings for text.
      const bool fits = (*signature)[i].isString() ? textual(arguments[i]) : arguments[i]->type().isIntegral();
      if (!fits && !isUnknown(arguments[i])) undefined();
      arguments[i] = coerce(std::move(arguments[i]), (*signature)[i], call.location());
    }
    if (catalog_ == nullptr) {
      fail(SqlState::kFeatureNotSupported, call.location(), fmt::format("{}() is not supported here", name));
    }
    return bindCatalogFunction(name, std::move(arguments), *catalog_);
  }
  if (auto array = bindArrayFunction(name, arguments, call.location())) return std::move(*array);
  if (auto json = bindJsonFunction(name, arguments, call.location())) return std::move(*json);
  if (name == "quote_ident" || name == "quote_literal" || name == "quote_nullable" || name == "format") {
    // quote_ident takes text; the others any value, as its text (format's first argument is text).
    if (arguments.empty() || (name != "format" && arguments.size() != 1)) undefined();
    if ((name == "quote_ident" || name == "format") && !textual(arguments[0])) undefined();
    for (auto& argument : arguments) {
      // format writes its values with their output functions; quote_literal and quote_nullable cast to text.
      if (name == "format" && argument->type().id() == TypeId::kBoolean)
        argument = booleanOutputText(std::move(argument));
      argument = coerce(std::move(argument), LogicalType::text(), call.location());
    }
    const auto function = name == "quote_ident"     ? ScalarFunction::kQuoteIdent
                          : name == "quote_literal" ? ScalarFunction::kQuoteLiteral
                          : name == "format"        ? ScalarFunction::kFormat
                                                    : ScalarFunction::kQuoteNullable;
    return functionOf(function, LogicalType::text(), std::move(arguments));
  }
  if (name == "json_build_object") {
    if (arguments.size() % 2 != 0) {
      throw ShoalError(Status(SqlState::kInvalidParameterValue, "argument list must have even number of elements")
                           .withHint("The arguments of json_build_object() must consist of alternating keys and "
                                     "values."));
    }
    // Its parameters are "any": a literal of no type yet is text.
    for (auto& argument : arguments) argument = resolveUnknown(std::move(argument), call.location());
    return functionOf(ScalarFunction::kJsonBuildObject, LogicalType::json(), std::move(arguments));
  }
  if (name == "replace") {
    if (arguments.size() != 3 || !std::all_of(arguments.begin(), arguments.end(), textual)) undefined();
    for (auto& argument : arguments) argument = coerce(std::move(argument), LogicalType::text(), call.location());
    return functionOf(ScalarFunction::kReplace, LogicalType::text(), std::move(arguments));
  }
  ScalarFunction function;
  LogicalType resultType = LogicalType::text();
  if (name == "lower") {
    function = ScalarFunction::kLower;
  } else if (name == "upper") {
    function = ScalarFunction::kUpper;
  } else if (name == "length" || name == "char_length" || name == "character_length") {
    function = ScalarFunction::kCharLength;
    resultType = LogicalType::integer();
  } else {
    undefined();
  }
  if (arguments.size() != 1 || !(arguments[0]->type().isString() || isUnknown(arguments[0]))) {
    undefined();
  }
  ExpressionPtr argument = coerce(std::move(arguments[0]), LogicalType::text(), call.location());
  return makeFunction(function, resultType, std::move(argument));
}

void ExpressionBinder::checkAggregateAllowed(const pg_query::FuncCall& call) {
  if (windowOfAggregate_ != nullptr) {
    if (call.agg_distinct()) {
      fail(SqlState::kFeatureNotSupported, call.location(), "DISTINCT is not implemented for window functions");
    }
    if (call.agg_order_size() > 0) {
      fail(SqlState::kFeatureNotSupported, call.location(),
           "aggregate ORDER BY is not implemented for window functions");
    }
    return;
  }
  if (insideAggregate_) {
    fail(SqlState::kGroupingError, call.location(),
         insideFilter_ ? "aggregate functions are not allowed in FILTER" : "aggregate function calls cannot be nested");
  }
  if (!aggregateSink_) {
    fail(SqlState::kGroupingError, call.location(), fmt::format("aggregate functions are not allowed in {}", clause_));
  }
}

ExpressionPtr ExpressionBinder::bindAggregateFilter(const pg_query::FuncCall& call) {
  if (!call.has_agg_filter()) return nullptr;
  insideAggregate_ = insideFilter_ = true;
  ExpressionPtr filter = bind(call.agg_filter());
  insideAggregate_ = insideFilter_ = false;
  if (isUnknown(filter)) filter = coerce(std::move(filter), LogicalType::boolean(), call.location());
  if (filter->type().id() != TypeId::kBoolean) {
    fail(SqlState::kDatatypeMismatch, call.location(),
         fmt::format("argument of FILTER must be type boolean, not type {}", filter->type().toString()));
  }
  return filter;
}

ExpressionPtr ExpressionBinder::filteredArgument(ExpressionPtr filter, ExpressionPtr argument) {
  // FILTER (WHERE c): the aggregate sees NULL where c is not true, which every aggregate but array_agg
  // ignores (count(*) becomes a count of a constant).
  if (!filter) return argument;
  const LogicalType type = argument->type();
  std::vector<ExpressionPtr> branches;
  branches.push_back(std::move(filter));
  branches.push_back(std::move(argument));
  branches.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::null(type)));
  return functionOf(ScalarFunction::kCase, type, std::move(branches));
}

ExpressionPtr ExpressionBinder::bindAggregate(const pg_query::Node& node, engine::AggregateFunction function) {
  const auto& call = node.func_call();
  std::string name(engine::aggregateFunctionName(function));
  checkAggregateAllowed(call);
  ExpressionPtr filter = bindAggregateFilter(call);
  auto filtered = [&](ExpressionPtr argument) { return filteredArgument(std::move(filter), std::move(argument)); };
  AggregateCall aggregate;
  aggregate.name = name;
  aggregate.distinct = call.agg_distinct();
  if (call.agg_star()) {
    if (function != engine::AggregateFunction::kCount) {
      fail(SqlState::kSyntaxError, call.location(), fmt::format("{}(*) is not valid; only count(*) is", name));
    }
    aggregate.function = engine::AggregateFunction::kCountStar;
    if (filter) {
      aggregate.function = engine::AggregateFunction::kCount;
      aggregate.argument = filtered(std::make_unique<engine::ConstantExpression>(engine::Value::integer(1)));
    }
  } else {
    const int expectedArguments = function == engine::AggregateFunction::kStringAgg ? 2 : 1;
    if (call.args_size() != expectedArguments) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function {} takes exactly {}, not {}", name,
                       expectedArguments == 1 ? "one argument" : "two arguments", call.args_size()));
    }
    const AggregateArguments aggregateArguments = beginAggregateArguments();
    ExpressionPtr argument = bind(call.args(0));
    const std::string spelled = lastName(call.funcname());
    const bool booleanAggregate = spelled == "bool_and" || spelled == "bool_or" || spelled == "every";
    if (booleanAggregate && isUnknown(argument)) {
      argument = coerce(std::move(argument), LogicalType::boolean(), call.location());
    }
    argument = resolveUnknown(std::move(argument), call.location());
    // bool_and and friends take booleans only; min and max take anything but booleans, uuids and byteas (as in
    // PostgreSQL 15).
    const bool boolean = argument->type().id() == TypeId::kBoolean;
    const bool extreme = function == engine::AggregateFunction::kMin || function == engine::AggregateFunction::kMax;
    const bool unordered =
        argument->type().id() == TypeId::kUuid || argument->type().id() == TypeId::kBytea || argument->type().isJson();
    if (aggregate.distinct) {
      if (auto reason = uncomparableReason(argument->type(), false))
        fail(reason->first, call.location(), reason->second);
    }
    if (booleanAggregate ? !boolean : extreme && (boolean || unordered)) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function {}({}) does not exist", spelled, argument->type().toString()),
           "No function matches the given name and argument types. You might need to add explicit type casts.");
    }
    std::optional<ExpressionPtr> delimiterAsWritten;
    if (function == engine::AggregateFunction::kStringAgg) delimiterAsWritten = bind(call.args(1));
    // Under DISTINCT the ORDER BY keys must be the arguments as written, before any coercion.
    aggregate.orderBy = bindAggregateOrder(call, aggregate.distinct, *argument,
                                           delimiterAsWritten ? delimiterAsWritten->get() : nullptr);
    if (function == engine::AggregateFunction::kStringAgg) {
      ExpressionPtr delimiter = std::move(*delimiterAsWritten);
      auto textual = [&](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
      if (!textual(argument) || !textual(delimiter)) {
        fail(SqlState::kUndefinedFunction, call.location(),
             fmt::format("function string_agg({}, {}) does not exist", argument->type().toString(),
                         delimiter->type().toString()));
      }
      argument = coerce(std::move(argument), LogicalType::text(), call.location());
      aggregate.secondArgument = coerce(std::move(delimiter), LogicalType::text(), call.location());
    }
    if (function == engine::AggregateFunction::kArrayAgg && argument->type().isArray()) {
      fail(SqlState::kFeatureNotSupported, call.location(),
           "array_agg of arrays is not supported: arrays have one dimension");
    }
    // The other aggregates' values do not depend on the order they see their rows in.
    if (!engine::isCollectingAggregate(function)) aggregate.orderBy.clear();
    // Nor do min, max and the boolean aggregates depend on repeated values: DISTINCT changes nothing (and an
    // interval's DISTINCT key is its span, which would lose which of '1 mon' and '30 days' it was).
    if (extreme || booleanAggregate) aggregate.distinct = false;
    endAggregateArguments(aggregateArguments);
    const LogicalType& type = argument->type();
    const bool sumOrAverage =
        function == engine::AggregateFunction::kSum || function == engine::AggregateFunction::kAvg;
    if (sumOrAverage && type.id() == TypeId::kInterval) {
      return bindIntervalSum(function, std::move(argument), std::move(filter), aggregate.distinct, call.location());
    }
    bool numeric = type.isNumeric();
    if ((function == engine::AggregateFunction::kSum || function == engine::AggregateFunction::kAvg) && !numeric) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function {}({}) does not exist", name, type.toString()));
    }
    aggregate.function = function;
    if (function == engine::AggregateFunction::kArrayAgg && filter) {
      // array_agg keeps NULL elements, so its FILTER cannot turn rows into NULLs: it travels as the second
      // argument, and rows where it is not true are left out (collected_values.cpp).
      aggregate.argument = std::move(argument);
      aggregate.secondArgument = std::move(filter);
    } else {
      aggregate.argument = filtered(std::move(argument));
    }
  }
  LogicalType argumentType = aggregate.argument ? aggregate.argument->type() : LogicalType::bigInt();
  aggregate.resultType = engine::aggregateResultType(aggregate.function, argumentType);
  return emitAggregate(std::move(aggregate));
}

std::vector<SortKey> ExpressionBinder::bindAggregateOrder(const pg_query::FuncCall& call, bool distinct,
                                                          const engine::Expression& argument,
                                                          const engine::Expression* delimiter) {
  std::vector<SortKey> keys;
  for (const auto& node : call.agg_order()) {
    const auto& sortBy = node.sort_by();
    int location = locationOf(sortBy.node());
    if (sortBy.sortby_dir() == pg_query::SORTBY_USING) {
      fail(SqlState::kFeatureNotSupported, location, "ORDER BY ... USING is not supported");
    }
    ExpressionPtr key = resolveUnknown(bind(sortBy.node()), location);
    if (key->type().isArray()) {
      fail(SqlState::kFeatureNotSupported, location, "ordering by an array is not supported");
    }
    if (distinct && !sameExpression(*key, argument) && !(delimiter && sameExpression(*key, *delimiter))) {
      fail(SqlState::kInvalidColumnReference, location,
           "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list");
    }
    if (key->type().isJsonb() && !distinct) {
      // jsonb orders by structure: on bytes that order as it does.
      key = makeFunction(ScalarFunction::kJsonbSortKey, LogicalType::bytea(), std::move(key));
    } else if (auto reason = uncomparableReason(key->type(), true)) {
      fail(reason->first, location, reason->second);
    }
    bool ascending = sortBy.sortby_dir() != pg_query::SORTBY_DESC;
    bool nullsFirst = sortBy.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT
                          ? !ascending
                          : sortBy.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST;
    keys.push_back({std::move(key), ascending, nullsFirst});
  }
  return keys;
}

ExpressionPtr ExpressionBinder::bindSetFunction(const pg_query::Node& node) {
  const auto& call = node.func_call();
  const std::string name = lastName(call.funcname());
  if (insideAggregate_) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         "aggregate function calls cannot contain set-returning function calls");
  }
  if (insideWindow_ || insideWindowDefinition_) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         "window function calls cannot contain set-returning function calls");
  }
  if (!setFunctionSink_) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         fmt::format("set-returning functions are not allowed in {}", clause_));
  }
  if (insideSetFunction_) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         "a set-returning function in the arguments of another is not supported yet");
  }
  insideSetFunction_ = true;
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
  insideSetFunction_ = false;
  const ResolvedSetFunction resolved = resolveSetFunction(*this, name, arguments, call.location());
  SetFunctionColumn function;
  function.function = resolved.function;
  function.arguments = std::move(arguments);
  function.column = PlanColumn{0, resolved.valueType, name};
  return setFunctionSink_(std::move(function));
}

ExpressionPtr ExpressionBinder::bindExtract(const pg_query::Node& node) {
  const auto& call = node.func_call();
  if (call.args_size() != 2 || !call.args(0).has_a_const() || !call.args(0).a_const().has_sval()) {
    fail(SqlState::kUndefinedFunction, call.location(), "function extract needs a field and a date");
  }
  std::string field = call.args(0).a_const().sval().sval();
  std::transform(field.begin(), field.end(), field.begin(), [](unsigned char c) { return std::tolower(c); });
  ExpressionPtr source = bind(call.args(1));
  if (isUnknown(source)) source = coerce(std::move(source), LogicalType::date(), call.location());
  const bool asDouble = lastName(call.funcname()) == "date_part";
  if (source->type().id() == TypeId::kTimestamp || source->type().id() == TypeId::kTimestampTz) {
    return bindTimestampPart(field, std::move(source), asDouble, call.location());
  }
  if (source->type().id() == TypeId::kInterval)
    return bindIntervalPart(field, std::move(source), asDouble, call.location());
  if (source->type().id() == TypeId::kTime) {
    // A time's fields are those of its interval (hour 24 stays 24); it has no date or zone.
    const std::optional<engine::TimestampField> timeField = engine::timestampFieldNamed(field);
    if (!timeField) {
      fail(SqlState::kInvalidParameterValue, call.location(),
           fmt::format("unit \"{}\" not recognized for type time without time zone", field));
    }
    if (*timeField > engine::TimestampField::kHour && *timeField != engine::TimestampField::kEpoch) {
      fail(SqlState::kFeatureNotSupported, call.location(),
           fmt::format("unit \"{}\" not supported for type time without time zone", field));
    }
    return bindIntervalPart(field, coerce(std::move(source), LogicalType::interval(), call.location()), asDouble,
                            call.location());
  }
  if (source->type().id() != TypeId::kDate) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function extract(unknown, {}) does not exist", source->type().toString()));
  }
  return bindDatePart(field, std::move(source), asDouble, call.location());
}

ExpressionPtr ExpressionBinder::bindDatePart(const std::string& unit, ExpressionPtr date, bool asDouble, int location) {
  // date_part(unit, date) is date_part of the date's midnight as a timestamp, as PostgreSQL casts it.
  // EXTRACT(unit FROM date) is numeric of scale 0, and has no time-of-day or zone fields.
  std::optional<engine::TimestampField> field = engine::timestampFieldNamed(unit);
  ExpressionPtr part;
  // Year, month and day have kernels of their own over the days, without a timestamp.
  static constexpr std::pair<engine::TimestampField, ScalarFunction> kDirect[] = {
      {engine::TimestampField::kYear, ScalarFunction::kExtractYear},
      {engine::TimestampField::kMonth, ScalarFunction::kExtractMonth},
      {engine::TimestampField::kDay, ScalarFunction::kExtractDay}};
  // date_part goes through the timestamp, whose infinities are infinite doubles.
  for (const auto& [directField, function] : kDirect) {
    if (field == directField && !asDouble) part = makeFunction(function, LogicalType::bigInt(), std::move(date));
  }
  if (part) {
    return coerce(std::move(part), asDouble ? LogicalType::doublePrecision() : LogicalType::decimal(20, 0), location);
  }
  if (asDouble) {
    return bindTimestampPart(unit, coerce(std::move(date), LogicalType::timestamp(), location), true, location);
  }
  if (!field) {
    fail(SqlState::kInvalidParameterValue, location, fmt::format("unit \"{}\" not recognized for type date", unit));
  }
  using engine::TimestampField;
  const bool timeOfDay = *field <= TimestampField::kHour || *field == TimestampField::kTimezone ||
                         *field == TimestampField::kTimezoneHour || *field == TimestampField::kTimezoneMinute;
  if (timeOfDay) {
    fail(SqlState::kFeatureNotSupported, location, fmt::format("unit \"{}\" not supported for type date", unit));
  }
  part = bindTimestampPart(unit, coerce(std::move(date), LogicalType::timestamp(), location), false, location);
  return coerce(std::move(part), LogicalType::decimal(20, 0), location);
}

ExpressionPtr ExpressionBinder::bindSubstring(const pg_query::Node& node) {
  const auto& call = node.func_call();
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
  if (!arguments.empty() && arguments[0]->type().id() == TypeId::kBytea) {
    if (ExpressionPtr bytes = bindByteaFunction("substring", arguments, call.location(), [&] {
          fail(SqlState::kUndefinedFunction, call.location(), "function substring(bytea, ...) does not exist");
        })) {
      return bytes;
    }
  }
  bool valid =
      (arguments.size() == 2 || arguments.size() == 3) && (arguments[0]->type().isString() || isUnknown(arguments[0]));
  for (size_t i = 1; valid && i < arguments.size(); ++i) {
    valid = arguments[i]->type().isIntegral() || isUnknown(arguments[i]);
  }
  if (!valid) {
    std::string types;
    for (const auto& argument : arguments) types += (types.empty() ? "" : ", ") + argument->type().toString();
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function substring({}) does not exist", types));
  }
  arguments[0] = coerce(std::move(arguments[0]), LogicalType::text(), call.location());
  for (size_t i = 1; i < arguments.size(); ++i) {
    arguments[i] = coerce(std::move(arguments[i]), LogicalType::integer(), call.location());
  }
  return functionOf(ScalarFunction::kSubstring, LogicalType::text(), std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindTimestampPart(const std::string& unit, ExpressionPtr source, bool asDouble,
                                                  int location) {
  const LogicalType type = source->type();
  std::optional<engine::TimestampField> field = engine::timestampFieldNamed(unit);
  if (!field) {
    fail(SqlState::kInvalidParameterValue, location,
         fmt::format("unit \"{}\" not recognized for type {}", unit, type.toString()));
  }
  const bool zoneField = *field == engine::TimestampField::kTimezone ||
                         *field == engine::TimestampField::kTimezoneHour ||
                         *field == engine::TimestampField::kTimezoneMinute;
  if (zoneField && type.id() == TypeId::kTimestamp) {
    fail(SqlState::kFeatureNotSupported, location,
         fmt::format("unit \"{}\" not supported for type {}", unit, type.toString()));
  }
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(source));
  arguments.push_back(
      std::make_unique<engine::ConstantExpression>(engine::Value::integer(static_cast<int32_t>(*field))));
  arguments.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::varchar(timeZoneSetting())));
  // EXTRACT gives numeric at the field's own scale (12.500000 seconds, 2024 years); date_part a double, which
  // the part computes itself, since an infinite timestamp's year is an infinite double.
  if (asDouble) return functionOf(ScalarFunction::kTimestampPart, LogicalType::doublePrecision(), std::move(arguments));
  ExpressionPtr part = functionOf(ScalarFunction::kTimestampPart, LogicalType::decimal(20, 6), std::move(arguments));
  return coerce(std::move(part), LogicalType::decimal(20, engine::extractScale(*field)), location);
}

ExpressionPtr ExpressionBinder::bindDateTrunc(const pg_query::FuncCall& call) {
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
  if (arguments.size() < 2 || arguments.size() > 3) {
    fail(SqlState::kUndefinedFunction, call.location(), "function date_trunc takes a unit, a timestamp and a zone");
  }
  std::optional<engine::Value> unitValue = literalBeneathCasts(*arguments[0]);
  if (!unitValue || unitValue->isNull()) {
    fail(SqlState::kFeatureNotSupported, call.location(), "date_trunc's unit must be a constant");
  }
  std::string unit = unitValue->toString();
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  ExpressionPtr source = std::move(arguments[1]);
  // date_trunc(unit, time) is date_trunc of an interval, through PostgreSQL's implicit cast.
  if (source->type().id() == TypeId::kTime && arguments.size() == 2) {
    source = coerce(std::move(source), LogicalType::interval(), call.location());
  }
  if (source->type().id() == TypeId::kInterval && arguments.size() == 2) {
    return bindIntervalTrunc(unit, std::move(source), call.location());
  }
  // Unknown text and dates become timestamptz, PostgreSQL's preferred date/time type.
  if (isUnknown(source) || source->type().id() == TypeId::kDate) {
    source = coerce(std::move(source), LogicalType::timestampTz(), call.location());
  }
  const LogicalType type = source->type();
  if (type.id() != TypeId::kTimestamp && type.id() != TypeId::kTimestampTz) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function date_trunc(unknown, {}{}) does not exist", type.toString(),
                     arguments.size() == 3 ? ", unknown" : ""));
  }
  std::string zone = timeZoneSetting();
  if (arguments.size() == 3) {
    std::optional<engine::Value> zoneValue = literalBeneathCasts(*arguments[2]);
    if (type.id() != TypeId::kTimestampTz) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function date_trunc(unknown, {}, unknown) does not exist", type.toString()));
    }
    if (!zoneValue || zoneValue->isNull()) {
      fail(SqlState::kFeatureNotSupported, call.location(), "date_trunc's time zone must be a constant");
    }
    zone = engine::TimeZone::named(zoneValue->toString()).name();
  }
  std::optional<engine::TimestampField> field = engine::timestampFieldNamed(unit);
  if (!field || !engine::truncates(*field)) {
    fail(SqlState::kInvalidParameterValue, call.location(),
         fmt::format("unit \"{}\" not {} for type {}", unit, field ? "supported" : "recognized", type.toString()));
  }
  std::vector<ExpressionPtr> truncArguments;
  truncArguments.push_back(std::move(source));
  truncArguments.push_back(
      std::make_unique<engine::ConstantExpression>(engine::Value::integer(static_cast<int32_t>(*field))));
  truncArguments.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::varchar(zone)));
  return functionOf(ScalarFunction::kTimestampTrunc, type, std::move(truncArguments));
}

ExpressionPtr ExpressionBinder::bindToChar(const pg_query::FuncCall& call) {
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
  if (arguments.size() != 2) {
    fail(SqlState::kUndefinedFunction, call.location(), "function to_char takes a value and a format");
  }
  ExpressionPtr source = std::move(arguments[0]);
  // Dates (and untyped literals) become timestamptz, PostgreSQL's preferred date/time type.
  if (isUnknown(source) || source->type().id() == TypeId::kDate) {
    source = coerce(std::move(source), LogicalType::timestampTz(), call.location());
  }
  const LogicalType type = source->type();
  ExpressionPtr format = std::move(arguments[1]);
  if (type.isNumeric() && (isUnknown(format) || format->type().isString())) {
    std::vector<ExpressionPtr> numberArguments;
    numberArguments.push_back(std::move(source));
    numberArguments.push_back(coerce(std::move(format), LogicalType::text(), call.location()));
    return functionOf(ScalarFunction::kNumberToChar, LogicalType::text(), std::move(numberArguments));
  }
  if ((type.id() != TypeId::kTimestamp && type.id() != TypeId::kTimestampTz && type.id() != TypeId::kInterval) ||
      !(isUnknown(format) || format->type().isString())) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function to_char({}, {}) does not exist", type.toString(),
                     isUnknown(format) ? "unknown" : format->type().toString()),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  }
  std::vector<ExpressionPtr> toCharArguments;
  toCharArguments.push_back(std::move(source));
  toCharArguments.push_back(coerce(std::move(format), LogicalType::text(), call.location()));
  toCharArguments.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::varchar(timeZoneSetting())));
  return functionOf(ScalarFunction::kDateTimeToChar, LogicalType::text(), std::move(toCharArguments));
}

}  // namespace shoal::sql
