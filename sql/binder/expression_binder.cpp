#include "sql/binder/expression_binder.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/stack_depth.h"
#include "engine/expression/cast.h"
#include "engine/expression/datetime_casts.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/type_coercion.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::CastExpression;
using engine::ConstantExpression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::LogicalType;
using engine::ParameterExpression;
using engine::ScalarFunction;
using engine::TypeId;
using engine::Value;

std::string lastName(const google::protobuf::RepeatedPtrField<pg_query::Node>& names) {
  return names.empty() ? std::string() : names.rbegin()->string().sval();
}

int ExpressionBinder::locationOf(const pg_query::Node& node) {
  switch (node.node_case()) {
    case pg_query::Node::kAConst:
      return node.a_const().location();
    case pg_query::Node::kAExpr:
      return node.a_expr().location();
    case pg_query::Node::kColumnRef:
      return node.column_ref().location();
    case pg_query::Node::kParamRef:
      return node.param_ref().location();
    case pg_query::Node::kTypeCast:
      return node.type_cast().location();
    case pg_query::Node::kFuncCall:
      return node.func_call().location();
    case pg_query::Node::kBoolExpr:
      return node.bool_expr().location();
    case pg_query::Node::kNullTest:
      return node.null_test().location();
    case pg_query::Node::kCaseExpr:
      return node.case_expr().location();
    case pg_query::Node::kCoalesceExpr:
      return node.coalesce_expr().location();
    case pg_query::Node::kSubLink:
      return node.sub_link().location();
    case pg_query::Node::kGroupingFunc:
      return node.grouping_func().location();
    case pg_query::Node::kGroupingSet:
      return node.grouping_set().location();
    default:
      return -1;
  }
}

std::string_view sqlValueFunctionName(pg_query::SQLValueFunctionOp op) {
  switch (op) {
    case pg_query::SVFOP_CURRENT_DATE:
      return "current_date";
    case pg_query::SVFOP_CURRENT_TIME:
    case pg_query::SVFOP_CURRENT_TIME_N:
      return "current_time";
    case pg_query::SVFOP_CURRENT_TIMESTAMP:
    case pg_query::SVFOP_CURRENT_TIMESTAMP_N:
      return "current_timestamp";
    case pg_query::SVFOP_LOCALTIME:
    case pg_query::SVFOP_LOCALTIME_N:
      return "localtime";
    case pg_query::SVFOP_LOCALTIMESTAMP:
    case pg_query::SVFOP_LOCALTIMESTAMP_N:
      return "localtimestamp";
    case pg_query::SVFOP_CURRENT_ROLE:
      return "current_role";
    case pg_query::SVFOP_CURRENT_USER:
      return "current_user";
    case pg_query::SVFOP_USER:
      return "user";
    case pg_query::SVFOP_SESSION_USER:
      return "session_user";
    case pg_query::SVFOP_CURRENT_CATALOG:
      return "current_catalog";
    case pg_query::SVFOP_CURRENT_SCHEMA:
      return "current_schema";
    default:
      return "?column?";
  }
}

std::optional<ScalarFunction> comparisonFunction(std::string_view op) {
  static const std::pair<std::string_view, ScalarFunction> kComparisons[] = {
      {"=", ScalarFunction::kEqual},        {"<>", ScalarFunction::kNotEqual},  {"!=", ScalarFunction::kNotEqual},
      {"<", ScalarFunction::kLess},         {"<=", ScalarFunction::kLessEqual}, {">", ScalarFunction::kGreater},
      {">=", ScalarFunction::kGreaterEqual}};
  for (const auto& [name, function] : kComparisons) {
    if (op == name) return function;
  }
  return std::nullopt;
}

std::optional<ScalarFunction> regexFunction(std::string_view op) {
  if (op == "~") return ScalarFunction::kRegexMatch;
  if (op == "!~") return ScalarFunction::kRegexNotMatch;
  if (op == "~*") return ScalarFunction::kRegexMatchInsensitive;
  if (op == "!~*") return ScalarFunction::kRegexNotMatchInsensitive;
  return std::nullopt;
}

ExpressionPtr combineBalanced(ScalarFunction function, std::vector<ExpressionPtr> terms) {
  while (terms.size() > 1) {
    std::vector<ExpressionPtr> paired;
    for (size_t i = 0; i + 1 < terms.size(); i += 2) {
      paired.push_back(makeFunction(function, LogicalType::boolean(), std::move(terms[i]), std::move(terms[i + 1])));
    }
    if (terms.size() % 2 == 1) paired.push_back(std::move(terms.back()));
    terms = std::move(paired);
  }
  return std::move(terms[0]);
}

