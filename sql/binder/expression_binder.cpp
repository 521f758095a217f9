#include "sql/binder/expression_binder.h"

#include <algorithm>
#include <map>

#include "engine/expression/cast.h"
#include "engine/types/text_format.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/type_coercion.h"
#include "sql/parser/parsed_script.h"

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

namespace {

std::string lastName(const google::protobuf::RepeatedPtrField<pg_query::Node>& names) {
  return names.empty() ? std::string() : names.rbegin()->string().sval();
}

}  // namespace

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
    default:
      return -1;
  }
}

namespace {

std::unique_ptr<FunctionExpression> makeFunction(ScalarFunction function, LogicalType resultType, ExpressionPtr a,
                                                 ExpressionPtr b = nullptr) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(a));
  if (b) arguments.push_back(std::move(b));
  return std::make_unique<FunctionExpression>(function, std::move(arguments), resultType);
}

bool isUnknown(const ExpressionPtr& expression) {
  return expression->type().id() == TypeId::kUnknown;
}

}  // namespace

ExpressionBinder::ExpressionBinder(std::string_view queryText, const std::vector<ColumnDescription>& columns,
                                   std::vector<LogicalType>& parameterTypes)
    : queryText_(queryText), columns_(columns), parameterTypes_(parameterTypes) {}

void ExpressionBinder::fail(std::string_view sqlState, int location, std::string message) const {
  int position = characterPosition(queryText_, location);
  if (position > 0) {
    throw ShoalError(Status(sqlState, std::move(message), position));
  }
  throw ShoalError(Status(sqlState, std::move(message)));
}

void ExpressionBinder::failNoOperator(std::string_view op, const LogicalType& left, const LogicalType& right,
                                      int location) const {
  int position = characterPosition(queryText_, location);
  throw ShoalError(
      Status(SqlState::kUndefinedFunction,
             fmt::format("operator does not exist: {} {} {}", left.toString(), op, right.toString()),
             position > 0 ? std::optional<int>(position) : std::nullopt)
          .withHint("No operator matches the given name and argument types. You might need to add explicit type "
                    "casts."));
}

ExpressionPtr ExpressionBinder::bind(const pg_query::Node& node) {
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
    default: {
      const auto* field = node.GetDescriptor()->FindFieldByNumber(node.node_case());
      fail(SqlState::kFeatureNotSupported, locationOf(node),
           fmt::format("expression {} is not supported yet", field ? field->message_type()->name() : "?"));
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
  std::string name = fields.rbegin()->string().sval();
  std::string qualified;
  for (const auto& field : fields) {
    qualified += (qualified.empty() ? "" : ".") + field.string().sval();
  }
  for (size_t index = 0; index < columns_.size(); ++index) {
    if (columns_[index].name == name) {
      if (!insideAggregate_ && firstBareColumnLocation_ < 0) {
        firstBareColumnLocation_ = ref.location();
        firstBareColumnName_ = qualified;
      }
      return std::make_unique<engine::ColumnRefExpression>(index, columns_[index].type, name);
    }
  }
  fail(SqlState::kUndefinedColumn, ref.location(), fmt::format("column \"{}\" does not exist", qualified));
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
        return std::make_unique<ConstantExpression>(engine::parseValue(literal.asString(), target));
      } catch (ShoalError& error) {
        fail(error.status().sqlState(), location, error.status().message());
      }
    }
  }
  if (!engine::isCastSupported(expression->type(), target)) {
    fail(SqlState::kCannotCoerce, location,
         fmt::format("cannot cast type {} to {}", expression->type().toString(), target.toString()));
  }
  return std::make_unique<CastExpression>(std::move(expression), target);
}

ExpressionPtr ExpressionBinder::resolveUnknown(ExpressionPtr expression, int location) {
  return isUnknown(expression) ? coerce(std::move(expression), LogicalType::text(), location) : std::move(expression);
}

