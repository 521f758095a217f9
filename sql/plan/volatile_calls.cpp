#include "sql/plan/volatile_calls.h"

namespace shoal::sql {

bool callsVolatile(const engine::Expression& expression) {
  switch (expression.kind()) {
    case engine::ExpressionKind::kCast:
      return callsVolatile(static_cast<const engine::CastExpression&>(expression).child());
    case engine::ExpressionKind::kFunction: {
      const auto& function = static_cast<const engine::FunctionExpression&>(expression);
      if (engine::isVolatile(function.function())) return true;
      for (const auto& argument : function.arguments()) {
        if (callsVolatile(*argument)) return true;
      }
      return false;
    }
    default:
      return false;
  }
}

}  // namespace shoal::sql