ExpressionBinder::ExpressionBinder(std::string_view queryText, const std::vector<ColumnDescription>& columns,
                                   std::vector<LogicalType>& parameterTypes)
    : queryText_(queryText), parameterTypes_(parameterTypes) {
  resolveColumn_ = [this, &columns](const pg_query::ColumnRef& ref) -> ExpressionPtr {
    const auto& fields = ref.fields();
    std::string name = fields.rbegin()->string().sval();
    for (size_t index = 0; index < columns.size(); ++index) {
      if (columns[index].name == name && fields.size() == 1) {
        return std::make_unique<engine::ColumnRefExpression>(index, columns[index].type, name);
      }
    }
    std::string qualified;
    for (const auto& field : fields) qualified += (qualified.empty() ? "" : ".") + field.string().sval();
    fail(SqlState::kUndefinedColumn, ref.location(), fmt::format("column \"{}\" does not exist", qualified));
  };
}

ExpressionBinder::ExpressionBinder(std::string_view queryText, ColumnResolver resolver,
                                   std::vector<LogicalType>& parameterTypes)
    : queryText_(queryText), resolveColumn_(std::move(resolver)), parameterTypes_(parameterTypes) {}

void ExpressionBinder::fail(std::string_view sqlState, int location, std::string message) const {
  int position = characterPosition(queryText_, location);
  if (position > 0) {
    throw ShoalError(Status(sqlState, std::move(message), position));
  }
  throw ShoalError(Status(sqlState, std::move(message)));
}

void ExpressionBinder::fail(std::string_view sqlState, int location, std::string message, std::string hint) const {
  int position = characterPosition(queryText_, location);
  Status status(sqlState, std::move(message), position > 0 ? std::optional<int>(position) : std::nullopt);
  if (!hint.empty()) throw ShoalError(std::move(status).withHint(std::move(hint)));
  throw ShoalError(std::move(status));
}

std::string typeNameWithoutModifiers(const LogicalType& type) {
  if (type.isArray() && !type.isVector()) return typeNameWithoutModifiers(type.elementType()) + "[]";
  switch (type.id()) {
    case TypeId::kDecimal:
      return "numeric";
    case TypeId::kVarchar:
      return type.isJson() || type.maxLength() == 0 ? type.toString() : "character varying";
    case TypeId::kChar:
      return "character";
    default:
      return type.withoutFractionalDigits().toString();
  }
}

void ExpressionBinder::failNoOperator(std::string_view op, const LogicalType& left, const LogicalType& right,
                                      int location) const {
  int position = characterPosition(queryText_, location);
  throw ShoalError(
      Status(SqlState::kUndefinedFunction,
             fmt::format("operator does not exist: {} {} {}", typeNameWithoutModifiers(left), op,
                         typeNameWithoutModifiers(right)),
             position > 0 ? std::optional<int>(position) : std::nullopt)
          .withHint("No operator matches the given name and argument types. You might need to add explicit type "
                    "casts."));
}

ExpressionPtr ExpressionBinder::bind(const pg_query::Node& node) {
  checkStackDepth();
  switch (node.node_case()) {
    case pg_query::Node::kAConst:
      return bindConstant(node);
    case pg_query::Node::kColumnRef:
      return bindColumnRef(node);
    case pg_query::Node::kParamRef:
      return bindParameter(node);
    case pg_query::Node::kAExpr:
      return bindOperator(node);
    case pg_query::Node::kBoolExpr:
      return bindBoolean(node);
    case pg_query::Node::kNullTest:
      return bindNullTest(node);
    case pg_query::Node::kTypeCast:
      return bindTypeCast(node);
    case pg_query::Node::kFuncCall:
      return bindFunctionCall(node);
    case pg_query::Node::kCaseExpr:
      return bindCase(node);
    case pg_query::Node::kCoalesceExpr:
      return bindCoalesce(node);
    case pg_query::Node::kMinMaxExpr:
      return bindGreatestOrLeast(node.min_max_expr());
    case pg_query::Node::kBooleanTest:
      return bindBooleanTest(node.boolean_test());
    case pg_query::Node::kSubLink:
      return bindSubLink(node);
    case pg_query::Node::kSqlvalueFunction:
      return bindSqlValueFunction(node);
    case pg_query::Node::kCollateClause:
      return bindCollate(node);
    case pg_query::Node::kAArrayExpr:
      return bindArrayConstructor(node.a_array_expr(), std::nullopt);
    case pg_query::Node::kAIndirection:
      return bindSubscript(node.a_indirection());
    case pg_query::Node::kGroupingFunc: {
      const auto& grouping = node.grouping_func();
      if (!groupingSink_ || insideAggregate_) {
        fail(SqlState::kGroupingError, grouping.location(),
             insideAggregate_ ? "aggregate function calls cannot contain grouping operations"
                              : fmt::format("grouping operations are not allowed in {}", clause_));
      }
      std::vector<ExpressionPtr> arguments;
      std::vector<int> locations;
      for (const auto& argument : grouping.args()) {
        locations.push_back(locationOf(argument));
        arguments.push_back(resolveUnknown(bind(argument), locations.back()));
      }
      return groupingSink_(std::move(arguments), std::move(locations));
    }
    default: {
      static const std::map<std::string, std::string, std::less<>> kNames = {
          {"RowExpr", "row constructors are"},
          {"SQLValueFunction", "CURRENT_DATE and friends are"},
          {"XmlExpr", "XML functions are"}};
      const auto* field = node.GetDescriptor()->FindFieldByNumber(node.node_case());
      std::string nodeName = field ? field->message_type()->name() : "?";
      auto found = kNames.find(nodeName);
      fail(SqlState::kFeatureNotSupported, locationOf(node),
           found != kNames.end() ? fmt::format("{} not supported yet", found->second)
                                 : fmt::format("expression {} is not supported yet", nodeName));
    }
  }
}

