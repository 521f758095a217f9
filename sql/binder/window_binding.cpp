// ExpressionBinder's binding of window function calls: f(...) OVER (PARTITION BY ... ORDER BY ... frame), the
// WINDOW clause's named windows, frames and their offsets, and the errors PostgreSQL 15 gives for them.

#include <fmt/format.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/type_coercion.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_copy.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;
using engine::WindowFunction;

namespace {

// PostgreSQL's FRAMEOPTION_* bits of WindowDef::frameOptions (nodes/parsenodes.h).
constexpr int kFrameNonDefault = 0x00001;
constexpr int kFrameRange = 0x00002;
constexpr int kFrameRows = 0x00004;
constexpr int kFrameGroups = 0x00008;
constexpr int kFrameStartUnboundedPreceding = 0x00020;
constexpr int kFrameEndUnboundedFollowing = 0x00100;
constexpr int kFrameStartCurrentRow = 0x00200;
constexpr int kFrameEndCurrentRow = 0x00400;
constexpr int kFrameStartOffsetPreceding = 0x00800;
constexpr int kFrameEndOffsetPreceding = 0x01000;
constexpr int kFrameStartOffsetFollowing = 0x02000;
constexpr int kFrameEndOffsetFollowing = 0x04000;
constexpr int kFrameExcludeCurrentRow = 0x08000;
constexpr int kFrameExcludeGroup = 0x10000;
constexpr int kFrameExcludeTies = 0x20000;

const std::map<std::string, WindowFunction, std::less<>>& windowFunctions() {
  static const std::map<std::string, WindowFunction, std::less<>> functions = {
      {"row_number", WindowFunction::kRowNumber},
      {"rank", WindowFunction::kRank},
      {"dense_rank", WindowFunction::kDenseRank},
      {"percent_rank", WindowFunction::kPercentRank},
      {"cume_dist", WindowFunction::kCumeDist},
      {"ntile", WindowFunction::kNtile},
      {"lag", WindowFunction::kLag},
      {"lead", WindowFunction::kLead},
      {"first_value", WindowFunction::kFirstValue},
      {"last_value", WindowFunction::kLastValue},
      {"nth_value", WindowFunction::kNthValue}};
  return functions;
}

std::vector<ExpressionPtr> copyAll(const std::vector<ExpressionPtr>& expressions) {
  std::vector<ExpressionPtr> copies;
  for (const auto& expression : expressions) copies.push_back(copyExpression(*expression));
  return copies;
}

WindowFunctionCall copyWindow(const WindowFunctionCall& window) {
  WindowFunctionCall copy;
  copy.call = copyWindowCall(window.call);
  copy.partitionBy = copyAll(window.partitionBy);
  for (const auto& key : window.orderBy) {
    copy.orderBy.push_back({copyExpression(*key.expression), key.ascending, key.nullsFirst});
  }
  return copy;
}

}  // namespace

ExpressionBinder::AggregateArguments ExpressionBinder::beginAggregateArguments() {
  AggregateArguments saved{windowOfAggregate_, insideAggregate_, insideWindow_};
  if (windowOfAggregate_ != nullptr) {
    windowOfAggregate_ = nullptr;
    insideWindow_ = true;
  } else {
    insideAggregate_ = true;
  }
  return saved;
}

void ExpressionBinder::endAggregateArguments(const AggregateArguments& saved) {
  windowOfAggregate_ = saved.window;
  insideAggregate_ = saved.insideAggregate;
  insideWindow_ = saved.insideWindow;
}

ExpressionPtr ExpressionBinder::emitAggregate(AggregateCall call) {
  if (windowOfAggregate_ == nullptr) return aggregateSink_(std::move(call));
  WindowFunctionCall window = copyWindow(*windowOfAggregate_);
  window.call.function = WindowFunction::kAggregate;
  window.call.resultType = call.resultType;
  window.call.name = call.name;
  window.call.aggregate = std::move(call);
  windowAggregateEmitted_ = true;
  return windowSink_(std::move(window));
}

