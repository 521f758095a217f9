#include "sql/binder/expression_binder.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/stack_depth.h"
#include "engine/expression/cast.h"
#include "engine/types/text_format.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/catalog_functions.h"
#include "sql/binder/description_functions.h"
#include "sql/binder/privilege_functions.h"
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
    case pg_query::Node::kCaseExpr:
      return node.case_expr().location();
    case pg_query::Node::kCoalesceExpr:
      return node.coalesce_expr().location();
    case pg_query::Node::kSubLink:
      return node.sub_link().location();
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

/// The keyword a SQLValueFunction was written as (current_user, ...), which also names its output column.
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

ExpressionPtr makeFunctionOf(ScalarFunction function, LogicalType resultType, std::vector<ExpressionPtr> arguments) {
  return std::make_unique<FunctionExpression>(function, std::move(arguments), resultType);
}

}  // namespace

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
    default: {
      static const std::map<std::string, std::string, std::less<>> kNames = {
          {"MinMaxExpr", "GREATEST and LEAST are"},  {"RowExpr", "row constructors are"},
          {"GroupingFunc", "GROUPING() is"},         {"SQLValueFunction", "CURRENT_DATE and friends are"},
          {"BooleanTest", "IS TRUE / IS FALSE are"}, {"XmlExpr", "XML functions are"}};
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
    return bindSpecialOperator(node);
  }
  if (ExpressionPtr interval = bindIntervalArithmetic(node)) {
    return interval;
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

LogicalType ExpressionBinder::typeFromName(const pg_query::TypeName& typeName) const {
  std::string name = lastName(typeName.names());
  std::vector<int> modifiers;
  for (const auto& modifier : typeName.typmods()) {
    if (!modifier.has_a_const() || !modifier.a_const().has_ival()) {
      fail(SqlState::kSyntaxError, typeName.location(), "type modifiers must be simple constants");
    }
    modifiers.push_back(modifier.a_const().ival().ival());
  }
  if (auto array = arrayTypeFromName(name, typeName)) return *array;
  try {
    if (name == "int2" || name == "smallint") {
      fail(SqlState::kFeatureNotSupported, typeName.location(), "type smallint is not supported; use integer");
    }
    if (name == "int4" || name == "int" || name == "integer") {
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
    if (name == "text" || name == "name") return LogicalType::text();  // name: an identifier, as text here
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
    if (name == "interval") {
      fail(SqlState::kFeatureNotSupported, typeName.location(),
           "type interval is supported only in date arithmetic (date + interval '3' month)");
    }
    if (name == "bool" || name == "boolean") return LogicalType::boolean();
  } catch (ShoalError& error) {
    fail(error.status().sqlState(), typeName.location(), error.status().message());
  }
  fail(SqlState::kUndefinedObject, typeName.location(), fmt::format("type \"{}\" does not exist", name));
}

ExpressionPtr ExpressionBinder::bindTypeCast(const pg_query::Node& node) {
  const auto& cast = node.type_cast();
  if (auto type = objectIdentifierCast(node)) return bindObjectIdentifierCast(cast, *type);
  LogicalType target = typeFromName(cast.type_name());
  if (target.isString()) {
    // A reg* value cast to text is its name (c.oid::regclass::text).
    auto inner = objectIdentifierCast(cast.arg());
    if (inner && catalog_ != nullptr) {
      return coerce(objectIdentifierName(bind(cast.arg()), *inner, *catalog_), target, cast.location());
    }
  }
  if (target.id() == TypeId::kDouble && cast.arg().has_a_const() && cast.arg().a_const().has_fval()) {
    // 1.5e300::float8 reads the literal as a double directly: it may not fit a 38-digit numeric.
    auto literal = std::make_unique<ConstantExpression>(Value::unknownLiteral(cast.arg().a_const().fval().fval()));
    return coerce(std::move(literal), target, cast.arg().a_const().location());
  }
  if (target.isArray() && cast.arg().has_a_array_expr()) {
    return bindArrayConstructor(cast.arg().a_array_expr(), target.elementType());
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
  if (call.has_over()) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         fmt::format("window functions are not supported yet: {}() OVER (...)", name));
  }
  if (auto aggregate = kAggregates.find(name); aggregate != kAggregates.end()) {
    return bindAggregate(node, aggregate->second);
  }
  if (auto value = bindSessionFunction(name, static_cast<size_t>(call.args_size()), session_)) return value;
  if (name == "extract" || name == "date_part") {
    return bindExtract(node);
  }
  if (name == "substring" || name == "substr") {
    return bindSubstring(node);
  }
  if (call.agg_star() || call.agg_distinct() || call.has_agg_filter()) {
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function {} is not an aggregate", name));
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
  auto textual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
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
    return bindCurrentSchemas(std::move(arguments[0]));
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
      if (!arguments[i]->type().isIntegral() && !isUnknown(arguments[i])) undefined();
      arguments[i] = coerce(std::move(arguments[i]), (*signature)[i], call.location());
    }
    if (catalog_ == nullptr) {
      fail(SqlState::kFeatureNotSupported, call.location(), fmt::format("{}() is not supported here", name));
    }
    return bindCatalogFunction(name, std::move(arguments), *catalog_);
  }
  if (auto array = bindArrayFunction(name, arguments, call.location())) return std::move(*array);
  if (name == "quote_ident" || name == "quote_literal" || name == "quote_nullable" || name == "format") {
    // quote_ident takes text; the others any value, as its text (format's first argument is text).
    if (arguments.empty() || (name != "format" && arguments.size() != 1)) undefined();
    if ((name == "quote_ident" || name == "format") && !textual(arguments[0])) undefined();
    for (auto& argument : arguments) argument = coerce(std::move(argument), LogicalType::text(), call.location());
    const auto function = name == "quote_ident"     ? ScalarFunction::kQuoteIdent
                          : name == "quote_literal" ? ScalarFunction::kQuoteLiteral
                          : name == "format"        ? ScalarFunction::kFormat
                                                    : ScalarFunction::kQuoteNullable;
    return makeFunctionOf(function, LogicalType::text(), std::move(arguments));
  }
  if (name == "replace") {
    if (arguments.size() != 3 || !std::all_of(arguments.begin(), arguments.end(), textual)) undefined();
    for (auto& argument : arguments) argument = coerce(std::move(argument), LogicalType::text(), call.location());
    return makeFunctionOf(ScalarFunction::kReplace, LogicalType::text(), std::move(arguments));
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

ExpressionPtr ExpressionBinder::bindCollate(const pg_query::Node& node) {
  const auto& collate = node.collate_clause();
  std::string collation = lastName(collate.collname());
  ExpressionPtr argument = resolveUnknown(bind(collate.arg()), collate.location());
  if (!argument->type().isString()) {
    fail(SqlState::kDatatypeMismatch, collate.location(),
         fmt::format("collations are not supported by type {}", argument->type().toString()));
  }
  // Text compares byte-wise everywhere in Shoal: the C collation, which "default", "C", "POSIX" and "ucs_basic"
  // (C for UTF8) name. psql's \d spells COLLATE pg_catalog.default in every pattern match.
  if (collation != "default" && collation != "C" && collation != "POSIX" && collation != "ucs_basic") {
    fail(SqlState::kFeatureNotSupported, collate.location(),
         fmt::format("collation \"{}\" is not supported: Shoal compares text byte by byte (collation \"C\")",
                     collation));
  }
  return argument;
}

ExpressionPtr ExpressionBinder::bindSqlValueFunction(const pg_query::Node& node) {
  const auto& function = node.sqlvalue_function();
  if (auto value = bindSessionFunction(sqlValueFunctionName(function.op()), 0, session_)) return value;
  fail(SqlState::kFeatureNotSupported, function.location(), "CURRENT_DATE and friends are not supported yet");
}

ExpressionPtr ExpressionBinder::bindAggregate(const pg_query::Node& node, engine::AggregateFunction function) {
  const auto& call = node.func_call();
  std::string name(engine::aggregateFunctionName(function));
  if (insideAggregate_) {
    fail(SqlState::kGroupingError, call.location(), "aggregate function calls cannot be nested");
  }
  if (!aggregateSink_) {
    fail(SqlState::kGroupingError, call.location(), fmt::format("aggregate functions are not allowed in {}", clause_));
  }
  if (call.has_agg_filter() || call.agg_order_size() > 0) {
    fail(SqlState::kFeatureNotSupported, call.location(), "FILTER and ORDER BY in aggregates are not supported yet");
  }
  AggregateCall aggregate;
  aggregate.name = name;
  aggregate.distinct = call.agg_distinct();
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
  return aggregateSink_(std::move(aggregate));
}

namespace {

/// PostgreSQL's FigureColnameInternal: a name and how strongly it names the column (0: none; 1: a type's
/// name, which an outer cast's replaces; 2: a column's or function's).
int columnNameWithStrength(const pg_query::Node& node, std::string& name) {
  switch (node.node_case()) {
    case pg_query::Node::kColumnRef: {
      const auto& fields = node.column_ref().fields();
      if (fields.empty() || !fields.rbegin()->has_string()) return 0;
      name = fields.rbegin()->string().sval();
      return 2;
    }
    case pg_query::Node::kFuncCall:
      name = lastName(node.func_call().funcname());
      return 2;
    case pg_query::Node::kTypeCast: {
      const int strength = columnNameWithStrength(node.type_cast().arg(), name);
      if (strength > 1) return strength;
      name = lastName(node.type_cast().type_name().names());
      return 1;
    }
    case pg_query::Node::kAConst:  // true and false are casts to bool in PostgreSQL's grammar
      if (!node.a_const().has_boolval()) return 0;
      name = "bool";
      return 1;
    case pg_query::Node::kSqlvalueFunction:
      name = std::string(sqlValueFunctionName(node.sqlvalue_function().op()));
      return 2;
    case pg_query::Node::kAArrayExpr:
      name = "array";
      return 2;
    case pg_query::Node::kAIndirection:  // x[i] is named as x is
      return columnNameWithStrength(node.a_indirection().arg(), name);
    default:
      return 0;
  }
}

}  // namespace

std::string ExpressionBinder::columnNameOf(const pg_query::Node& node) {
  std::string name;
  return columnNameWithStrength(node, name) > 0 ? name : std::string("?column?");
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
  for (const auto& type : types) {
    if (type.id() == TypeId::kUnknown) continue;
    if (!common || *common == type) {
      common = type;
    } else if (common->isNumeric() && type.isNumeric()) {
      common = commonNumericType(*common, type);
    } else if (common->isString() && type.isString()) {
      common = LogicalType::text();
    } else {
      fail(SqlState::kDatatypeMismatch, location,
           fmt::format("{} types {} and {} cannot be matched", construct, common->toString(), type.toString()));
    }
  }
  return common.value_or(LogicalType::text());
}

std::optional<ExpressionPtr> ExpressionBinder::bindArrayComparison(const pg_query::A_Expr& expr) {
  // x op ANY (ARRAY[a, b]) is x op a OR x op b; ALL joins them with AND: the same NULL semantics.
  const pg_query::Node* array = &expr.rexpr();
  std::optional<pg_query::TypeName> elementType;
  if (array->has_type_cast() && array->type_cast().arg().has_a_array_expr()) {  // ARRAY[...]::varchar[]
    elementType = array->type_cast().type_name();
    elementType->clear_array_bounds();
    array = &array->type_cast().arg();
  }
  if (!array->has_a_array_expr() || array->a_array_expr().elements().empty()) return std::nullopt;
  const std::string op = lastName(expr.name());
  if (!comparisonFunction(op) && op != "~~" && op != "!~~") return std::nullopt;
  ExpressionPtr left = bind(expr.lexpr());
  std::vector<ExpressionPtr> terms;
  for (const auto& element : array->a_array_expr().elements()) {
    ExpressionPtr right = bind(element);
    if (elementType) right = coerce(std::move(right), typeFromName(*elementType), expr.location());
    if (op == "~~" || op == "!~~") {
      terms.push_back(bindPatternMatch(op == "~~" ? ScalarFunction::kLike : ScalarFunction::kNotLike, op,
                                       copyExpression(*left), std::move(right), expr.location()));
    } else {
      terms.push_back(bindComparisonOperator(op, copyExpression(*left), std::move(right), expr.location()));
    }
  }
  return combineBalanced(expr.kind() == pg_query::AEXPR_OP_ANY ? ScalarFunction::kOr : ScalarFunction::kAnd,
                         std::move(terms));
}

ExpressionPtr ExpressionBinder::bindSpecialOperator(const pg_query::Node& node) {
  const auto& expr = node.a_expr();
  int location = expr.location();
  std::string op = lastName(expr.name());
  auto listItems = [&](const pg_query::Node& list) {
    std::vector<const pg_query::Node*> items;
    if (list.has_list()) {
      for (const auto& item : list.list().items()) items.push_back(&item);
    } else {
      items.push_back(&list);
    }
    return items;
  };
  switch (expr.kind()) {
    case pg_query::AEXPR_IN: {
      // x IN (a, b) is x = a OR x = b; NOT IN is x <> a AND x <> b: the same NULL semantics.
      bool negated = op == "<>";
      ExpressionPtr left = bind(expr.lexpr());
      std::vector<ExpressionPtr> terms;
      for (const auto* item : listItems(expr.rexpr())) {
        terms.push_back(bindComparison(negated ? ScalarFunction::kNotEqual : ScalarFunction::kEqual,
                                       copyExpression(*left), bind(*item), location));
      }
      return combineBalanced(negated ? ScalarFunction::kAnd : ScalarFunction::kOr, std::move(terms));
    }
    case pg_query::AEXPR_LIKE: {
      ExpressionPtr pattern;
      if (expr.rexpr().has_func_call() && lastName(expr.rexpr().func_call().funcname()) == "like_escape" &&
          expr.rexpr().func_call().args_size() == 2) {
        // x LIKE p ESCAPE e: the pattern rewritten for LIKE's own escape character, '\'.
        std::vector<ExpressionPtr> arguments;
        for (const auto& argument : expr.rexpr().func_call().args()) {
          ExpressionPtr bound = resolveUnknown(bind(argument), location);
          if (!bound->type().isString()) {
            fail(SqlState::kUndefinedFunction, location,
                 fmt::format("function like_escape({}) does not exist", bound->type().toString()));
          }
          arguments.push_back(std::move(bound));
        }
        pattern = makeFunctionOf(ScalarFunction::kLikeEscape, LogicalType::text(), std::move(arguments));
      } else {
        pattern = bind(expr.rexpr());
      }
      return bindPatternMatch(op == "!~~" ? ScalarFunction::kNotLike : ScalarFunction::kLike, op, bind(expr.lexpr()),
                              std::move(pattern), location);
    }
    case pg_query::AEXPR_BETWEEN:
    case pg_query::AEXPR_NOT_BETWEEN: {
      bool negated = expr.kind() == pg_query::AEXPR_NOT_BETWEEN;
      auto bounds = listItems(expr.rexpr());
      if (bounds.size() != 2) fail(SqlState::kSyntaxError, location, "BETWEEN needs two bounds");
      ExpressionPtr value = bind(expr.lexpr());
      std::vector<ExpressionPtr> terms;
      terms.push_back(bindComparison(negated ? ScalarFunction::kLess : ScalarFunction::kGreaterEqual,
                                     copyExpression(*value), bind(*bounds[0]), location));
      terms.push_back(bindComparison(negated ? ScalarFunction::kGreater : ScalarFunction::kLessEqual, std::move(value),
                                     bind(*bounds[1]), location));
      return combineBalanced(negated ? ScalarFunction::kOr : ScalarFunction::kAnd, std::move(terms));
    }
    case pg_query::AEXPR_NULLIF: {
      // NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END.
      ExpressionPtr left = bind(expr.lexpr());
      ExpressionPtr right = bind(expr.rexpr());
      LogicalType type = isUnknown(left) ? LogicalType::text() : left->type();
      left = coerce(std::move(left), type, location);
      std::vector<ExpressionPtr> arguments;
      arguments.push_back(bindComparison(ScalarFunction::kEqual, copyExpression(*left), std::move(right), location));
      arguments.push_back(std::make_unique<ConstantExpression>(Value::null(type)));
      arguments.push_back(std::move(left));
      return makeFunctionOf(ScalarFunction::kCase, type, std::move(arguments));
    }
    case pg_query::AEXPR_DISTINCT:
    case pg_query::AEXPR_NOT_DISTINCT: {
      // a IS NOT DISTINCT FROM b: CASE WHEN a IS NULL THEN b IS NULL WHEN b IS NULL THEN FALSE ELSE a = b END.
      ExpressionPtr left = bind(expr.lexpr());
      ExpressionPtr right = bind(expr.rexpr());
      ExpressionPtr equal =
          bindComparison(ScalarFunction::kEqual, copyExpression(*left), copyExpression(*right), location);
      std::vector<ExpressionPtr> arguments;
      arguments.push_back(makeFunction(ScalarFunction::kIsNull, LogicalType::boolean(), copyExpression(*left)));
      arguments.push_back(makeFunction(ScalarFunction::kIsNull, LogicalType::boolean(), copyExpression(*right)));
      arguments.push_back(makeFunction(ScalarFunction::kIsNull, LogicalType::boolean(), std::move(right)));
      arguments.push_back(std::make_unique<ConstantExpression>(Value::boolean(false)));
      arguments.push_back(std::move(equal));
      ExpressionPtr notDistinct = makeFunctionOf(ScalarFunction::kCase, LogicalType::boolean(), std::move(arguments));
      if (expr.kind() == pg_query::AEXPR_NOT_DISTINCT) return notDistinct;
      return makeFunction(ScalarFunction::kNot, LogicalType::boolean(), std::move(notDistinct));
    }
    case pg_query::AEXPR_OP_ANY:
    case pg_query::AEXPR_OP_ALL:
      if (auto terms = bindArrayComparison(expr)) return std::move(*terms);
      if (auto comparison = comparisonFunction(op)) {
        return bindQuantifiedComparison(*comparison, op, expr.kind() == pg_query::AEXPR_OP_ALL, expr);
      }
      [[fallthrough]];
    default: {
      static const std::map<pg_query::A_Expr_Kind, std::string_view> kNames = {
          {pg_query::AEXPR_ILIKE, "ILIKE"},
          {pg_query::AEXPR_SIMILAR, "SIMILAR TO"},
          {pg_query::AEXPR_OP_ANY, "op ANY (array)"},
          {pg_query::AEXPR_OP_ALL, "op ALL (array)"},
          {pg_query::AEXPR_BETWEEN_SYM, "BETWEEN SYMMETRIC"},
          {pg_query::AEXPR_NOT_BETWEEN_SYM, "NOT BETWEEN SYMMETRIC"}};
      auto found = kNames.find(expr.kind());
      std::string feature =
          found != kNames.end() ? std::string(found->second) : std::string(pg_query::A_Expr_Kind_Name(expr.kind()));
      fail(SqlState::kFeatureNotSupported, location, fmt::format("{} is not supported yet", feature));
    }
  }
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
  return makeFunctionOf(ScalarFunction::kCase, type, std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindCoalesce(const pg_query::Node& node) {
  const auto& coalesce = node.coalesce_expr();
  std::vector<ExpressionPtr> arguments;
  std::vector<LogicalType> types;
  for (const auto& argument : coalesce.args()) {
    arguments.push_back(bind(argument));
    types.push_back(arguments.back()->type());
  }
  LogicalType type = commonType(types, "COALESCE", coalesce.location());
  for (auto& argument : arguments) argument = coerce(std::move(argument), type, coalesce.location());
  if (arguments.size() == 1) return std::move(arguments[0]);
  return makeFunctionOf(ScalarFunction::kCoalesce, type, std::move(arguments));
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

ExpressionPtr ExpressionBinder::bindExtract(const pg_query::Node& node) {
  const auto& call = node.func_call();
  if (call.args_size() != 2 || !call.args(0).has_a_const() || !call.args(0).a_const().has_sval()) {
    fail(SqlState::kUndefinedFunction, call.location(), "function extract needs a field and a date");
  }
  std::string field = call.args(0).a_const().sval().sval();
  std::transform(field.begin(), field.end(), field.begin(), [](unsigned char c) { return std::tolower(c); });
  ExpressionPtr source = bind(call.args(1));
  if (isUnknown(source)) source = coerce(std::move(source), LogicalType::date(), call.location());
  if (source->type().id() != TypeId::kDate) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function extract(unknown, {}) does not exist", source->type().toString()));
  }
  ScalarFunction function;
  if (field == "year") {
    function = ScalarFunction::kExtractYear;
  } else if (field == "month") {
    function = ScalarFunction::kExtractMonth;
  } else if (field == "day") {
    function = ScalarFunction::kExtractDay;
  } else {
    static const std::set<std::string, std::less<>> kPostgresUnits = {
        "century", "decade",   "dow",          "doy",           "epoch",          "hour",   "isodow",
        "isoyear", "julian",   "microseconds", "millennium",    "milliseconds",   "minute", "quarter",
        "second",  "timezone", "week",         "timezone_hour", "timezone_minute"};
    if (!kPostgresUnits.contains(field)) {
      fail(SqlState::kInvalidParameterValue, call.location(),
           fmt::format("unit \"{}\" not recognized for type date", field));
    }
    fail(SqlState::kFeatureNotSupported, call.location(),
         fmt::format("EXTRACT({} FROM date) is not supported; YEAR, MONTH and DAY are", field));
  }
  return makeFunction(function, LogicalType::bigInt(), std::move(source));
}

ExpressionPtr ExpressionBinder::bindSubstring(const pg_query::Node& node) {
  const auto& call = node.func_call();
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
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
  return makeFunctionOf(ScalarFunction::kSubstring, LogicalType::text(), std::move(arguments));
}

namespace {

struct IntervalValue {
  int64_t months = 0;
  int64_t days = 0;
};

/// PostgreSQL's INTERVAL_MASK bits of the fields in `interval '3' month`.
constexpr int kMonthField = 1 << 1;
constexpr int kYearField = 1 << 2;
constexpr int kDayField = 1 << 3;

/// Parses '90', '3 months', '1 year 2 days' (the units Shoal's dates can add); nullopt when malformed.
std::optional<IntervalValue> parseInterval(const std::string& text, int fieldMask) {
  IntervalValue interval;
  size_t position = 0;
  auto skipSpaces = [&] {
    while (position < text.size() && std::isspace(static_cast<unsigned char>(text[position]))) ++position;
  };
  bool any = false;
  while (true) {
    skipSpaces();
    if (position == text.size()) break;
    size_t start = position;
    if (text[position] == '-' || text[position] == '+') ++position;
    while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) ++position;
    if (position == start || (position == start + 1 && !std::isdigit(static_cast<unsigned char>(text[start])))) {
      return std::nullopt;
    }
    int64_t amount = std::stoll(text.substr(start, position - start));
    skipSpaces();
    size_t unitStart = position;
    while (position < text.size() && std::isalpha(static_cast<unsigned char>(text[position]))) ++position;
    std::string unit = text.substr(unitStart, position - unitStart);
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    if (unit.empty()) {
      unit = fieldMask == kYearField ? "year" : fieldMask == kMonthField ? "month" : "day";
      if (fieldMask != 0 && fieldMask != kYearField && fieldMask != kMonthField && fieldMask != kDayField) {
        return std::nullopt;
      }
    }
    if (unit == "year" || unit == "years" || unit == "y" || unit == "yr" || unit == "yrs") {
      interval.months += amount * 12;
    } else if (unit == "month" || unit == "months" || unit == "mon" || unit == "mons") {
      interval.months += amount;
    } else if (unit == "week" || unit == "weeks" || unit == "w") {
      interval.days += amount * 7;
    } else if (unit == "day" || unit == "days" || unit == "d") {
      interval.days += amount;
    } else {
      return std::nullopt;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  return interval;
}

}  // namespace

ExpressionPtr ExpressionBinder::bindIntervalArithmetic(const pg_query::Node& node) {
  const auto& expr = node.a_expr();
  std::string op = lastName(expr.name());
  auto isInterval = [](const pg_query::Node& side) {
    return side.has_type_cast() && lastName(side.type_cast().type_name().names()) == "interval";
  };
  if ((op != "+" && op != "-") || !expr.has_lexpr() || !expr.has_rexpr()) return nullptr;
  bool leftInterval = isInterval(expr.lexpr());
  bool rightInterval = isInterval(expr.rexpr());
  if (leftInterval == rightInterval || (leftInterval && op == "-")) return nullptr;
  const auto& cast = (leftInterval ? expr.lexpr() : expr.rexpr()).type_cast();
  int location = cast.location();
  if (!cast.arg().has_a_const() || !cast.arg().a_const().has_sval()) {
    fail(SqlState::kFeatureNotSupported, location, "only interval literals are supported");
  }
  int fieldMask = 0;
  for (const auto& modifier : cast.type_name().typmods()) {
    if (modifier.has_a_const() && modifier.a_const().has_ival()) fieldMask |= modifier.a_const().ival().ival();
  }
  std::string text = cast.arg().a_const().sval().sval();
  auto interval = parseInterval(text, fieldMask);
  if (!interval) {
    fail(SqlState::kInvalidDatetimeFormat, location,
         fmt::format("invalid input syntax for type interval: \"{}\" (Shoal's intervals count years, months, "
                     "weeks and days)",
                     text));
  }
  ExpressionPtr date = bind(leftInterval ? expr.rexpr() : expr.lexpr());
  if (isUnknown(date)) date = coerce(std::move(date), LogicalType::date(), expr.location());
  if (date->type().id() != TypeId::kDate) {
    fail(SqlState::kUndefinedFunction, expr.location(),
         fmt::format("operator does not exist: {} {} interval", date->type().toString(), op));
  }
  int64_t sign = op == "-" ? -1 : 1;
  // As PostgreSQL does for timestamps: months first, then days.
  if (interval->months != 0) {
    date = makeFunction(
        ScalarFunction::kDateAddMonths, LogicalType::date(), std::move(date),
        std::make_unique<ConstantExpression>(Value::integer(static_cast<int32_t>(sign * interval->months))));
  }
  if (interval->days != 0) {
    date =
        makeFunction(ScalarFunction::kDateAddDays, LogicalType::date(), std::move(date),
                     std::make_unique<ConstantExpression>(Value::integer(static_cast<int32_t>(sign * interval->days))));
  }
  return date;
}

}  // namespace shoal::sql
