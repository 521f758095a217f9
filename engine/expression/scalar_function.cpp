#include "engine/expression/scalar_function.h"

namespace shoal::engine {

std::string_view scalarFunctionName(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kAdd:
    case ScalarFunction::kDateAddDays:
      return "+";
    case ScalarFunction::kSubtract:
    case ScalarFunction::kNegate:
    case ScalarFunction::kDateSubtractDays:
    case ScalarFunction::kDateDifference:
      return "-";
    case ScalarFunction::kMultiply:
      return "*";
    case ScalarFunction::kDivide:
      return "/";
    case ScalarFunction::kModulo:
      return "%";
    case ScalarFunction::kEqual:
      return "=";
    case ScalarFunction::kNotEqual:
      return "<>";
    case ScalarFunction::kLess:
      return "<";
    case ScalarFunction::kLessEqual:
      return "<=";
    case ScalarFunction::kGreater:
      return ">";
    case ScalarFunction::kGreaterEqual:
      return ">=";
    case ScalarFunction::kAnd:
      return "AND";
    case ScalarFunction::kOr:
      return "OR";
    case ScalarFunction::kNot:
      return "NOT";
    case ScalarFunction::kIsNull:
      return "IS NULL";
    case ScalarFunction::kIsNotNull:
      return "IS NOT NULL";
    case ScalarFunction::kConcat:
      return "||";
    case ScalarFunction::kLower:
      return "lower";
    case ScalarFunction::kUpper:
      return "upper";
    case ScalarFunction::kCharLength:
      return "char_length";
    case ScalarFunction::kLike:
      return "LIKE";
    case ScalarFunction::kNotLike:
      return "NOT LIKE";
    case ScalarFunction::kCase:
      return "CASE";
    case ScalarFunction::kCoalesce:
      return "coalesce";
    case ScalarFunction::kExtractYear:
    case ScalarFunction::kExtractMonth:
    case ScalarFunction::kExtractDay:
      return "EXTRACT";
    case ScalarFunction::kSubstring:
      return "substring";
    case ScalarFunction::kDateAddMonths:
      return "date_add_months";
    case ScalarFunction::kAverageOfSum:
      return "average_of_sum";
    case ScalarFunction::kRegexMatch:
      return "~";
    case ScalarFunction::kRegexNotMatch:
      return "!~";
    case ScalarFunction::kRegexMatchInsensitive:
      return "~*";
    case ScalarFunction::kRegexNotMatchInsensitive:
      return "!~*";
    case ScalarFunction::kLikeEscape:
      return "like_escape";
    case ScalarFunction::kArrayConstruct:
      return "ARRAY";
    case ScalarFunction::kArrayToString:
      return "array_to_string";
    case ScalarFunction::kArrayLength:
      return "array_length";
    case ScalarFunction::kArrayLower:
      return "array_lower";
    case ScalarFunction::kArrayUpper:
      return "array_upper";
    case ScalarFunction::kCardinality:
      return "cardinality";
    case ScalarFunction::kArraySubscript:
      return "array_subscript";
    case ScalarFunction::kArrayConcat:
    case ScalarFunction::kArrayAppend:
    case ScalarFunction::kArrayPrepend:
      return "||";
    case ScalarFunction::kCompareAny:
      return "compare_any";
    case ScalarFunction::kCompareAll:
      return "compare_all";
    case ScalarFunction::kReplace:
      return "replace";
    case ScalarFunction::kQuoteIdent:
      return "quote_ident";
    case ScalarFunction::kQuoteLiteral:
      return "quote_literal";
    case ScalarFunction::kQuoteNullable:
      return "quote_nullable";
    case ScalarFunction::kFormat:
      return "format";
    case ScalarFunction::kJsonBuildObject:
      return "json_build_object";
    case ScalarFunction::kTimestampPart:
      return "timestamp_part";
    case ScalarFunction::kTimestampTrunc:
      return "date_trunc";
    case ScalarFunction::kTimestampAddInterval:
      return "timestamp_add_interval";
    case ScalarFunction::kAbs:
      return "abs";
    case ScalarFunction::kSign:
      return "sign";
    case ScalarFunction::kCeil:
      return "ceil";
    case ScalarFunction::kFloor:
      return "floor";
    case ScalarFunction::kRound:
      return "round";
    case ScalarFunction::kTrunc:
      return "trunc";
    case ScalarFunction::kSqrt:
      return "sqrt";
    case ScalarFunction::kCbrt:
      return "cbrt";
    case ScalarFunction::kExp:
      return "exp";
    case ScalarFunction::kLn:
      return "ln";
    case ScalarFunction::kLog10:
      return "log10";
    case ScalarFunction::kPower:
      return "power";
    case ScalarFunction::kConcatValues:
      return "concat";
    case ScalarFunction::kConcatWithSeparator:
      return "concat_ws";
    case ScalarFunction::kLeftPad:
      return "lpad";
    case ScalarFunction::kRightPad:
      return "rpad";
    case ScalarFunction::kTrimBoth:
      return "btrim";
    case ScalarFunction::kTrimLeading:
      return "ltrim";
    case ScalarFunction::kTrimTrailing:
      return "rtrim";
    case ScalarFunction::kSplitPart:
      return "split_part";
    case ScalarFunction::kStrpos:
      return "strpos";
    case ScalarFunction::kInitcap:
      return "initcap";
    case ScalarFunction::kReverse:
      return "reverse";
    case ScalarFunction::kMd5:
      return "md5";
    case ScalarFunction::kRepeat:
      return "repeat";
    case ScalarFunction::kStartsWith:
      return "starts_with";
    case ScalarFunction::kLeft:
      return "left";
    case ScalarFunction::kRight:
      return "right";
    case ScalarFunction::kAscii:
      return "ascii";
    case ScalarFunction::kChr:
      return "chr";
    case ScalarFunction::kToHex:
      return "to_hex";
    case ScalarFunction::kRegexReplace:
      return "regexp_replace";
    case ScalarFunction::kRegexMatchArray:
      return "regexp_match";
    case ScalarFunction::kInSet:
      return "in_set";
    case ScalarFunction::kNumericVariance:
      return "numeric_variance";
    case ScalarFunction::kDateTimeToChar:
      return "to_char";
    case ScalarFunction::kIntervalAdd:
      return "+";
    case ScalarFunction::kIntervalSubtract:
    case ScalarFunction::kIntervalNegate:
    case ScalarFunction::kTimestampDifference:
      return "-";
    case ScalarFunction::kIntervalMultiply:
      return "*";
    case ScalarFunction::kIntervalDivide:
      return "/";
    case ScalarFunction::kTimestampAge:
      return "age";
    case ScalarFunction::kIntervalJustify:
      return "justify";
    case ScalarFunction::kMakeInterval:
      return "make_interval";
    case ScalarFunction::kIntervalPart:
      return "interval_part";
    case ScalarFunction::kIntervalTrunc:
      return "date_trunc";
    case ScalarFunction::kIntervalComponent:
      return "interval_component";
    case ScalarFunction::kIntervalFromComponents:
      return "interval_from_components";
    case ScalarFunction::kMakeDate:
      return "make_date";
    case ScalarFunction::kMakeTimestamp:
      return "make_timestamp";
    case ScalarFunction::kToTimestamp:
      return "to_timestamp";
    case ScalarFunction::kMakeTime:
      return "make_time";
    case ScalarFunction::kRandom:
      return "random";
    case ScalarFunction::kWidthBucket:
      return "width_bucket";
    case ScalarFunction::kGenRandomUuid:
      return "gen_random_uuid";
    case ScalarFunction::kDateTimeFromChar:
      return "to_timestamp";
    case ScalarFunction::kOctetLength:
      return "octet_length";
    case ScalarFunction::kByteaEncode:
      return "encode";
    case ScalarFunction::kByteaDecode:
      return "decode";
    case ScalarFunction::kByteaSubstring:
      return "substring";
    case ScalarFunction::kNumberToChar:
      return "to_char";
    case ScalarFunction::kJsonGet:
      return "->";
    case ScalarFunction::kJsonGetText:
      return "->>";
    case ScalarFunction::kJsonPath:
      return "#>";
    case ScalarFunction::kJsonPathText:
      return "#>>";
    case ScalarFunction::kJsonTypeOf:
      return "json_typeof";
    case ScalarFunction::kJsonbCompare:
      return "jsonb_cmp";
    case ScalarFunction::kJsonbSortKey:
      return "jsonb_sort_key";
  }
  return "?";
}