ExpressionPtr ExpressionBinder::bindConstant(const pg_query::Node& node) {
  const auto& constant = node.a_const();
  if (constant.isnull()) {
    return std::make_unique<ConstantExpression>(Value::null(LogicalType::unknown()));
  }
  switch (constant.val_case()) {
    case pg_query::A_Const::kIval:
      return std::make_unique<ConstantExpression>(Value::integer(constant.ival().ival()));
    case pg_query::A_Const::kFval:
      try {
        return std::make_unique<ConstantExpression>(engine::parseNumericLiteral(constant.fval().fval()));
      } catch (ShoalError& error) {
        fail(error.status().sqlState(), constant.location(), error.status().message());
      }
    case pg_query::A_Const::kSval:
      return std::make_unique<ConstantExpression>(Value::unknownLiteral(constant.sval().sval()));
    case pg_query::A_Const::kBoolval:
      return std::make_unique<ConstantExpression>(Value::boolean(constant.boolval().boolval()));
    default:
      fail(SqlState::kFeatureNotSupported, constant.location(), "bit string literals are not supported");
  }
}

ExpressionPtr ExpressionBinder::bindColumnRef(const pg_query::Node& node) {
  const auto& ref = node.column_ref();
  const auto& fields = ref.fields();
  if (fields.empty() || fields.rbegin()->has_a_star()) {
    fail(SqlState::kSyntaxError, ref.location(), "\"*\" is not allowed here");
  }
  ExpressionPtr resolved = resolveColumn_(ref);
  if (!insideAggregate_ && resolved->kind() == ExpressionKind::kColumnRef) {
    auto id = static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(*resolved).columnIndex());
    bareColumnReferences_.emplace_back(id, ref.location());
  }
  return resolved;
}

ExpressionPtr ExpressionBinder::bindParameter(const pg_query::Node& node) {
  int number = node.param_ref().number();
  constexpr int kMaxParameters = 65535;  // the wire protocol counts them in an int16
  if (number < 1 || number > kMaxParameters) {
    fail(SqlState::kUndefinedParameter, node.param_ref().location(), fmt::format("there is no parameter ${}", number));
  }
  if (static_cast<size_t>(number) > parameterTypes_.size()) {
    parameterTypes_.resize(number, LogicalType::unknown());
  }
  return std::make_unique<ParameterExpression>(number - 1, parameterTypes_[number - 1]);
}

ExpressionPtr ExpressionBinder::coerce(ExpressionPtr expression, const LogicalType& target, int location) {
  if (expression->type() == target) {
    return expression;
  }
  if (isUnknown(expression)) {
    if (expression->kind() == ExpressionKind::kParameter) {
      size_t index = static_cast<const ParameterExpression&>(*expression).index();
      parameterTypes_[index] = target;
      return std::make_unique<ParameterExpression>(index, target);
    }
    if (expression->kind() == ExpressionKind::kConstant) {
      const Value& literal = static_cast<const ConstantExpression&>(*expression).value();
      if (literal.isNull()) {
        return std::make_unique<ConstantExpression>(Value::null(target));
      }
      try {
        return std::make_unique<ConstantExpression>(parseLiteral(literal.asString(), target));
      } catch (const ShoalError& error) {
        // The literal's own error (its DETAIL too), pointing at where it stands.
        Status status = error.status();
        if (int position = characterPosition(queryText_, location); position > 0) status.setPosition(position);
        throw ShoalError(std::move(status));
      }
    }
  }
  if (!engine::isCastSupported(expression->type(), target)) {
    fail(SqlState::kCannotCoerce, location,
         fmt::format("cannot cast type {} to {}", expression->type().toString(), target.toString()));
  }
  auto holdsTimestampTz = [](const LogicalType& type) {
    return type.id() == TypeId::kTimestampTz || (type.isArray() && type.elementId() == TypeId::kTimestampTz);
  };
  const bool zoned = holdsTimestampTz(expression->type()) || holdsTimestampTz(target);
  return std::make_unique<CastExpression>(std::move(expression), target, zoned ? timeZoneSetting() : std::string());
}

