#include "engine/expression/expression_evaluator.h"

#include <algorithm>

#include "common/stack_depth.h"
#include "engine/expression/arithmetic.h"
#include "engine/expression/array_functions.h"
#include "engine/expression/bitwise_functions.h"
#include "engine/expression/bytea_functions.h"
#include "engine/expression/cast.h"
#include "engine/expression/comparison.h"
#include "engine/expression/conditional.h"
#include "engine/expression/date_functions.h"
#include "engine/expression/datetime_constructors.h"
#include "engine/expression/datetime_from_char.h"
#include "engine/expression/datetime_to_char.h"
#include "engine/expression/in_set.h"
#include "engine/expression/infallible.h"
#include "engine/expression/interval_functions.h"
#include "engine/expression/json_functions.h"
#include "engine/expression/like_matcher.h"
#include "engine/expression/math_functions.h"
#include "engine/expression/number_to_char.h"
#include "engine/expression/numeric_variance.h"
#include "engine/expression/quote_functions.h"
#include "engine/expression/random_values.h"
#include "engine/expression/regex_matcher.h"
#include "engine/expression/string_functions.h"
#include "engine/expression/text_functions.h"
#include "engine/expression/timestamp_functions.h"
#include "engine/expression/vector_loops.h"
#include "engine/expression/width_bucket.h"
#include "engine/types/array_value.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"