bool isOperator(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kLower:
    case ScalarFunction::kUpper:
    case ScalarFunction::kCharLength:
    case ScalarFunction::kCase:
    case ScalarFunction::kCoalesce:
    case ScalarFunction::kExtractYear:
    case ScalarFunction::kExtractMonth:
    case ScalarFunction::kExtractDay:
    case ScalarFunction::kSubstring:
    case ScalarFunction::kDateAddMonths:
    case ScalarFunction::kAverageOfSum:
    case ScalarFunction::kLikeEscape:
    case ScalarFunction::kArrayConstruct:
    case ScalarFunction::kArrayToString:
    case ScalarFunction::kArrayLength:
    case ScalarFunction::kArrayLower:
    case ScalarFunction::kArrayUpper:
    case ScalarFunction::kCardinality:
    case ScalarFunction::kArraySubscript:
    case ScalarFunction::kCompareAny:
    case ScalarFunction::kCompareAll:
    case ScalarFunction::kReplace:
    case ScalarFunction::kQuoteIdent:
    case ScalarFunction::kQuoteLiteral:
    case ScalarFunction::kQuoteNullable:
    case ScalarFunction::kFormat:
    case ScalarFunction::kJsonBuildObject:
    case ScalarFunction::kTimestampPart:
    case ScalarFunction::kTimestampTrunc:
    case ScalarFunction::kTimestampAddInterval:
    case ScalarFunction::kAbs:
    case ScalarFunction::kSign:
    case ScalarFunction::kCeil:
    case ScalarFunction::kFloor:
    case ScalarFunction::kRound:
    case ScalarFunction::kTrunc:
    case ScalarFunction::kSqrt:
    case ScalarFunction::kCbrt:
    case ScalarFunction::kExp:
    case ScalarFunction::kLn:
    case ScalarFunction::kLog10:
    case ScalarFunction::kPower:
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
    case ScalarFunction::kRegexReplace:
    case ScalarFunction::kRegexMatchArray:
    case ScalarFunction::kInSet:
    case ScalarFunction::kNumericVariance:
    case ScalarFunction::kDateTimeToChar:
    case ScalarFunction::kTimestampAge:
    case ScalarFunction::kIntervalJustify:
    case ScalarFunction::kMakeInterval:
    case ScalarFunction::kIntervalPart:
    case ScalarFunction::kIntervalTrunc:
    case ScalarFunction::kIntervalComponent:
    case ScalarFunction::kIntervalFromComponents:
    case ScalarFunction::kMakeDate:
    case ScalarFunction::kMakeTimestamp:
    case ScalarFunction::kToTimestamp:
    case ScalarFunction::kMakeTime:
    case ScalarFunction::kRandom:
    case ScalarFunction::kWidthBucket:
    case ScalarFunction::kGenRandomUuid:
    case ScalarFunction::kDateTimeFromChar:
    case ScalarFunction::kOctetLength:
    case ScalarFunction::kByteaEncode:
    case ScalarFunction::kByteaDecode:
    case ScalarFunction::kByteaSubstring:
    case ScalarFunction::kNumberToChar:
    case ScalarFunction::kJsonTypeOf:
    case ScalarFunction::kJsonbCompare:
    case ScalarFunction::kJsonbSortKey:
      return false;
    default:
      return true;
  }
}