std::string ExpressionBinder::timeZoneSetting() const {
  return session_ != nullptr && session_->setting ? session_->setting("TimeZone") : std::string("UTC");
}

Value ExpressionBinder::parseLiteral(const std::string& text, const LogicalType& target) const {
  if (target.id() != TypeId::kTimestamp && target.id() != TypeId::kTimestampTz && target.id() != TypeId::kTime) {
    return engine::parseValue(text, target, &engine::TimeZone::named(timeZoneSetting()));
  }
  // 'now', 'today', 'tomorrow' and 'yesterday' are the transaction's time.
  std::optional<int64_t> now;
  if (session_ != nullptr && session_->transactionStart) now = session_->transactionStart();
  const engine::TimeZone& zone = engine::TimeZone::named(timeZoneSetting());
  int64_t micros = 0;
  if (target.id() == TypeId::kTime) {
    micros = engine::parseTime(text, now, zone);
  } else if (target.id() == TypeId::kTimestamp) {
    micros = engine::parseTimestamp(text, now, zone);
  } else {
    micros = engine::parseTimestampTz(text, zone, now);
  }
  return Value::ofInt64(target, engine::roundToFractionalDigits(micros, target));
}

ExpressionPtr ExpressionBinder::resolveUnknown(ExpressionPtr expression, int location) {
  return isUnknown(expression) ? coerce(std::move(expression), LogicalType::text(), location) : std::move(expression);
}

ExpressionPtr ExpressionBinder::bindOperator(const pg_query::Node& node) {
  const auto& expr = node.a_expr();
  int location = expr.location();
  if (expr.kind() != pg_query::AEXPR_OP) {
    return bindSpecialOperator(node);
  }
  std::string op = lastName(expr.name());
  if (!expr.has_lexpr()) {
    ExpressionPtr operand = bind(expr.rexpr());
    if (isUnknown(operand)) {
      fail(SqlState::kUndefinedFunction, location, fmt::format("operator is not unique: {} unknown", op));
    }
    if (op == "-" && operand->type().id() == TypeId::kInterval) {
      return makeFunction(ScalarFunction::kIntervalNegate, LogicalType::interval(), std::move(operand));
    }
    // PostgreSQL's prefix operators for abs (@), square root (|/) and cube root (||/), the roots over
    // double precision only.
    if ((op == "@" || op == "|/" || op == "||/") && operand->type().isNumeric()) {
      std::vector<ExpressionPtr> arguments;
      arguments.push_back(op == "@" ? std::move(operand)
                                    : coerce(std::move(operand), LogicalType::doublePrecision(), location));
      return bindMathFunction(op == "@"    ? "abs"
                              : op == "|/" ? "sqrt"
                                           : "cbrt",
                              arguments, location, [] { SHOAL_UNREACHABLE("one numeric argument has a signature"); });
    }
    if ((op != "-" && op != "+" && op != "~") || !operand->type().isNumeric() ||
        (op == "~" && !operand->type().isIntegral())) {
      fail(SqlState::kUndefinedFunction, location,
           fmt::format("operator does not exist: {} {}", op, typeNameWithoutModifiers(operand->type())));
    }
    if (op == "~" && operand->type().isIntegral()) {
      LogicalType type = operand->type();
      return makeFunction(ScalarFunction::kBitNot, type, std::move(operand));
    }
    if (op == "+") return operand;
    LogicalType type = operand->type();
    return makeFunction(ScalarFunction::kNegate, type, std::move(operand));
  }
  ExpressionPtr left = bind(expr.lexpr());
  ExpressionPtr right = bind(expr.rexpr());
  if (op == "+" || op == "-" || op == "*" || op == "/" || op == "%") {
    return bindArithmetic(op[0], std::move(left), std::move(right), location);
  }
  if (op == "^" && (isUnknown(left) || left->type().isNumeric()) && (isUnknown(right) || right->type().isNumeric())) {
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(std::move(left));
    arguments.push_back(std::move(right));
    const std::string types =
        fmt::format("{} ^ {}", isUnknown(arguments[0]) ? "unknown" : arguments[0]->type().toString(),
                    isUnknown(arguments[1]) ? "unknown" : arguments[1]->type().toString());
    return bindMathFunction("power", arguments, location, [&] {
      fail(SqlState::kUndefinedFunction, location, fmt::format("operator does not exist: {}", types));
    });
  }
  if (auto function = comparisonFunction(op)) {
    return bindComparison(*function, std::move(left), std::move(right), location);
  }
  if (op == "||") {
    if (left->type().isArray() || right->type().isArray()) {
      return bindArrayConcat(std::move(left), std::move(right), location);
    }
    return bindConcat(std::move(left), std::move(right), location);
  }
  if (auto regex = regexFunction(op)) {
    return bindPatternMatch(*regex, op, std::move(left), std::move(right), location);
  }
  if (auto json = bindJsonOperator(op, left, right, location)) return std::move(*json);
  if (auto bits = bindBitOperator(op, left, right, location)) return std::move(*bits);
  failNoOperator(op, left->type(), right->type(), location);
}