namespace shoal::engine {
namespace {

/// Kleene logic: FALSE AND NULL is FALSE, TRUE OR NULL is TRUE, anything else with NULL is NULL.
/// Booleans are bytes of 0 or 1, so each rule is a branch-free byte expression; validity is
/// written a 64-row word at a time, never bit by bit.
Vector evaluateConjunction(bool isAnd, const Vector& left, const Vector& right) {
  const size_t numRows = left.size();
  Vector out(LogicalType::boolean(), numRows);
  const uint8_t* a = left.data<uint8_t>();
  const uint8_t* b = right.data<uint8_t>();
  uint8_t* result = out.data<uint8_t>();
  if (left.validity().allValid(numRows) && right.validity().allValid(numRows)) {
    if (isAnd) {
      for (size_t row = 0; row < numRows; ++row) result[row] = a[row] & b[row];
    } else {
      for (size_t row = 0; row < numRows; ++row) result[row] = a[row] | b[row];
    }
    return out;
  }
  // The value that decides the result on its own: FALSE for AND, TRUE for OR.
  const uint8_t dominant = isAnd ? 0 : 1;
  const uint64_t* leftValid = left.validity().words();
  const uint64_t* rightValid = right.validity().words();
  uint64_t* outValid = out.validity().words();
  for (size_t word = 0; word * 64 < numRows; ++word) {
    const size_t begin = word * 64;
    const size_t end = std::min(numRows, begin + 64);
    uint64_t valid = 0;
    for (size_t row = begin; row < end; ++row) {
      const uint8_t aValid = (leftValid[word] >> (row - begin)) & 1;
      const uint8_t bValid = (rightValid[word] >> (row - begin)) & 1;
      const uint8_t decided = (aValid & (a[row] == dominant)) | (bValid & (b[row] == dominant));
      const uint8_t bothKnown = aValid & bValid;
      // Decided: the dominant value. Both known and neither dominant: the other value. Else NULL.
      result[row] = decided ? dominant : static_cast<uint8_t>(1 - dominant);
      valid |= static_cast<uint64_t>(decided | bothKnown) << (row - begin);
    }
    outValid[word] = valid;
  }
  return out;
}

Vector evaluateNullTest(bool wantNull, const Vector& input) {
  Vector out(LogicalType::boolean(), input.size());
  uint8_t* result = out.data<uint8_t>();
  for (size_t row = 0; row < input.size(); ++row) {
    result[row] = input.isNull(row) == wantNull;
  }
  return out;
}

/// True when `expression` has one value for every row of any chunk: it reads no column.
bool isRowIndependent(const Expression& expression) {
  switch (expression.kind()) {
    case ExpressionKind::kConstant:
    case ExpressionKind::kParameter:
      return true;
    case ExpressionKind::kColumnRef:
      return false;
    case ExpressionKind::kCast:
      return isRowIndependent(static_cast<const CastExpression&>(expression).child());
    case ExpressionKind::kFunction: {
      const auto& arguments = static_cast<const FunctionExpression&>(expression).arguments();
      return std::all_of(arguments.begin(), arguments.end(),
                         [](const ExpressionPtr& argument) { return isRowIndependent(*argument); });
    }
  }
  return false;
}

}  // namespace

Vector ExpressionEvaluator::broadcast(const Value& value, const LogicalType& type, size_t numRows) const {
  Vector out(type, numRows);
  if (value.isNull()) {
    for (size_t row = 0; row < numRows; ++row) out.setNull(row, true);
    return out;
  }
  Value typed = value;
  if (value.type().physicalType() != type.physicalType() || value.type().id() != type.id()) {
    typed = parseValue(value.toString(), type);
  }
  // Convert once, then fill the raw array: long strings share one heap copy.
  out.setValue(0, typed);
  auto fill = [&](auto tag) {
    using T = decltype(tag);
    T* data = out.data<T>();
    std::fill(data + 1, data + numRows, data[0]);
  };
  switch (type.physicalType()) {
    case PhysicalType::kBool:
      fill(uint8_t{});
      break;
    case PhysicalType::kInt32:
      fill(int32_t{});
      break;
    case PhysicalType::kInt64:
      fill(int64_t{});
      break;
    case PhysicalType::kInt128:
      fill(int128_t{});
      break;
    case PhysicalType::kDouble:
      fill(double{});
      break;
    case PhysicalType::kString:
      fill(StringRef{});
      break;
  }
  return out;
}

namespace {

/// The input column an expression reads unchanged: a column reference, or a cast of a string
/// column to unbounded text (which keeps every handle as it is); null for anything else.
const Vector* columnReadInPlace(const Expression& expression, const Chunk& input) {
  const Expression* column = &expression;
  if (column->kind() == ExpressionKind::kCast) {
    const auto& cast = static_cast<const CastExpression&>(*column);
    const LogicalType& target = cast.type();
    if (!cast.child().type().isString() || target.id() != TypeId::kVarchar || target.maxLength() != 0) return nullptr;
    column = &cast.child();
  }
  if (column->kind() != ExpressionKind::kColumnRef) return nullptr;
  return &input.column(static_cast<const ColumnRefExpression&>(*column).columnIndex());
}

/// A constant argument the binder placed (a field code, an interval's parts, a TimeZone name).
const Value& constantArgument(const FunctionExpression& function, size_t index) {
  SHOAL_CHECK(index < function.arguments().size(), "{} has no argument {}", scalarFunctionName(function.function()),
              index);
  const Expression& argument = *function.arguments()[index];
  SHOAL_CHECK(argument.kind() == ExpressionKind::kConstant, "{} argument {} is not a constant",
              scalarFunctionName(function.function()), index);
  const Value& value = static_cast<const ConstantExpression&>(argument).value();
  SHOAL_CHECK(!value.isNull(), "{} argument {} is NULL", scalarFunctionName(function.function()), index);
  return value;
}

/// The enumerator at argument `index`, an INTEGER constant the binder placed; XX001 past `last`.
template <class Enum>
Enum enumArgument(const FunctionExpression& function, size_t index, Enum last) {
  const int32_t code = constantArgument(function, index).asInt32();
  if (code < 0 || code > static_cast<int32_t>(last)) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "{} argument {} out of range: {}",
                    scalarFunctionName(function.function()), index, code);
  }
  return static_cast<Enum>(code);
}

TimestampField fieldArgument(const FunctionExpression& function, size_t index) {
  return enumArgument(function, index, TimestampField::kTimezoneMinute);
}

/// timestamp_part and date_trunc: the timestamps, then constants (timestamp_functions.h).
Vector evaluateTimestampFunction(const FunctionExpression& function, const Vector& values) {
  const size_t numArguments = function.arguments().size();
  const TimeZone& zone = TimeZone::named(constantArgument(function, numArguments - 1).asString());
  if (function.function() == ScalarFunction::kTimestampPart) {
    return evaluateTimestampPart(values, fieldArgument(function, 1), zone, function.type());
  }
  return evaluateTimestampTrunc(values, fieldArgument(function, 1), zone);
}

}  // namespace