ExpressionPtr ExpressionBinder::bindWindowFunction(const pg_query::Node& node) {
  const auto& call = node.func_call();
  const std::string name = lastName(call.funcname());
  if (insideAggregate_) {
    fail(SqlState::kGroupingError, call.location(), "aggregate function calls cannot contain window function calls");
  }
  if (insideWindowDefinition_) {
    fail(SqlState::kWindowingError, call.location(), "window functions are not allowed in window definitions");
  }
  if (insideWindow_) fail(SqlState::kWindowingError, call.location(), "window function calls cannot be nested");
  if (!windowSink_) {
    fail(SqlState::kWindowingError, call.location(), fmt::format("window functions are not allowed in {}", clause_));
  }
  WindowFunctionCall window;
  insideWindowDefinition_ = true;
  bindWindowDefinition(call.over(), window, call.location());
  insideWindowDefinition_ = false;

  auto known = windowFunctions().find(name);
  if (known == windowFunctions().end()) {
    // An aggregate over the window: its binding hands its call(s) to emitAggregate, which adds the window.
    windowOfAggregate_ = &window;
    windowAggregateEmitted_ = false;
    ExpressionPtr result = bindFunctionCall(node);
    windowOfAggregate_ = nullptr;
    if (!windowAggregateEmitted_) {
      fail(SqlState::kWrongObjectType, call.location(),
           fmt::format("OVER specified, but {} is not a window function nor an aggregate function", name));
    }
    return result;
  }

  if (call.agg_distinct()) {
    fail(SqlState::kFeatureNotSupported, call.location(), "DISTINCT is not implemented for window functions");
  }
  if (call.has_agg_filter()) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         "FILTER is not implemented for non-aggregate window functions");
  }
  if (call.agg_order_size() > 0 || call.agg_within_group()) {
    fail(SqlState::kWrongObjectType, call.location(),
         fmt::format("ORDER BY specified, but {} is not an aggregate function", name));
  }
  // f(*) is f() for a window function (PostgreSQL takes row_number(*) too).
  insideWindow_ = true;
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
  insideWindow_ = false;
  auto noSuchFunction = [&]() {
    std::string types;
    for (const auto& argument : arguments) {
      types += (types.empty() ? "" : ", ") + (isUnknown(argument) ? "unknown" : argument->type().toString());
    }
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function {}({}) does not exist", name, types),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  };
  // ntile, lag/lead's offset and nth_value's n are integer (int4): smallint widens, bigint is no match.
  auto integerArgument = [&](size_t i) {
    const TypeId id = arguments[i]->type().id();
    if (!isUnknown(arguments[i]) && id != TypeId::kInteger && id != TypeId::kSmallInt) noSuchFunction();
    arguments[i] = coerce(std::move(arguments[i]), LogicalType::integer(), locationOf(call.args(static_cast<int>(i))));
  };
  // lag(anyelement) and friends cannot take their type from an untyped literal alone.
  auto polymorphicUnknown = [&]() {
    fail(SqlState::kDatatypeMismatch, call.location(),
         "could not determine polymorphic type because input has type unknown");
  };
  WindowCall& bound = window.call;
  bound.function = known->second;
  bound.name = name;
  switch (bound.function) {
    case WindowFunction::kRowNumber:
    case WindowFunction::kRank:
    case WindowFunction::kDenseRank:
      if (!arguments.empty()) noSuchFunction();
      bound.resultType = LogicalType::bigInt();
      break;
    case WindowFunction::kPercentRank:
    case WindowFunction::kCumeDist:
      if (!arguments.empty()) noSuchFunction();
      bound.resultType = LogicalType::doublePrecision();
      break;
    case WindowFunction::kNtile:
      if (arguments.size() != 1) noSuchFunction();
      integerArgument(0);
      bound.resultType = LogicalType::integer();
      break;
    case WindowFunction::kLag:
    case WindowFunction::kLead: {
      if (arguments.empty() || arguments.size() > 3) noSuchFunction();
      if (arguments.size() > 1) integerArgument(1);
      // lag(anycompatible, integer, anycompatible): the value and the default share their common type.
      LogicalType type = arguments[0]->type();
      if (arguments.size() == 3) {
        type = isUnknown(arguments[0]) && isUnknown(arguments[2])
                   ? LogicalType::text()
                   : commonType({arguments[0]->type(), arguments[2]->type()}, "lag", call.location());
        if (type.id() == TypeId::kUnknown) type = LogicalType::text();
        arguments[2] = coerce(std::move(arguments[2]), type, locationOf(call.args(2)));
      }
      if (type.id() == TypeId::kUnknown) polymorphicUnknown();
      arguments[0] = coerce(std::move(arguments[0]), type, locationOf(call.args(0)));
      bound.resultType = arguments[0]->type();
      if (arguments.size() == 3) arguments[2] = coerce(std::move(arguments[2]), bound.resultType, call.location());
      break;
    }
    case WindowFunction::kFirstValue:
    case WindowFunction::kLastValue:
    case WindowFunction::kNthValue:
      if (arguments.size() != (bound.function == WindowFunction::kNthValue ? 2u : 1u)) noSuchFunction();
      if (bound.function == WindowFunction::kNthValue) integerArgument(1);
      if (isUnknown(arguments[0])) polymorphicUnknown();
      bound.resultType = arguments[0]->type();
      break;
    case WindowFunction::kAggregate:
      break;
  }
  bound.arguments = std::move(arguments);
  return windowSink_(std::move(window));
}