ExpressionPtr ExpressionBinder::bindPatternMatch(ScalarFunction function, std::string_view op, ExpressionPtr left,
                                                 ExpressionPtr pattern, int location) {
  auto textual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
  if (!textual(left) || !textual(pattern)) failNoOperator(op, left->type(), pattern->type(), location);
  // A CHAR(n) text keeps its type: the match sees its padding, as PostgreSQL's bpchar operators do.
  LogicalType textType = left->type().id() == TypeId::kChar ? left->type() : LogicalType::text();
  return makeFunction(function, LogicalType::boolean(), coerce(std::move(left), textType, location),
                      coerce(std::move(pattern), LogicalType::text(), location));
}

ExpressionPtr ExpressionBinder::bindArithmetic(char op, ExpressionPtr left, ExpressionPtr right, int location) {
  std::string opName(1, op);
  if (isUnknown(left) && isUnknown(right)) {
    fail(SqlState::kUndefinedFunction, location, fmt::format("operator is not unique: unknown {} unknown", op));
  }
  // An untyped side takes the other side's type, as PostgreSQL resolves these operators: a date's partner is a
  // day count, a timestamp's an interval to add or a timestamp to subtract, an interval's a factor or an interval.
  auto partnerType = [op](const LogicalType& type) {
    if (type.id() == TypeId::kDate) return LogicalType::integer();
    if ((type.id() == TypeId::kTimestamp || type.id() == TypeId::kTimestampTz) && op == '+') {
      return LogicalType::interval();
    }
    if (type.id() == TypeId::kTime && (op == '+' || op == '-')) return LogicalType::interval();
    if (type.id() == TypeId::kInterval && (op == '*' || op == '/')) return LogicalType::doublePrecision();
    return type;
  };
  if (isUnknown(left)) left = coerce(std::move(left), partnerType(right->type()), location);
  if (isUnknown(right)) right = coerce(std::move(right), partnerType(left->type()), location);
  if (ExpressionPtr dateTime = bindDateTimeArithmetic(op, left, right, location)) return dateTime;
  LogicalType leftType = left->type();
  LogicalType rightType = right->type();

  if (leftType.id() == TypeId::kDate || rightType.id() == TypeId::kDate) {
    bool leftDate = leftType.id() == TypeId::kDate;
    bool rightDate = rightType.id() == TypeId::kDate;
    // date + smallint goes through PostgreSQL's implicit cast to integer.
    auto widenSmallInt = [&](ExpressionPtr& days) {
      if (days->type().id() == TypeId::kSmallInt) days = coerce(std::move(days), LogicalType::integer(), location);
    };
    widenSmallInt(leftDate ? right : left);
    rightType = right->type();
    if (op == '+' && leftDate != rightDate) {
      ExpressionPtr& days = leftDate ? right : left;
      if (days->type().id() == TypeId::kInteger) {
        return leftDate
                   ? makeFunction(ScalarFunction::kDateAddDays, LogicalType::date(), std::move(left), std::move(right))
                   : makeFunction(ScalarFunction::kDateAddDays, LogicalType::date(), std::move(right), std::move(left));
      }
    }
    if (op == '-' && leftDate && rightType.id() == TypeId::kInteger) {
      return makeFunction(ScalarFunction::kDateSubtractDays, LogicalType::date(), std::move(left), std::move(right));
    }
    if (op == '-' && leftDate && rightDate) {
      return makeFunction(ScalarFunction::kDateDifference, LogicalType::integer(), std::move(left), std::move(right));
    }
    failNoOperator(opName, leftType, rightType, location);
  }
  if (!leftType.isNumeric() || !rightType.isNumeric()) {
    failNoOperator(opName, leftType, rightType, location);
  }
  static constexpr std::pair<char, ScalarFunction> kFunctions[] = {{'+', ScalarFunction::kAdd},
                                                                   {'-', ScalarFunction::kSubtract},
                                                                   {'*', ScalarFunction::kMultiply},
                                                                   {'/', ScalarFunction::kDivide},
                                                                   {'%', ScalarFunction::kModulo}};
  ScalarFunction function = std::find_if(std::begin(kFunctions), std::end(kFunctions), [&](auto& entry) {
                              return entry.first == op;
                            })->second;
  LogicalType common = commonNumericType(leftType, rightType);
  if (common.isReal()) {
    // float4pl and friends, real with real, round the double result to float (22003 when it leaves float's
    // range); real with any other number resolves to the float48 operators, double precision.
    ExpressionPtr wide = makeFunction(function, LogicalType::doublePrecision(),
                                      coerce(std::move(left), LogicalType::doublePrecision(), location),
                                      coerce(std::move(right), LogicalType::doublePrecision(), location));
    if (!(leftType.isReal() && rightType.isReal())) return wide;
    return coerce(std::move(wide), LogicalType::real(), location);
  }
  if (common.id() != TypeId::kDecimal) {
    return makeFunction(function, common, coerce(std::move(left), common, location),
                        coerce(std::move(right), common, location));
  }
  LogicalType leftDecimal = asDecimal(leftType);
  LogicalType rightDecimal = asDecimal(rightType);
  if (op == '*' && leftDecimal.scale() + rightDecimal.scale() > LogicalType::kMaxDecimalPrecision) {
    fail(SqlState::kNumericValueOutOfRange, location, "numeric product has more than 38 fraction digits");
  }
  LogicalType result = decimalResultType(op, leftDecimal, rightDecimal);
  if (op == '+' || op == '-' || op == '%') {
    // Both operands at the result's scale; the kernel adds unscaled values.
    leftDecimal = rightDecimal = result;
  }
  return makeFunction(function, result, coerce(std::move(left), leftDecimal, location),
                      coerce(std::move(right), rightDecimal, location));
}