std::optional<Vector> ExpressionEvaluator::evaluateColumnConstantComparison(const FunctionExpression& comparison,
                                                                            const Chunk& input) const {
  const auto& arguments = comparison.arguments();
  if (arguments.size() != 2) return std::nullopt;  // the general path fails it with XX000
  ScalarFunction function = comparison.function();
  const Expression* columnSide = arguments[0].get();
  const Expression* constantSide = arguments[1].get();
  auto isConstant = [](const Expression& expression) {
    return expression.kind() == ExpressionKind::kConstant || expression.kind() == ExpressionKind::kParameter;
  };
  if (isConstant(*columnSide)) {
    std::swap(columnSide, constantSide);
    function = mirroredComparison(function);
  }
  if (!isConstant(*constantSide)) return std::nullopt;
  const Vector* column = columnReadInPlace(*columnSide, input);
  if (column == nullptr) return std::nullopt;
  // The constant keeps its own type; the kernel needs it stored like the column's values.
  const LogicalType& constantType = constantSide->type();
  if (constantType.physicalType() != column->type().physicalType() ||
      (constantType.id() == TypeId::kDecimal && constantType.scale() != column->type().scale())) {
    return std::nullopt;
  }
  Vector constant = evaluate(*constantSide, Chunk(1));
  return evaluateComparisonWithConstant(function, *column, constant);
}

Vector ExpressionEvaluator::evaluate(const Expression& expression, const Chunk& input) const {
  checkStackDepth();
  switch (expression.kind()) {
    case ExpressionKind::kConstant:
      return broadcast(static_cast<const ConstantExpression&>(expression).value(), expression.type(), input.size());
    case ExpressionKind::kParameter: {
      size_t index = static_cast<const ParameterExpression&>(expression).index();
      SHOAL_CHECK_LT(index, parameters_.size(), "parameter index");
      return broadcast(parameters_[index], expression.type(), input.size());
    }
    case ExpressionKind::kColumnRef: {
      const Vector& column = input.column(static_cast<const ColumnRefExpression&>(expression).columnIndex());
      SHOAL_CHECK(column.type() == expression.type(), "column type {} vs expression type {}", column.type().toString(),
                  expression.type().toString());
      // Copy through a cast to the same type: keeps Vector single-owner without aliasing.
      return castVector(column, column.type());
    }
    case ExpressionKind::kCast: {
      const auto& cast = static_cast<const CastExpression&>(expression);
      if (cast.timeZone().empty()) return castVector(evaluate(cast.child(), input), cast.type());
      return castVector(evaluate(cast.child(), input), cast.type(), &TimeZone::named(cast.timeZone()));
    }
    case ExpressionKind::kFunction:
      return evaluateFunction(static_cast<const FunctionExpression&>(expression), input);
  }
  SHOAL_UNREACHABLE("unknown expression kind");
}

