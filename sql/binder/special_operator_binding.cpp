// ExpressionBinder's binding of the operators the grammar gives shapes of their own: IN, LIKE, BETWEEN,
// NULLIF, IS [NOT] DISTINCT FROM and op ANY/ALL (array).

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/status.h"
#include "engine/expression/cast.h"
#include "engine/expression/in_set.h"
#include "engine/types/array_value.h"
#include "engine/types/text_format.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/type_coercion.h"
#include "sql/optimizer/constant_folder.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

/// Below this many constants an IN list stays a tree of ORs, which zone maps can read.
constexpr size_t kInSetThreshold = 16;

/// Whether evaluating `expression` twice may give two values (random(), gen_random_uuid()).
bool callsVolatile(const engine::Expression& expression) {
  if (expression.kind() == engine::ExpressionKind::kCast) {
    return callsVolatile(static_cast<const engine::CastExpression&>(expression).child());
  }
  if (expression.kind() != engine::ExpressionKind::kFunction) return false;
  const auto& function = static_cast<const engine::FunctionExpression&>(expression);
  if (engine::isVolatile(function.function())) return true;
  for (const auto& argument : function.arguments()) {
    if (callsVolatile(*argument)) return true;
  }
  return false;
}

/// `x IN (c1, ..., cn)` bound as `x = c1 OR ...` (`terms`, the `x <> ci` of NOT IN when `negated`): as one
/// kInSet probe when there are many terms, or when x is volatile and must be evaluated once, each term
/// comparing the same x with a constant of x's type; null otherwise (a list that mixes types, or holds
/// expressions).
ExpressionPtr asInSet(const std::vector<ExpressionPtr>& terms, bool negated, bool volatileValue = false) {
  if (terms.size() < kInSetThreshold && !volatileValue) return nullptr;
  const ScalarFunction comparison = negated ? ScalarFunction::kNotEqual : ScalarFunction::kEqual;
  const engine::Expression* value = nullptr;
  std::string valueText;
  std::vector<Value> elements;
  for (const auto& term : terms) {
    if (term->kind() != engine::ExpressionKind::kFunction) return nullptr;
    const auto& function = static_cast<const engine::FunctionExpression&>(*term);
    if (function.function() != comparison || function.arguments().size() != 2) return nullptr;
    // A literal cast to the value's type (an integer beside a bigint column) is a constant once folded.
    ExpressionPtr folded = foldConstants(*function.arguments()[1]);
    const engine::Expression& constant = *folded;
    if (constant.kind() != engine::ExpressionKind::kConstant) return nullptr;
    const engine::Expression& left = *function.arguments()[0];
    if (value == nullptr) {
      value = &left;
      valueText = left.toString();
      if (!engine::InSet::supports(left.type())) return nullptr;
    } else if (left.type() != value->type() || left.toString() != valueText) {
      return nullptr;
    }
    if (constant.type() != value->type()) return nullptr;
    elements.push_back(static_cast<const ConstantExpression&>(constant).value());
  }
  const LogicalType arrayType = LogicalType::array(value->type());
  ExpressionPtr set = makeFunction(ScalarFunction::kInSet, LogicalType::boolean(), copyExpression(*value),
                                   std::make_unique<ConstantExpression>(engine::makeArrayValue(elements, arrayType)));
  return negated ? makeFunction(ScalarFunction::kNot, LogicalType::boolean(), std::move(set)) : std::move(set);
}

}  // namespace

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
  // x = ANY (ARRAY[...]) is x IN (...), and x <> ALL (ARRAY[...]) is x NOT IN (...).
  if (expr.kind() == pg_query::AEXPR_OP_ANY && op == "=") {
    if (ExpressionPtr set = asInSet(terms, false)) return set;
  }
  if (expr.kind() == pg_query::AEXPR_OP_ALL && op == "<>") {
    if (ExpressionPtr set = asInSet(terms, true)) return set;
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
      if (ExpressionPtr set = asInSet(terms, negated, callsVolatile(*left))) return set;
      return combineBalanced(negated ? ScalarFunction::kAnd : ScalarFunction::kOr, std::move(terms));
    }
    case pg_query::AEXPR_LIKE:
    case pg_query::AEXPR_ILIKE: {
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
        pattern = functionOf(ScalarFunction::kLikeEscape, LogicalType::text(), std::move(arguments));
      } else {
        pattern = bind(expr.rexpr());
      }
      ExpressionPtr text = bind(expr.lexpr());
      const bool negated = op == "!~~" || op == "!~~*";
      if (expr.kind() == pg_query::AEXPR_ILIKE) {
        // ILIKE is LIKE over both sides in lower case, as PostgreSQL computes it in a multi-byte encoding.
        auto textual = [](const ExpressionPtr& e) { return e->type().isString() || isUnknown(e); };
        if (!textual(text) || !textual(pattern)) failNoOperator(op, text->type(), pattern->type(), location);
        text = makeFunction(ScalarFunction::kLower, LogicalType::text(), paddedText(std::move(text), location));
        pattern = makeFunction(ScalarFunction::kLower, LogicalType::text(),
                               coerce(std::move(pattern), LogicalType::text(), location));
      }
      return bindPatternMatch(negated ? ScalarFunction::kNotLike : ScalarFunction::kLike, op, std::move(text),
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
      return functionOf(ScalarFunction::kCase, type, std::move(arguments));
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
      ExpressionPtr notDistinct = functionOf(ScalarFunction::kCase, LogicalType::boolean(), std::move(arguments));
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

}  // namespace shoal::sql
