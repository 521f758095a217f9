// ExpressionBinder's binding of PostgreSQL's string library: concat, concat_ws, lpad, rpad, btrim, ltrim, rtrim
// (and TRIM, which the parser turns into them), split_part, strpos and position, initcap, reverse, md5,
// repeat, starts_with, left, right, ascii, chr, to_hex, regexp_replace and regexp_match. Each signature is
// PostgreSQL 15's: a text parameter takes strings and untyped literals, an integer parameter integers of
// at most four bytes, as its implicit casts allow; anything else is 42883.

#include <map>
#include <vector>

#include "common/status.h"
#include "engine/expression/text_functions.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;
using engine::Value;

namespace {

enum class Parameter { kText, kInteger };

struct Signature {
  ScalarFunction function;
  std::vector<Parameter> parameters;
  /// Trailing parameters that may be left out, with the value PostgreSQL gives them.
  std::vector<std::string_view> defaults;
};

constexpr auto T = Parameter::kText;
constexpr auto I = Parameter::kInteger;

const std::map<std::string_view, Signature>& signatures() {
  static const std::map<std::string_view, Signature> kSignatures = {
      {"lpad", {ScalarFunction::kLeftPad, {T, I, T}, {" "}}},
      {"rpad", {ScalarFunction::kRightPad, {T, I, T}, {" "}}},
      {"btrim", {ScalarFunction::kTrimBoth, {T, T}, {" "}}},
      {"ltrim", {ScalarFunction::kTrimLeading, {T, T}, {" "}}},
      {"rtrim", {ScalarFunction::kTrimTrailing, {T, T}, {" "}}},
      {"split_part", {ScalarFunction::kSplitPart, {T, T, I}, {}}},
      {"strpos", {ScalarFunction::kStrpos, {T, T}, {}}},
      {"position", {ScalarFunction::kStrpos, {T, T}, {}}},
      {"initcap", {ScalarFunction::kInitcap, {T}, {}}},
      {"reverse", {ScalarFunction::kReverse, {T}, {}}},
      {"md5", {ScalarFunction::kMd5, {T}, {}}},
      {"repeat", {ScalarFunction::kRepeat, {T, I}, {}}},
      {"starts_with", {ScalarFunction::kStartsWith, {T, T}, {}}},
      {"left", {ScalarFunction::kLeft, {T, I}, {}}},
      {"right", {ScalarFunction::kRight, {T, I}, {}}},
      {"ascii", {ScalarFunction::kAscii, {T}, {}}},
      {"chr", {ScalarFunction::kChr, {I}, {}}},
      {"regexp_replace", {ScalarFunction::kRegexReplace, {T, T, T, T}, {""}}},
      {"regexp_match", {ScalarFunction::kRegexMatchArray, {T, T, T}, {""}}},
  };
  return kSignatures;
}

bool fitsInteger(const LogicalType& type) {
  return type.id() == TypeId::kSmallInt || type.id() == TypeId::kInteger;
}

}  // namespace

bool isStringLibraryFunction(std::string_view name) {
  return signatures().contains(name) || name == "concat" || name == "concat_ws" || name == "to_hex";
}

ExpressionPtr ExpressionBinder::bindStringLibraryFunction(std::string_view name, std::vector<ExpressionPtr>& arguments,
                                                          int location, const std::function<void()>& undefined) {
  auto textual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
  if (name == "concat" || name == "concat_ws") {
    // Their values are "any", each written as its type's output function writes it.
    if (arguments.empty() || (name == "concat_ws" && !textual(arguments[0]))) undefined();
    for (auto& argument : arguments) {
      argument = resolveUnknown(std::move(argument), location);
      if (argument->type().id() == TypeId::kBoolean) argument = booleanOutputText(std::move(argument));
      argument = paddedText(std::move(argument), location);
    }
    const auto function = name == "concat" ? ScalarFunction::kConcatValues : ScalarFunction::kConcatWithSeparator;
    return functionOf(function, LogicalType::text(), std::move(arguments));
  }
  if (name == "to_hex") {
    // to_hex(integer) and to_hex(bigint): a negative value prints in its own width.
    if (arguments.size() != 1) undefined();
    if (isUnknown(arguments[0])) arguments[0] = coerce(std::move(arguments[0]), LogicalType::integer(), location);
    const LogicalType& type = arguments[0]->type();
    if (!type.isIntegral()) undefined();
    const LogicalType width = type.id() == TypeId::kBigInt ? LogicalType::bigInt() : LogicalType::integer();
    arguments[0] = coerce(std::move(arguments[0]), width, location);
    return functionOf(ScalarFunction::kToHex, LogicalType::text(), std::move(arguments));
  }
  const Signature& signature = signatures().at(name);
  const size_t required = signature.parameters.size() - signature.defaults.size();
  if (arguments.size() < required || arguments.size() > signature.parameters.size()) undefined();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const bool text = signature.parameters[i] == Parameter::kText;
    const LogicalType& type = arguments[i]->type();
    if (!isUnknown(arguments[i]) && !(text ? type.isString() : fitsInteger(type))) undefined();
  }
  for (size_t i = 0; i < signature.parameters.size(); ++i) {
    if (i == arguments.size()) {
      arguments.push_back(
          std::make_unique<ConstantExpression>(Value::varchar(std::string(signature.defaults[i - required]))));
    }
    const bool text = signature.parameters[i] == Parameter::kText;
    arguments[i] = coerce(std::move(arguments[i]), text ? LogicalType::text() : LogicalType::integer(), location);
  }
  return functionOf(signature.function, engine::textFunctionResultType(signature.function), std::move(arguments));
}

