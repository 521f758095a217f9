#include "sql/plan/expression_rewriting.h"
#include "common/stack_depth.h"
#include "common/status.h"

#include "common/check.h"

namespace shoal::sql {

using engine::CastExpression;
using engine::ColumnRefExpression;
using engine::ConstantExpression;
using engine::Expression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::ScalarFunction;

std::optional<engine::Value> literalBeneathCasts(const Expression& expression) {
  const Expression* inner = &expression;
  while (inner->kind() == engine::ExpressionKind::kCast) {
    inner = &static_cast<const engine::CastExpression*>(inner)->child();
  }
  if (inner->kind() != engine::ExpressionKind::kConstant) return std::nullopt;
  return static_cast<const engine::ConstantExpression*>(inner)->value();
}

ExpressionPtr copyExpression(const Expression& expression) {
  checkStackDepth();
  return rewriteExpression(expression, [](const Expression&) { return nullptr; });
}

ExpressionPtr columnRef(const PlanColumn& column) {
  return std::make_unique<ColumnRefExpression>(column.id, column.type, column.name);
}

ExpressionPtr rewriteExpression(const Expression& expression,
                                const std::function<ExpressionPtr(const Expression&)>& replace) {
  checkStackDepth();
  if (ExpressionPtr replaced = replace(expression)) return replaced;
  switch (expression.kind()) {
    case ExpressionKind::kConstant:
      return std::make_unique<ConstantExpression>(static_cast<const ConstantExpression&>(expression).value());
    case ExpressionKind::kColumnRef: {
      const auto& ref = static_cast<const ColumnRefExpression&>(expression);
      return std::make_unique<ColumnRefExpression>(ref.columnIndex(), ref.type(), ref.name());
    }
    case ExpressionKind::kParameter: {
      const auto& parameter = static_cast<const engine::ParameterExpression&>(expression);
      return std::make_unique<engine::ParameterExpression>(parameter.index(), parameter.type());
    }
    case ExpressionKind::kCast: {
      const auto& cast = static_cast<const CastExpression&>(expression);
      return std::make_unique<CastExpression>(rewriteExpression(cast.child(), replace), cast.type(), cast.timeZone());
    }
    case ExpressionKind::kFunction: {
      const auto& function = static_cast<const FunctionExpression&>(expression);
      std::vector<ExpressionPtr> arguments;
      for (const auto& argument : function.arguments()) arguments.push_back(rewriteExpression(*argument, replace));
      return std::make_unique<FunctionExpression>(function.function(), std::move(arguments), function.type());
    }
  }
  SHOAL_CHECK(false, "unknown expression kind");
  return nullptr;
}

ExpressionPtr remapColumns(const Expression& expression, const std::function<ExpressionPtr(ColumnId)>& mapping) {
  return rewriteExpression(expression, [&](const Expression& node) -> ExpressionPtr {
    if (node.kind() != ExpressionKind::kColumnRef) return nullptr;
    return mapping(static_cast<ColumnId>(static_cast<const ColumnRefExpression&>(node).columnIndex()));
  });
}

void collectColumns(const Expression& expression, std::set<ColumnId>& ids) {
  switch (expression.kind()) {
    case ExpressionKind::kColumnRef:
      ids.insert(static_cast<ColumnId>(static_cast<const ColumnRefExpression&>(expression).columnIndex()));
      return;
    case ExpressionKind::kCast:
      collectColumns(static_cast<const CastExpression&>(expression).child(), ids);
      return;
    case ExpressionKind::kFunction:
      for (const auto& argument : static_cast<const FunctionExpression&>(expression).arguments()) {
        collectColumns(*argument, ids);
      }
      return;
    default:
      return;
  }
}

bool readsAnyOf(const Expression& expression, const std::set<ColumnId>& ids) {
  switch (expression.kind()) {
    case ExpressionKind::kColumnRef:
      return ids.contains(static_cast<ColumnId>(static_cast<const ColumnRefExpression&>(expression).columnIndex()));
    case ExpressionKind::kCast:
      return readsAnyOf(static_cast<const CastExpression&>(expression).child(), ids);
    case ExpressionKind::kFunction:
      for (const auto& argument : static_cast<const FunctionExpression&>(expression).arguments()) {
        if (readsAnyOf(*argument, ids)) return true;
      }
      return false;
    default:
      return false;
  }
}

std::set<ColumnId> columnsOf(const Expression& expression) {
  std::set<ColumnId> ids;
  collectColumns(expression, ids);
  return ids;
}

bool readsOnly(const Expression& expression, const std::set<ColumnId>& available) {
  for (ColumnId id : columnsOf(expression)) {
    if (!available.contains(id)) return false;
  }
  return true;
}

bool sameExpression(const Expression& left, const Expression& right) {
  if (left.kind() != right.kind() || !(left.type() == right.type())) return false;
  switch (left.kind()) {
    case ExpressionKind::kConstant: {
      const auto& a = static_cast<const ConstantExpression&>(left).value();
      const auto& b = static_cast<const ConstantExpression&>(right).value();
      return a.isNull() == b.isNull() && a.toString() == b.toString();
    }
    case ExpressionKind::kColumnRef:
      return static_cast<const ColumnRefExpression&>(left).columnIndex() ==
             static_cast<const ColumnRefExpression&>(right).columnIndex();
    case ExpressionKind::kParameter:
      return static_cast<const engine::ParameterExpression&>(left).index() ==
             static_cast<const engine::ParameterExpression&>(right).index();
    case ExpressionKind::kCast:
      return sameExpression(static_cast<const CastExpression&>(left).child(),
                            static_cast<const CastExpression&>(right).child());
    case ExpressionKind::kFunction: {
      const auto& a = static_cast<const FunctionExpression&>(left);
      const auto& b = static_cast<const FunctionExpression&>(right);
      if (a.function() != b.function() || a.arguments().size() != b.arguments().size()) return false;
      for (size_t i = 0; i < a.arguments().size(); ++i) {
        if (!sameExpression(*a.arguments()[i], *b.arguments()[i])) return false;
      }
      return true;
    }
  }
  return false;
}

void splitConjunction(ExpressionPtr expression, std::vector<ExpressionPtr>& conjuncts) {
  if (expression->kind() == ExpressionKind::kFunction) {
    const auto& function = static_cast<const FunctionExpression&>(*expression);
    if (function.function() == ScalarFunction::kAnd) {
      for (const auto& argument : function.arguments()) splitConjunction(copyExpression(*argument), conjuncts);
      return;
    }
  }
  conjuncts.push_back(std::move(expression));
}

ExpressionPtr makeConjunction(std::vector<ExpressionPtr> conjuncts) {
  if (conjuncts.empty()) return std::make_unique<ConstantExpression>(engine::Value::boolean(true));
  ExpressionPtr result = std::move(conjuncts[0]);
  for (size_t i = 1; i < conjuncts.size(); ++i) {
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(std::move(result));
    arguments.push_back(std::move(conjuncts[i]));
    result = std::make_unique<FunctionExpression>(ScalarFunction::kAnd, std::move(arguments),
                                                  engine::LogicalType::boolean());
  }
  return result;
}

namespace {

/// Functions whose result is NULL whenever an argument is.
bool isStrict(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kAnd:
    case ScalarFunction::kOr:
    case ScalarFunction::kIsNull:
    case ScalarFunction::kIsNotNull:
    case ScalarFunction::kCase:
    case ScalarFunction::kCoalesce:
      return false;
    default:
      return true;
  }
}

/// True when `expression` is NULL whenever every column in `columns` is NULL.
bool nullWhenColumnsNull(const Expression& expression, const std::set<ColumnId>& columns) {
  switch (expression.kind()) {
    case ExpressionKind::kColumnRef:
      return columns.contains(static_cast<ColumnId>(static_cast<const ColumnRefExpression&>(expression).columnIndex()));
    case ExpressionKind::kCast:
      return nullWhenColumnsNull(static_cast<const CastExpression&>(expression).child(), columns);
    case ExpressionKind::kFunction: {
      const auto& function = static_cast<const FunctionExpression&>(expression);
      if (!isStrict(function.function())) return false;
      for (const auto& argument : function.arguments()) {
        if (nullWhenColumnsNull(*argument, columns)) return true;
      }
      return false;
    }
    default:
      return false;
  }
}

}  // namespace

bool rejectsNulls(const Expression& expression, const std::set<ColumnId>& columns) {
  if (expression.kind() == ExpressionKind::kFunction) {
    const auto& function = static_cast<const FunctionExpression&>(expression);
    switch (function.function()) {
      case ScalarFunction::kAnd:
        for (const auto& argument : function.arguments()) {
          if (rejectsNulls(*argument, columns)) return true;
        }
        return false;
      case ScalarFunction::kOr:
        for (const auto& argument : function.arguments()) {
          if (!rejectsNulls(*argument, columns)) return false;
        }
        return true;
      case ScalarFunction::kIsNotNull:
        return nullWhenColumnsNull(*function.arguments()[0], columns);
      default:
        break;
    }
  }
  return nullWhenColumnsNull(expression, columns);
}

std::set<ColumnId> outputIds(const LogicalOperator& op) {
  std::set<ColumnId> ids;
  for (const auto& column : op.outputColumns()) ids.insert(column.id);
  return ids;
}

}  // namespace shoal::sql