void ExpressionBinder::bindWindowDefinition(const pg_query::WindowDef& definition, WindowFunctionCall& into,
                                            int location, bool definesName) {
  // OVER w names a WINDOW clause definition whole; OVER (w ...) copies its PARTITION BY and ORDER BY.
  const pg_query::WindowDef* partitionSource = &definition;
  const pg_query::WindowDef* orderSource = &definition;
  const pg_query::WindowDef* frameSource = &definition;
  // A WINDOW clause entry's name is its own; an OVER clause's names the entry it uses.
  const std::string& referenced =
      !definition.refname().empty() ? definition.refname() : (definesName ? std::string() : definition.name());
  if (!referenced.empty()) {
    auto found = namedWindows_ != nullptr ? namedWindows_->find(referenced) : NamedWindows::const_iterator();
    // A WINDOW clause entry sees only the entries before it.
    const bool later = found != NamedWindows::const_iterator() && namedWindows_ != nullptr &&
                       found != namedWindows_->end() && definesName && namedWindows_->contains(definition.name()) &&
                       found->second.second >= namedWindows_->find(definition.name())->second.second;
    if (namedWindows_ == nullptr || found == namedWindows_->end() || later) {
      fail(SqlState::kUndefinedObject, definition.location() >= 0 ? definition.location() : location,
           fmt::format("window \"{}\" does not exist", referenced));
    }
    const pg_query::WindowDef& base = *found->second.first;
    // Entries that refer to each other in a cycle (w AS (w)) would be followed forever.
    if (++windowReferenceDepth_ > namedWindows_->size()) {
      windowReferenceDepth_ = 0;
      fail(SqlState::kUndefinedObject, definition.location(), fmt::format("window \"{}\" does not exist", referenced));
    }
    if (definition.refname().empty()) {
      // OVER w: the definition as the WINDOW clause gives it (which may copy another's in turn).
      bindWindowDefinition(base, into, location, true);
      return;
    }
    if (definition.partition_clause_size() > 0) {
      fail(SqlState::kWindowingError, definition.location(),
           fmt::format("cannot override PARTITION BY clause of window \"{}\"", referenced));
    }
    if (definition.order_clause_size() > 0 && base.order_clause_size() > 0) {
      fail(SqlState::kWindowingError, definition.location(),
           fmt::format("cannot override ORDER BY clause of window \"{}\"", referenced));
    }
    if (base.frame_options() & kFrameNonDefault) {
      const bool bare = definition.partition_clause_size() == 0 && definition.order_clause_size() == 0 &&
                        !(definition.frame_options() & kFrameNonDefault);
      fail(SqlState::kWindowingError, definition.location(),
           fmt::format("cannot copy window \"{}\" because it has a frame clause", referenced),
           bare ? "Omit the parentheses in this OVER clause." : "");
    }
    WindowFunctionCall inherited;
    bindWindowDefinition(base, inherited, location, true);
    into.partitionBy = std::move(inherited.partitionBy);
    if (definition.order_clause_size() == 0) into.orderBy = std::move(inherited.orderBy);
    partitionSource = nullptr;
    if (definition.order_clause_size() == 0) orderSource = nullptr;
  }
  if (partitionSource != nullptr) {
    for (const auto& node : partitionSource->partition_clause()) {
      const int at = locationOf(node);
      ExpressionPtr key = resolveUnknown(bind(node), at);
      if (auto reason = uncomparableReason(key->type(), false)) fail(reason->first, at, reason->second);
      into.partitionBy.push_back(std::move(key));
    }
  }
  if (orderSource != nullptr) {
    for (const auto& node : orderSource->order_clause()) {
      const auto& sortBy = node.sort_by();
      const int at = locationOf(sortBy.node());
      if (sortBy.sortby_dir() == pg_query::SORTBY_USING) {
        fail(SqlState::kFeatureNotSupported, sortBy.location(), "ORDER BY ... USING is not supported");
      }
      ExpressionPtr key = resolveUnknown(bind(sortBy.node()), at);
      if (key->type().isJsonb() && !key->type().isArray()) {
        // jsonb orders by structure: on bytes that order as it does.
        key = makeFunction(engine::ScalarFunction::kJsonbSortKey, LogicalType::bytea(), std::move(key));
      } else if (auto reason = uncomparableReason(key->type(), true)) {
        fail(reason->first, at, reason->second);
      }
      const bool ascending = sortBy.sortby_dir() != pg_query::SORTBY_DESC;
      into.orderBy.push_back({std::move(key), ascending, sortsNullsFirst(sortBy)});
    }
  }
  bindWindowFrame(*frameSource, into);
  windowReferenceDepth_ = 0;
}