ExpressionPtr ExpressionBinder::bindComparison(ScalarFunction function, ExpressionPtr left, ExpressionPtr right,
                                               int location) {
  if (isUnknown(left) && isUnknown(right)) {
    left = coerce(std::move(left), LogicalType::text(), location);
    right = coerce(std::move(right), LogicalType::text(), location);
  } else if (isUnknown(left)) {  // (a literal keeps its fractions against a timestamp(0) column)
    left = coerce(std::move(left), right->type().withoutFractionalDigits(), location);
  } else if (isUnknown(right)) {
    right = coerce(std::move(right), left->type().withoutFractionalDigits(), location);
  }
  if (left->type().isJsonb() && !left->type().isArray() && right->type() == left->type()) {
    return bindJsonbComparison(function, std::move(left), std::move(right));
  }
  // A numeric constant that a DECIMAL column's type holds exactly takes that type, so the
  // column is compared as stored instead of being cast on every row (l_discount > 0.05).
  auto absorbConstant = [](ExpressionPtr& constant, const ExpressionPtr& other) {
    if (constant->kind() != ExpressionKind::kConstant || other->type().id() != TypeId::kDecimal) return;
    const Value& value = static_cast<const ConstantExpression&>(*constant).value();
    const LogicalType& type = value.type();
    bool exact = type.isIntegral() || (type.id() == TypeId::kDecimal && type.scale() <= other->type().scale());
    if (value.isNull() || !exact) return;
    try {
      constant = std::make_unique<ConstantExpression>(engine::parseValue(value.toString(), other->type()));
    } catch (const ShoalError&) {
      // Out of the column type's range: keep the wider comparison.
    }
  };
  absorbConstant(right, left);
  absorbConstant(left, right);
  if ((left->type().isArray() || right->type().isArray()) && function != ScalarFunction::kEqual &&
      function != ScalarFunction::kNotEqual) {
    fail(SqlState::kFeatureNotSupported, location,
         fmt::format("ordering comparison of arrays is not supported: {} {} {}", left->type().toString(),
                     engine::scalarFunctionName(function), right->type().toString()));
  }
  auto common = comparisonType(left->type(), right->type());
  if (!common) {
    failNoOperator(engine::scalarFunctionName(function), left->type(), right->type(), location);
  }
  if (common->isArray() && common->elementId() == TypeId::kInterval) {
    fail(SqlState::kFeatureNotSupported, location, uncomparableReason(*common, false)->second);
  }
  return makeFunction(function, LogicalType::boolean(), coerce(std::move(left), *common, location),
                      coerce(std::move(right), *common, location));
}