ExpressionPtr ExpressionBinder::paddedText(ExpressionPtr text, int location) {
  if (text->type().id() != TypeId::kChar) return coerce(std::move(text), LogicalType::text(), location);
  // Shoal keeps CHAR(n) values unpadded; rpad restores the spaces (a value is never longer than n).
  const auto length = static_cast<int32_t>(text->type().maxLength());
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(coerce(std::move(text), LogicalType::text(), location));
  arguments.push_back(std::make_unique<ConstantExpression>(Value::integer(length)));
  arguments.push_back(std::make_unique<ConstantExpression>(Value::varchar(" ")));
  return functionOf(ScalarFunction::kRightPad, LogicalType::text(), std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindByteaFunction(std::string_view name, std::vector<ExpressionPtr>& arguments,
                                                  int location, const std::function<void()>& undefined) {
  auto bytea = [](const ExpressionPtr& e) { return e->type().id() == TypeId::kBytea; };
  auto textual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
  if (name == "octet_length") {
    if (arguments.size() != 1 || !(bytea(arguments[0]) || textual(arguments[0]))) undefined();
    // CHAR(n) counts its padding, as bpcharoctetlen does.
    if (!bytea(arguments[0])) arguments[0] = paddedText(resolveUnknown(std::move(arguments[0]), location), location);
    return functionOf(ScalarFunction::kOctetLength, LogicalType::integer(), std::move(arguments));
  }
  if (name == "encode" || name == "decode") {
    const bool encoding = name == "encode";
    if (arguments.size() != 2 || !textual(arguments[1])) undefined();
    if (encoding && isUnknown(arguments[0]))
      arguments[0] = coerce(std::move(arguments[0]), LogicalType::bytea(), location);
    if (encoding ? !bytea(arguments[0]) : !textual(arguments[0])) undefined();
    if (!encoding) arguments[0] = coerce(std::move(arguments[0]), LogicalType::text(), location);
    arguments[1] = coerce(std::move(arguments[1]), LogicalType::text(), location);
    return functionOf(encoding ? ScalarFunction::kByteaEncode : ScalarFunction::kByteaDecode,
                      encoding ? LogicalType::text() : LogicalType::bytea(), std::move(arguments));
  }
  if (arguments.empty() || !bytea(arguments[0])) return nullptr;
  if (name == "length" && arguments.size() == 1) {
    return functionOf(ScalarFunction::kOctetLength, LogicalType::integer(), std::move(arguments));
  }
  if (name == "md5" && arguments.size() == 1) {
    return functionOf(ScalarFunction::kMd5, LogicalType::text(), std::move(arguments));  // over the bytes
  }
  if ((name == "substring" || name == "substr") && (arguments.size() == 2 || arguments.size() == 3)) {
    for (size_t i = 1; i < arguments.size(); ++i) {
      if (!arguments[i]->type().isIntegral() && !isUnknown(arguments[i])) undefined();
      arguments[i] = coerce(std::move(arguments[i]), LogicalType::integer(), location);
    }
    return functionOf(ScalarFunction::kByteaSubstring, LogicalType::bytea(), std::move(arguments));
  }
  return nullptr;
}

}  // namespace shoal::sql