Vector ExpressionEvaluator::evaluateFunction(const FunctionExpression& function, const Chunk& input) const {
  // Lazy functions evaluate their arguments themselves, each on the rows that need it.
  if (isComparison(function.function())) {
    if (auto compared = evaluateColumnConstantComparison(function, input)) return std::move(*compared);
  }
  switch (function.function()) {
    case ScalarFunction::kGenRandomUuid:
      return evaluateRandomUuids(input.size());  // no arguments: one per input row
    case ScalarFunction::kInSet: {
      // The set is built once per expression, by the first thread that reaches it; the list is never a vector.
      const InSet& set = function.prepared<InSet>([&] {
        const Value& list = constantArgument(function, 1);
        return std::make_shared<const InSet>(decodeArray(list.asString(), list.type()), list.type().elementType());
      });
      return set.probe(evaluate(*function.arguments()[0], input));
    }
    case ScalarFunction::kCase:
      return evaluateCase(*this, function, input);
    case ScalarFunction::kCoalesce:
      return evaluateCoalesce(*this, function, input);
    case ScalarFunction::kAnd:
    case ScalarFunction::kOr:
      // A right operand that can fail runs only where the left one leaves the result open.
      if (!isInfallible(*function.arguments()[1])) {
        const bool isAnd = function.function() == ScalarFunction::kAnd;
        Vector left = evaluate(*function.arguments()[0], input);
        Vector right = evaluateUndecidedOperand(*this, *function.arguments()[1], input, left, !isAnd);
        return evaluateConjunction(isAnd, left, right);
      }
      break;
    default:
      break;
  }
  // Column arguments are read in place; only computed arguments get vectors of their own.
  const auto& arguments = function.arguments();
  std::vector<Vector> computed;
  computed.reserve(arguments.size());
  std::vector<const Vector*> argumentVectors;
  for (const auto& argument : arguments) {
    if (argument->kind() == ExpressionKind::kColumnRef) {
      argumentVectors.push_back(&input.column(static_cast<const ColumnRefExpression&>(*argument).columnIndex()));
    } else {
      computed.push_back(evaluate(*argument, input));
      argumentVectors.push_back(&computed.back());
    }
  }
  // Checked: a plan from another node may name a function with too few arguments (once per vector, not per row).
  auto value = [&](size_t index) -> const Vector& {
    SHOAL_CHECK(index < argumentVectors.size(), "{} has no argument {}", scalarFunctionName(function.function()),
                index);
    return *argumentVectors[index];
  };
  switch (function.function()) {
    case ScalarFunction::kAdd:
    case ScalarFunction::kSubtract:
    case ScalarFunction::kMultiply:
    case ScalarFunction::kDivide:
    case ScalarFunction::kModulo:
      return evaluateArithmetic(function.function(), value(0), value(1), function.type());
    case ScalarFunction::kNegate:
      return evaluateNegate(value(0));
    case ScalarFunction::kEqual:
    case ScalarFunction::kNotEqual:
    case ScalarFunction::kLess:
    case ScalarFunction::kLessEqual:
    case ScalarFunction::kGreater:
    case ScalarFunction::kGreaterEqual:
      return evaluateComparison(function.function(), value(0), value(1));
    case ScalarFunction::kAnd:
    case ScalarFunction::kOr:
      return evaluateConjunction(function.function() == ScalarFunction::kAnd, value(0), value(1));
    case ScalarFunction::kNot: {
      Vector out(LogicalType::boolean(), value(0).size());
      unaryLoop<uint8_t, uint8_t>(value(0), out, [](uint8_t value) { return value ? 0 : 1; });
      return out;
    }
    case ScalarFunction::kIsNull:
    case ScalarFunction::kIsNotNull:
      return evaluateNullTest(function.function() == ScalarFunction::kIsNull, value(0));
    case ScalarFunction::kConcat:
      return evaluateConcat(value(0), value(1), function.type());
    case ScalarFunction::kLower:
    case ScalarFunction::kUpper:
    case ScalarFunction::kCharLength:
      return evaluateStringFunction(function.function(), value(0));
    case ScalarFunction::kDateAddDays:
    case ScalarFunction::kDateSubtractDays:
    case ScalarFunction::kDateDifference:
      return evaluateDateArithmetic(function.function(), value(0), value(1));
    case ScalarFunction::kLike:
    case ScalarFunction::kNotLike:
      return evaluateLike(function.function() == ScalarFunction::kNotLike, value(0), value(1),
                          isRowIndependent(*arguments[1]));
    case ScalarFunction::kLikeEscape:
      return evaluateLikeEscape(value(0), value(1));
    case ScalarFunction::kCase:
    case ScalarFunction::kCoalesce:
      break;  // evaluated lazily above
    case ScalarFunction::kExtractYear:
    case ScalarFunction::kExtractMonth:
    case ScalarFunction::kExtractDay:
      return evaluateExtract(function.function(), value(0));
    case ScalarFunction::kTimestampPart:
    case ScalarFunction::kTimestampTrunc:
      return evaluateTimestampFunction(function, value(0));
    case ScalarFunction::kTimestampAddInterval:
      return evaluateTimestampAddInterval(value(0), value(1),
                                          TimeZone::named(constantArgument(function, 2).asString()));
    case ScalarFunction::kAbs:
    case ScalarFunction::kSign:
    case ScalarFunction::kCeil:
    case ScalarFunction::kFloor:
    case ScalarFunction::kSqrt:
    case ScalarFunction::kCbrt:
    case ScalarFunction::kExp:
    case ScalarFunction::kLn:
    case ScalarFunction::kLog10:
      return evaluateMathFunction(function.function(), value(0), function.type());
    case ScalarFunction::kRound:
    case ScalarFunction::kTrunc:
      return evaluateRounding(function.function(), value(0), constantArgument(function, 1).asInt32(), function.type());
    case ScalarFunction::kPower:
      return evaluatePower(value(0), value(1));
    case ScalarFunction::kSubstring:
      return evaluateSubstring(value(0), value(1), arguments.size() > 2 ? &value(2) : nullptr);
    case ScalarFunction::kDateAddMonths:
      return evaluateDateAddMonths(value(0), value(1));
    case ScalarFunction::kAverageOfSum:
      return evaluateAverageOfSum(value(0), value(1), function.type());
    case ScalarFunction::kRegexMatch:
    case ScalarFunction::kRegexNotMatch:
    case ScalarFunction::kRegexMatchInsensitive:
    case ScalarFunction::kRegexNotMatchInsensitive: {
      const auto which = function.function();
      return evaluateRegexMatch(
          which == ScalarFunction::kRegexNotMatch || which == ScalarFunction::kRegexNotMatchInsensitive,
          which == ScalarFunction::kRegexMatchInsensitive || which == ScalarFunction::kRegexNotMatchInsensitive,
          value(0), value(1));
    }
    case ScalarFunction::kArrayConstruct:
      if (arguments.empty()) return broadcast(makeArrayValue({}, function.type()), function.type(), input.size());
      return evaluateArrayFunction(function.function(), argumentVectors, function.type());
    case ScalarFunction::kArrayToString:
    case ScalarFunction::kArrayLength:
    case ScalarFunction::kArrayLower:
    case ScalarFunction::kArrayUpper:
    case ScalarFunction::kCardinality:
    case ScalarFunction::kArraySubscript:
    case ScalarFunction::kArrayConcat:
    case ScalarFunction::kArrayAppend:
    case ScalarFunction::kArrayPrepend:
    case ScalarFunction::kCompareAny:
    case ScalarFunction::kCompareAll:
    case ScalarFunction::kRecordConstruct:
    case ScalarFunction::kRecordField:
      return evaluateArrayFunction(function.function(), argumentVectors, function.type());
    case ScalarFunction::kBitAnd:
    case ScalarFunction::kBitOr:
    case ScalarFunction::kBitXor:
    case ScalarFunction::kBitNot:
    case ScalarFunction::kShiftLeft:
    case ScalarFunction::kShiftRight:
      return evaluateBitwise(function.function(), argumentVectors, function.type());
    case ScalarFunction::kReplace:
      return evaluateReplace(value(0), value(1), value(2));
    case ScalarFunction::kAssignString:
      return evaluateAssignString(value(0), function.type());
    case ScalarFunction::kQuoteIdent:
    case ScalarFunction::kQuoteLiteral:
    case ScalarFunction::kQuoteNullable:
      return evaluateQuote(function.function(), value(0));
    case ScalarFunction::kFormat:
      return evaluateFormat(argumentVectors);
    case ScalarFunction::kJsonBuildObject:
      return evaluateJsonBuildObject(argumentVectors, input.size());
    case ScalarFunction::kJsonGet:
    case ScalarFunction::kJsonGetText:
    case ScalarFunction::kJsonPath:
    case ScalarFunction::kJsonPathText:
    case ScalarFunction::kJsonTypeOf:
    case ScalarFunction::kJsonbCompare:
    case ScalarFunction::kJsonbSortKey:
      return evaluateJsonAccess(function.function(), function.type(), argumentVectors, input.size());
    case ScalarFunction::kConcatValues:
    case ScalarFunction::kConcatWithSeparator:
    case ScalarFunction::kLeftPad:
    case ScalarFunction::kRightPad:
    case ScalarFunction::kTrimBoth:
    case ScalarFunction::kTrimLeading:
    case ScalarFunction::kTrimTrailing:
    case ScalarFunction::kSplitPart:
    case ScalarFunction::kStrpos:
    case ScalarFunction::kInitcap:
    case ScalarFunction::kReverse:
    case ScalarFunction::kMd5:
    case ScalarFunction::kRepeat:
    case ScalarFunction::kStartsWith:
    case ScalarFunction::kLeft:
    case ScalarFunction::kRight:
    case ScalarFunction::kAscii:
    case ScalarFunction::kChr:
    case ScalarFunction::kToHex:
      return evaluateTextFunction(function.function(), argumentVectors, input.size());
    case ScalarFunction::kRegexReplace:
      return evaluateRegexReplace(value(0), value(1), value(2), value(3));
    case ScalarFunction::kRegexMatchArray:
      return evaluateRegexMatchArray(value(0), value(1), value(2));
    case ScalarFunction::kInSet:
    case ScalarFunction::kGenRandomUuid:
      break;  // evaluated above (the set without its list; gen_random_uuid without arguments)
    case ScalarFunction::kDateTimeToChar:
      return evaluateDateTimeToChar(value(0), value(1), TimeZone::named(constantArgument(function, 2).asString()));
    case ScalarFunction::kNumericVariance:
      return evaluateNumericVariance(value(0), value(1), value(2),
                                     static_cast<VarianceKind>(constantArgument(function, 3).asInt32()),
                                     function.type());
    case ScalarFunction::kIntervalAdd:
    case ScalarFunction::kIntervalSubtract:
    case ScalarFunction::kIntervalMultiply:
    case ScalarFunction::kIntervalDivide:
      return evaluateIntervalArithmetic(function.function(), value(0), &value(1));
    case ScalarFunction::kIntervalNegate:
      return evaluateIntervalArithmetic(function.function(), value(0), nullptr);
    case ScalarFunction::kTimestampDifference:
      return evaluateTimestampDifference(value(0), value(1));
    case ScalarFunction::kTimestampAge:
      return evaluateTimestampAge(value(0), value(1), TimeZone::named(constantArgument(function, 2).asString()));
    case ScalarFunction::kIntervalJustify:
      return evaluateIntervalJustify(value(0), enumArgument(function, 1, IntervalJustification::kBoth));
    case ScalarFunction::kMakeInterval:
      return evaluateMakeInterval(argumentVectors);
    case ScalarFunction::kIntervalPart:
    case ScalarFunction::kIntervalTrunc: {
      const TimestampField field = fieldArgument(function, 1);
      const bool part = function.function() == ScalarFunction::kIntervalPart;
      if (part ? !extractsFromInterval(field) : !truncatesInterval(field)) {
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "interval field {} in {}", static_cast<int>(field),
                        scalarFunctionName(function.function()));
      }
      if (!part) return evaluateIntervalTrunc(value(0), field);
      return evaluateIntervalPart(value(0), field, function.type().id() == TypeId::kDouble);
    }
    case ScalarFunction::kIntervalComponent:
      return evaluateIntervalComponent(value(0), enumArgument(function, 1, IntervalComponent::kMicroseconds));
    case ScalarFunction::kIntervalFromComponents:
      return evaluateIntervalFromComponents(value(0), value(1), value(2));
    case ScalarFunction::kMakeDate:
      return evaluateMakeDate(value(0), value(1), value(2));
    case ScalarFunction::kMakeTimestamp:
      value(5);  // checks that the six parts are there before the span takes them
      return evaluateMakeTimestamp(std::span(argumentVectors).first(6), arguments.size() > 6 ? &value(6) : nullptr);
    case ScalarFunction::kToTimestamp:
      return evaluateToTimestamp(value(0));
    case ScalarFunction::kMakeTime:
      return evaluateMakeTime(value(0), value(1), value(2));
    case ScalarFunction::kRandom:
      return evaluateRandom(value(0));
    case ScalarFunction::kWidthBucket:
      return evaluateWidthBucket(value(0), value(1), value(2), value(3));
    case ScalarFunction::kDateTimeFromChar:
      return evaluateDateTimeFromChar(value(0), value(1), constantArgument(function, 3).asInt32() != 0,
                                      TimeZone::named(constantArgument(function, 2).asString()));
    case ScalarFunction::kOctetLength:
    case ScalarFunction::kByteaEncode:
    case ScalarFunction::kByteaDecode:
    case ScalarFunction::kByteaSubstring:
      return evaluateByteaFunction(function.function(), argumentVectors, input.size());
    case ScalarFunction::kNumberToChar:
      return evaluateNumberToChar(value(0), value(1));
  }
  SHOAL_UNREACHABLE("unknown scalar function");
}

}  // namespace shoal::engine