ExpressionPtr ExpressionBinder::bindConcat(ExpressionPtr left, ExpressionPtr right, int location) {
  // jsonb || jsonb merges values (not built yet); json has no ||. Never their texts joined.
  if (left->type().isJson() || right->type().isJson()) {
    if (left->type().isJsonb() || right->type().isJsonb()) {
      fail(SqlState::kFeatureNotSupported, location, "jsonb || jsonb is not supported yet");
    }
    failNoOperator("||", left->type(), right->type(), location);
  }
  // bytea || bytea joins the bytes (an untyped side is bytea too).
  auto isBytes = [](const ExpressionPtr& e) { return e->type().id() == TypeId::kBytea || isUnknown(e); };
  if ((left->type().id() == TypeId::kBytea || right->type().id() == TypeId::kBytea) && isBytes(left) &&
      isBytes(right)) {
    return makeFunction(ScalarFunction::kConcat, LogicalType::bytea(),
                        coerce(std::move(left), LogicalType::bytea(), location),
                        coerce(std::move(right), LogicalType::bytea(), location));
  }
  auto isTextual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
  if (!isTextual(left) && !isTextual(right)) {
    failNoOperator("||", left->type(), right->type(), location);
  }
  return makeFunction(ScalarFunction::kConcat, LogicalType::text(),
                      coerce(std::move(left), LogicalType::text(), location),
                      coerce(std::move(right), LogicalType::text(), location));
}

ExpressionPtr ExpressionBinder::bindCondition(const pg_query::Node& node, std::string_view clause) {
  ExpressionPtr condition = bind(node);
  const int location = locationOf(node);
  if (isUnknown(condition)) condition = coerce(std::move(condition), LogicalType::boolean(), location);
  if (condition->type().id() != TypeId::kBoolean) {
    fail(SqlState::kDatatypeMismatch, location,
         fmt::format("argument of {} must be type boolean, not type {}", clause, condition->type().toString()));
  }
  return condition;
}

ExpressionPtr ExpressionBinder::bindBoolean(const pg_query::Node& node) {
  const auto& expr = node.bool_expr();
  std::string_view name = expr.boolop() == pg_query::AND_EXPR  ? "AND"
                          : expr.boolop() == pg_query::OR_EXPR ? "OR"
                                                               : "NOT";
  auto bindArgument = [&](const pg_query::Node& argument) {
    ExpressionPtr bound = bind(argument);
    int location = locationOf(argument) >= 0 ? locationOf(argument) : expr.location();
    if (isUnknown(bound)) {
      return coerce(std::move(bound), LogicalType::boolean(), location);
    }
    if (bound->type().id() != TypeId::kBoolean) {
      fail(SqlState::kDatatypeMismatch, location,
           fmt::format("argument of {} must be type boolean, not type {}", name, bound->type().toString()));
    }
    return bound;
  };
  if (expr.boolop() == pg_query::NOT_EXPR) {
    return makeFunction(ScalarFunction::kNot, LogicalType::boolean(), bindArgument(expr.args(0)));
  }
  ScalarFunction function = expr.boolop() == pg_query::AND_EXPR ? ScalarFunction::kAnd : ScalarFunction::kOr;
  std::vector<ExpressionPtr> terms;
  for (const auto& argument : expr.args()) terms.push_back(bindArgument(argument));
  return combineBalanced(function, std::move(terms));
}

ExpressionPtr ExpressionBinder::bindNullTest(const pg_query::Node& node) {
  const auto& test = node.null_test();
  ScalarFunction function =
      test.nulltesttype() == pg_query::IS_NULL ? ScalarFunction::kIsNull : ScalarFunction::kIsNotNull;
  return makeFunction(function, LogicalType::boolean(), bind(test.arg()));
}

ExpressionPtr ExpressionBinder::bindSqlValueFunction(const pg_query::Node& node) {
  const auto& function = node.sqlvalue_function();
  if (function.op() == pg_query::SVFOP_CURRENT_TIME || function.op() == pg_query::SVFOP_CURRENT_TIME_N) {
    fail(SqlState::kFeatureNotSupported, function.location(),
         "time with time zone is not supported yet: use LOCALTIME or CURRENT_TIMESTAMP");
  }
  // LOCALTIME is LOCALTIMESTAMP's time of day.
  const bool localTime = function.op() == pg_query::SVFOP_LOCALTIME || function.op() == pg_query::SVFOP_LOCALTIME_N;
  auto value =
      bindSessionFunction(localTime ? "localtimestamp" : sqlValueFunctionName(function.op()), 0, session_, catalog_);
  if (!value) fail(SqlState::kFeatureNotSupported, function.location(), "CURRENT_DATE and friends need a session");
  const bool withPrecision = function.op() == pg_query::SVFOP_CURRENT_TIMESTAMP_N ||
                             function.op() == pg_query::SVFOP_LOCALTIMESTAMP_N ||
                             function.op() == pg_query::SVFOP_LOCALTIME_N;
  if (withPrecision && value->kind() == ExpressionKind::kConstant) {
    // CURRENT_TIMESTAMP(p): rounded to p fractional digits as PostgreSQL's typmod rounds.
    const Value& instant = static_cast<const ConstantExpression&>(*value).value();
    int64_t rounded = engine::roundTimestampToPrecision(instant.asInt64(), function.typmod());
    value = std::make_unique<ConstantExpression>(
        instant.type().id() == TypeId::kTimestamp ? Value::timestamp(rounded) : Value::timestampTz(rounded));
  }
  if (localTime) return coerce(std::move(value), LogicalType::time(), function.location());
  return value;
}