ExpressionPtr ExpressionBinder::bindOperator(const pg_query::Node& node) {
  const auto& expr = node.a_expr();
  int location = expr.location();
  if (expr.kind() != pg_query::AEXPR_OP) {
    fail(SqlState::kFeatureNotSupported, location,
         fmt::format("{} expressions are not supported yet", pg_query::A_Expr_Kind_Name(expr.kind())));
  }
  std::string op = lastName(expr.name());
  if (!expr.has_lexpr()) {
    ExpressionPtr operand = bind(expr.rexpr());
    if (isUnknown(operand)) {
      fail(SqlState::kUndefinedFunction, location, fmt::format("operator is not unique: {} unknown", op));
    }
    if ((op != "-" && op != "+") || !operand->type().isNumeric()) {
      fail(SqlState::kUndefinedFunction, location,
           fmt::format("operator does not exist: {} {}", op, operand->type().toString()));
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
  static const std::pair<std::string_view, ScalarFunction> kComparisons[] = {
      {"=", ScalarFunction::kEqual},        {"<>", ScalarFunction::kNotEqual},  {"!=", ScalarFunction::kNotEqual},
      {"<", ScalarFunction::kLess},         {"<=", ScalarFunction::kLessEqual}, {">", ScalarFunction::kGreater},
      {">=", ScalarFunction::kGreaterEqual}};
  for (const auto& [name, function] : kComparisons) {
    if (op == name) {
      return bindComparison(function, std::move(left), std::move(right), location);
    }
  }
  if (op == "||") {
    return bindConcat(std::move(left), std::move(right), location);
  }
  failNoOperator(op, left->type(), right->type(), location);
}

ExpressionPtr ExpressionBinder::bindArithmetic(char op, ExpressionPtr left, ExpressionPtr right, int location) {
  std::string opName(1, op);
  if (isUnknown(left) && isUnknown(right)) {
    fail(SqlState::kUndefinedFunction, location, fmt::format("operator is not unique: unknown {} unknown", op));
  }
  // An untyped side takes the other side's type (a date's partner is a day count).
  auto partnerType = [](const LogicalType& type) { return type.id() == TypeId::kDate ? LogicalType::integer() : type; };
  if (isUnknown(left)) left = coerce(std::move(left), partnerType(right->type()), location);
  if (isUnknown(right)) right = coerce(std::move(right), partnerType(left->type()), location);
  LogicalType leftType = left->type();
  LogicalType rightType = right->type();

  if (leftType.id() == TypeId::kDate || rightType.id() == TypeId::kDate) {
    bool leftDate = leftType.id() == TypeId::kDate;
    bool rightDate = rightType.id() == TypeId::kDate;
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
  } else if (isUnknown(left)) {
    left = coerce(std::move(left), right->type(), location);
  } else if (isUnknown(right)) {
    right = coerce(std::move(right), left->type(), location);
  }
  auto common = comparisonType(left->type(), right->type());
  if (!common) {
    failNoOperator(engine::scalarFunctionName(function), left->type(), right->type(), location);
  }
  return makeFunction(function, LogicalType::boolean(), coerce(std::move(left), *common, location),
                      coerce(std::move(right), *common, location));
}

ExpressionPtr ExpressionBinder::bindConcat(ExpressionPtr left, ExpressionPtr right, int location) {
  auto isTextual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
  if (!isTextual(left) && !isTextual(right)) {
    failNoOperator("||", left->type(), right->type(), location);
  }
  return makeFunction(ScalarFunction::kConcat, LogicalType::text(),
                      coerce(std::move(left), LogicalType::text(), location),
                      coerce(std::move(right), LogicalType::text(), location));
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
  ExpressionPtr result = bindArgument(expr.args(0));
  for (int i = 1; i < expr.args_size(); ++i) {
    result = makeFunction(function, LogicalType::boolean(), std::move(result), bindArgument(expr.args(i)));
  }
  return result;
}

ExpressionPtr ExpressionBinder::bindNullTest(const pg_query::Node& node) {
  const auto& test = node.null_test();
  ScalarFunction function =
      test.nulltesttype() == pg_query::IS_NULL ? ScalarFunction::kIsNull : ScalarFunction::kIsNotNull;
  return makeFunction(function, LogicalType::boolean(), bind(test.arg()));
}

LogicalType ExpressionBinder::typeFromName(const pg_query::TypeName& typeName) const {
  std::string name = lastName(typeName.names());
  std::vector<int> modifiers;
  for (const auto& modifier : typeName.typmods()) {
    if (!modifier.has_a_const() || !modifier.a_const().has_ival()) {
      fail(SqlState::kSyntaxError, typeName.location(), "type modifiers must be simple constants");
    }
    modifiers.push_back(modifier.a_const().ival().ival());
  }
  if (!typeName.array_bounds().empty()) {
    fail(SqlState::kFeatureNotSupported, typeName.location(), "array types are not supported");
  }
  try {
    if (name == "int4" || name == "int" || name == "integer" || name == "int2" || name == "smallint") {
      return LogicalType::integer();
    }
    if (name == "int8" || name == "bigint") return LogicalType::bigInt();
    if (name == "float8" || name == "float4" || name == "real" || name == "float") {
      return LogicalType::doublePrecision();
    }
    if (name == "numeric" || name == "decimal") {
      if (modifiers.empty()) return LogicalType::unknown();  // unconstrained: decided by the caller
      return LogicalType::decimal(modifiers[0], modifiers.size() > 1 ? modifiers[1] : 0);
    }
    if (name == "text") return LogicalType::text();
    if (name == "varchar") {
      if (!modifiers.empty() && modifiers[0] < 1) {
        fail(SqlState::kInvalidParameterValue, typeName.location(), "length for type varchar must be at least 1");
      }
      return LogicalType::varchar(modifiers.empty() ? 0 : modifiers[0]);
    }
    if (name == "bpchar" || name == "char" || name == "character") {
      int length = modifiers.empty() ? 1 : modifiers[0];
      if (length < 1) {
        fail(SqlState::kInvalidParameterValue, typeName.location(), "length for type char must be at least 1");
      }
      return LogicalType::character(static_cast<uint32_t>(length));
    }
    if (name == "date") return LogicalType::date();
    if (name == "bool" || name == "boolean") return LogicalType::boolean();
  } catch (ShoalError& error) {
    fail(error.status().sqlState(), typeName.location(), error.status().message());
  }
  fail(SqlState::kUndefinedObject, typeName.location(), fmt::format("type \"{}\" does not exist", name));
}

ExpressionPtr ExpressionBinder::bindTypeCast(const pg_query::Node& node) {
  const auto& cast = node.type_cast();
  LogicalType target = typeFromName(cast.type_name());
  if (target.id() == TypeId::kDouble && cast.arg().has_a_const() && cast.arg().a_const().has_fval()) {
    // 1.5e300::float8 reads the literal as a double directly: it may not fit a 38-digit numeric.
    auto literal = std::make_unique<ConstantExpression>(Value::unknownLiteral(cast.arg().a_const().fval().fval()));
    return coerce(std::move(literal), target, cast.arg().a_const().location());
  }
  ExpressionPtr child = bind(cast.arg());
  if (target.id() == TypeId::kUnknown) {
    // Unconstrained NUMERIC keeps the exact digits of what it converts.
    if (isUnknown(child) && child->kind() == ExpressionKind::kConstant &&
        !static_cast<const ConstantExpression&>(*child).value().isNull()) {
      try {
        Value literal = engine::parseNumericLiteral(static_cast<const ConstantExpression&>(*child).value().asString());
        target = literal.type().id() == TypeId::kDecimal ? literal.type() : asDecimal(literal.type());
      } catch (ShoalError& error) {
        fail(error.status().sqlState(), cast.location(), error.status().message());
      }
    } else if (child->type().isIntegral() || child->type().id() == TypeId::kDecimal) {
      target = asDecimal(child->type());
    } else {
      constexpr int kDefaultNumericScale = 16;
      target = LogicalType::decimal(LogicalType::kMaxDecimalPrecision, kDefaultNumericScale);
    }
  }
  if (target.isString() && target.maxLength() > 0) {
    // An explicit cast to VARCHAR(n) truncates, even for a literal.
    child = coerce(std::move(child), LogicalType::text(), cast.location());
  }
  return coerce(std::move(child), target, cast.location());
}

ExpressionPtr ExpressionBinder::bindFunctionCall(const pg_query::Node& node) {
  const auto& call = node.func_call();
  std::string name = lastName(call.funcname());
  static const std::map<std::string, engine::AggregateFunction, std::less<>> kAggregates = {
      {"count", engine::AggregateFunction::kCount},
      {"sum", engine::AggregateFunction::kSum},
      {"avg", engine::AggregateFunction::kAvg},
      {"min", engine::AggregateFunction::kMin},
      {"max", engine::AggregateFunction::kMax}};
  if (auto aggregate = kAggregates.find(name); aggregate != kAggregates.end() && !call.has_over()) {
    return bindAggregate(node, aggregate->second);
  }
  if (call.agg_star() || call.agg_distinct() || call.has_over() || call.has_agg_filter()) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         fmt::format("aggregate and window functions are not supported yet: {}", name));
  }
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) {
    arguments.push_back(bind(argument));
  }
  auto signature = [&] {
    std::string types;
    for (const auto& argument : arguments) {
      types += (types.empty() ? "" : ", ") + argument->type().toString();
    }
    return fmt::format("{}({})", name, types);
  };
  auto undefined = [&]() {
    int position = characterPosition(queryText_, call.location());
    throw ShoalError(Status(SqlState::kUndefinedFunction, fmt::format("function {} does not exist", signature()),
                            position > 0 ? std::optional<int>(position) : std::nullopt)
                         .withHint("No function matches the given name and argument types. You might need to add "
                                   "explicit type casts."));
  };
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