void ExpressionBinder::bindWindowFrame(const pg_query::WindowDef& definition, WindowFunctionCall& into) {
  WindowFrameClause& frame = into.call.frame;
  const int options = definition.frame_options();
  if (!(options & kFrameNonDefault)) return;  // RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  frame.unit = options & kFrameRows     ? engine::FrameUnit::kRows
               : options & kFrameGroups ? engine::FrameUnit::kGroups
                                        : engine::FrameUnit::kRange;
  if (frame.unit == engine::FrameUnit::kGroups && into.orderBy.empty()) {
    fail(SqlState::kWindowingError, definition.location(), "GROUPS mode requires an ORDER BY clause");
  }
  auto bindEnd = [&](WindowFrameEnd& end, bool isStart) {
    const int unboundedPreceding = isStart ? kFrameStartUnboundedPreceding : 0;
    const int unboundedFollowing = isStart ? 0 : kFrameEndUnboundedFollowing;
    const int currentRow = isStart ? kFrameStartCurrentRow : kFrameEndCurrentRow;
    const int offsetPreceding = isStart ? kFrameStartOffsetPreceding : kFrameEndOffsetPreceding;
    const int offsetFollowing = isStart ? kFrameStartOffsetFollowing : kFrameEndOffsetFollowing;
    if (unboundedPreceding && (options & unboundedPreceding)) {
      end.bound = engine::FrameBound::kUnboundedPreceding;
    } else if (unboundedFollowing && (options & unboundedFollowing)) {
      end.bound = engine::FrameBound::kUnboundedFollowing;
    } else if (options & currentRow) {
      end.bound = engine::FrameBound::kCurrentRow;
    } else if (options & (offsetPreceding | offsetFollowing)) {
      end.bound = options & offsetPreceding ? engine::FrameBound::kPreceding : engine::FrameBound::kFollowing;
      const pg_query::Node& offsetNode = isStart ? definition.start_offset() : definition.end_offset();
      if (frame.unit == engine::FrameUnit::kRange) {
        bindRangeOffset(offsetNode, end, into);
        return;
      }
      const int at = locationOf(offsetNode);
      ExpressionPtr offset = bind(offsetNode);
      if (!columnsOf(*offset).empty()) {
        fail(SqlState::kInvalidColumnReference, at,
             fmt::format("argument of {} must not contain variables",
                         frame.unit == engine::FrameUnit::kRows ? "ROWS" : "GROUPS"));
      }
      if (!isUnknown(offset) && !offset->type().isNumeric()) {
        fail(SqlState::kDatatypeMismatch, at,
             fmt::format("argument of {} must be type bigint, not type {}",
                         frame.unit == engine::FrameUnit::kRows ? "ROWS" : "GROUPS", offset->type().toString()));
      }
      // A numeric offset rounds to bigint, as PostgreSQL's cast does.
      if (!isUnknown(offset) && !offset->type().isIntegral()) {
        offset = std::make_unique<engine::CastExpression>(std::move(offset), LogicalType::bigInt());
      }
      end.offset = coerce(std::move(offset), LogicalType::bigInt(), at);
    } else {
      end.bound = isStart ? engine::FrameBound::kUnboundedPreceding : engine::FrameBound::kCurrentRow;
    }
  };
  bindEnd(frame.start, true);
  bindEnd(frame.end, false);
  // Both RANGE bounds compare with the one key column: of one type.
  for (auto* end : {&frame.start, &frame.end}) {
    if (end->rangeBound && end->rangeBound->type() != frame.rangeKey->type()) {
      end->rangeBound = coerce(std::move(end->rangeBound), frame.rangeKey->type(), definition.location());
    }
  }
  frame.exclusion = options & kFrameExcludeCurrentRow ? engine::FrameExclusion::kCurrentRow
                    : options & kFrameExcludeGroup    ? engine::FrameExclusion::kGroup
                    : options & kFrameExcludeTies     ? engine::FrameExclusion::kTies
                                                      : engine::FrameExclusion::kNoOthers;
}