ExpressionPtr ExpressionBinder::bindComparisonOperator(std::string_view op, ExpressionPtr left, ExpressionPtr right,
                                                       int location) {
  auto function = comparisonFunction(op);
  if (!function) failNoOperator(op, left->type(), right->type(), location);
  return bindComparison(*function, std::move(left), std::move(right), location);
}

LogicalType ExpressionBinder::commonType(const std::vector<LogicalType>& types, std::string_view construct,
                                         int location) const {
  std::optional<LogicalType> common;
  bool sawUnknown = false;
  for (const auto& type : types) {
    if (type.id() == TypeId::kUnknown) {
      sawUnknown = true;
      continue;
    }
    if (!common || *common == type) {
      common = type;
    } else if (common->id() == type.id() && common->withoutFractionalDigits() == type.withoutFractionalDigits()) {
      common = type.withoutFractionalDigits();  // timestamp(0) and timestamp(3) meet as timestamp
    } else if (common->isNumeric() && type.isNumeric()) {
      common = commonNumericType(*common, type);
    } else if (common->isString() && type.isString()) {
      common = LogicalType::text();
    } else {
      fail(SqlState::kDatatypeMismatch, location,
           fmt::format("{} types {} and {} cannot be matched", construct, common->toString(), type.toString()));
    }
  }
  // As PostgreSQL's select_common_typmod: a typmod survives only when every input has it (an untyped literal
  // has none).
  if (common && sawUnknown) return common->withoutFractionalDigits();
  return common.value_or(LogicalType::text());
}

ExpressionPtr ExpressionBinder::bindCase(const pg_query::Node& node) {
  const auto& caseExpr = node.case_expr();
  int location = caseExpr.location();
  ExpressionPtr subject = caseExpr.has_arg() ? bind(caseExpr.arg()) : nullptr;
  std::vector<ExpressionPtr> conditions;
  std::vector<ExpressionPtr> values;
  for (const auto& whenNode : caseExpr.args()) {
    const auto& when = whenNode.case_when();
    ExpressionPtr condition = bind(when.expr());
    int whenLocation = locationOf(when.expr()) >= 0 ? locationOf(when.expr()) : when.location();
    if (subject) {
      condition = bindComparison(ScalarFunction::kEqual, copyExpression(*subject), std::move(condition), whenLocation);
    } else {
      if (isUnknown(condition)) condition = coerce(std::move(condition), LogicalType::boolean(), whenLocation);
      if (condition->type().id() != TypeId::kBoolean) {
        fail(SqlState::kDatatypeMismatch, whenLocation,
             fmt::format("argument of CASE/WHEN must be type boolean, not type {}", condition->type().toString()));
      }
    }
    conditions.push_back(std::move(condition));
    values.push_back(bind(when.result()));
  }
  values.push_back(caseExpr.has_defresult()
                       ? bind(caseExpr.defresult())
                       : std::make_unique<ConstantExpression>(Value::null(LogicalType::unknown())));
  std::vector<LogicalType> types;
  for (const auto& value : values) types.push_back(value->type());
  LogicalType type = commonType(types, "CASE", location);
  std::vector<ExpressionPtr> arguments;
  for (size_t i = 0; i < conditions.size(); ++i) {
    arguments.push_back(std::move(conditions[i]));
    arguments.push_back(coerce(std::move(values[i]), type, location));
  }
  arguments.push_back(coerce(std::move(values.back()), type, location));
  return functionOf(ScalarFunction::kCase, type, std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindSubLink(const pg_query::Node& node) {
  if (!subqueryBinder_) {
    fail(SqlState::kFeatureNotSupported, node.sub_link().location(),
         fmt::format("subqueries are not supported in {}", clause_));
  }
  if (insideAggregate_) {
    fail(SqlState::kFeatureNotSupported, node.sub_link().location(),
         "subqueries inside aggregate arguments are not supported yet");
  }
  return subqueryBinder_(node.sub_link(), *this);
}

}  // namespace shoal::sql