ExpressionPtr ExpressionBinder::bindAggregate(const pg_query::Node& node, engine::AggregateFunction function) {
  const auto& call = node.func_call();
  std::string name(engine::aggregateFunctionName(function));
  if (insideAggregate_) {
    fail(SqlState::kGroupingError, call.location(), "aggregate function calls cannot be nested");
  }
  if (aggregates_ == nullptr) {
    fail(SqlState::kGroupingError, call.location(), fmt::format("aggregate functions are not allowed in {}", clause_));
  }
  if (call.agg_distinct()) {
    fail(SqlState::kFeatureNotSupported, call.location(), fmt::format("{}(DISTINCT ...) is not supported yet", name));
  }
  if (call.has_agg_filter() || call.agg_order_size() > 0) {
    fail(SqlState::kFeatureNotSupported, call.location(), "FILTER and ORDER BY in aggregates are not supported yet");
  }
  BoundAggregate aggregate;
  if (call.agg_star()) {
    if (function != engine::AggregateFunction::kCount) {
      fail(SqlState::kSyntaxError, call.location(), fmt::format("{}(*) is not valid; only count(*) is", name));
    }
    aggregate.function = engine::AggregateFunction::kCountStar;
  } else {
    if (call.args_size() != 1) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function {} takes exactly one argument, not {}", name, call.args_size()));
    }
    insideAggregate_ = true;
    ExpressionPtr argument = resolveUnknown(bind(call.args(0)), call.location());
    insideAggregate_ = false;
    const LogicalType& type = argument->type();
    bool numeric = type.isNumeric();
    if ((function == engine::AggregateFunction::kSum || function == engine::AggregateFunction::kAvg) && !numeric) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function {}({}) does not exist", name, type.toString()));
    }
    aggregate.function = function;
    aggregate.argument = std::move(argument);
  }
  LogicalType argumentType = aggregate.argument ? aggregate.argument->type() : LogicalType::bigInt();
  aggregate.resultType = engine::aggregateResultType(aggregate.function, argumentType);
  size_t index = aggregates_->size();
  LogicalType resultType = aggregate.resultType;
  aggregates_->push_back(std::move(aggregate));
  return std::make_unique<engine::ColumnRefExpression>(index, resultType, name);
}

std::string ExpressionBinder::columnNameOf(const pg_query::Node& node) {
  constexpr std::string_view kNoName = "?column?";
  switch (node.node_case()) {
    case pg_query::Node::kColumnRef: {
      const auto& fields = node.column_ref().fields();
      return !fields.empty() && fields.rbegin()->has_string() ? fields.rbegin()->string().sval() : std::string(kNoName);
    }
    case pg_query::Node::kFuncCall:
      return lastName(node.func_call().funcname());
    case pg_query::Node::kTypeCast: {
      std::string inner = columnNameOf(node.type_cast().arg());
      return inner != kNoName ? inner : lastName(node.type_cast().type_name().names());
    }
    case pg_query::Node::kAConst:
      return node.a_const().has_boolval() ? "bool" : std::string(kNoName);
    default:
      return std::string(kNoName);
  }
}

}  // namespace shoal::sql