void ExpressionBinder::bindRangeOffset(const pg_query::Node& offsetNode, WindowFrameEnd& end,
                                       WindowFunctionCall& into) {
  const int at = locationOf(offsetNode);
  if (into.orderBy.size() != 1) {
    fail(SqlState::kWindowingError, at, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
  }
  ExpressionPtr offset = bind(offsetNode);
  if (!columnsOf(*offset).empty()) {
    fail(SqlState::kInvalidColumnReference, at, "argument of RANGE must not contain variables");
  }
  const SortKey& key = into.orderBy[0];
  const LogicalType keyType = key.expression->type();
  const LogicalType offsetType = offset->type();
  auto unsupported = [&]() {
    const bool keyHasOffsets = keyType.isNumeric() || keyType.id() == TypeId::kDate ||
                               keyType.id() == TypeId::kTimestamp || keyType.id() == TypeId::kTimestampTz ||
                               keyType.id() == TypeId::kInterval;
    if (isUnknown(offset) || !keyHasOffsets) {
      fail(SqlState::kFeatureNotSupported, at,
           fmt::format("RANGE with offset PRECEDING/FOLLOWING is not supported for column type {}",
                       typeNameWithoutModifiers(keyType)));
    }
    fail(SqlState::kFeatureNotSupported, at,
         fmt::format("RANGE with offset PRECEDING/FOLLOWING is not supported for column type {} and offset type {}",
                     typeNameWithoutModifiers(keyType), typeNameWithoutModifiers(offsetType)),
         "Cast the offset value to an appropriate type.");
  };
  // The key and its bounds in one type where `key - offset` cannot overflow: integers as numeric, dates as
  // timestamps (as PostgreSQL's in_range functions compute them).
  LogicalType computeType = keyType;
  LogicalType offsetAs = keyType;
  switch (keyType.id()) {
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      if (!isUnknown(offset) && !offsetType.isIntegral()) unsupported();
      computeType = offsetAs = LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 0);
      break;
    case TypeId::kDecimal:
      if (!isUnknown(offset) && !offsetType.isIntegral() && offsetType.id() != TypeId::kDecimal) unsupported();
      offsetAs = isUnknown(offset) || offsetType.isIntegral()
                     ? LogicalType::decimal(LogicalType::kMaxDecimalPrecision, keyType.scale())
                     : offsetType;
      break;
    case TypeId::kDouble:
      if (!isUnknown(offset) && !offsetType.isNumeric()) unsupported();
      computeType = offsetAs = LogicalType::doublePrecision();
      break;
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kInterval:
      if (!isUnknown(offset) && offsetType.id() != TypeId::kInterval) unsupported();
      if (keyType.id() == TypeId::kDate) computeType = LogicalType::timestamp();
      offsetAs = LogicalType::interval();
      break;
    default:
      unsupported();
  }
  offset = coerce(std::move(offset), offsetAs, at);
  if (!into.call.frame.rangeKey) into.call.frame.rangeKey = coerce(copyExpression(*key.expression), computeType, at);
  // PRECEDING is toward the start of the ORDER BY: lower values ascending, higher ones descending.
  const bool subtract = (end.bound == engine::FrameBound::kPreceding) == key.ascending;
  ExpressionPtr bound =
      bindArithmetic(subtract ? '-' : '+', copyExpression(*into.call.frame.rangeKey), copyExpression(*offset), at);
  if (bound->type() != into.call.frame.rangeKey->type()) {
    into.call.frame.rangeKey = coerce(std::move(into.call.frame.rangeKey), bound->type(), at);
  }
  end.rangeBound = std::move(bound);
  end.offset = std::move(offset);
}

}  // namespace shoal::sql