bool isPatternMatch(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kLike:
    case ScalarFunction::kNotLike:
    case ScalarFunction::kRegexMatch:
    case ScalarFunction::kRegexNotMatch:
    case ScalarFunction::kRegexMatchInsensitive:
    case ScalarFunction::kRegexNotMatchInsensitive:
      return true;
    default:
      return false;
  }
}

bool isComparison(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kEqual:
    case ScalarFunction::kNotEqual:
    case ScalarFunction::kLess:
    case ScalarFunction::kLessEqual:
    case ScalarFunction::kGreater:
    case ScalarFunction::kGreaterEqual:
      return true;
    default:
      return false;
  }
}

ScalarFunction mirroredComparison(ScalarFunction comparison) {
  switch (comparison) {
    case ScalarFunction::kLess:
      return ScalarFunction::kGreater;
    case ScalarFunction::kLessEqual:
      return ScalarFunction::kGreaterEqual;
    case ScalarFunction::kGreater:
      return ScalarFunction::kLess;
    case ScalarFunction::kGreaterEqual:
      return ScalarFunction::kLessEqual;
    default:
      return comparison;
  }
}

bool isVolatile(ScalarFunction function) {
  return function == ScalarFunction::kRandom || function == ScalarFunction::kGenRandomUuid;
}

}  // namespace shoal::engine
