#include "sql/binder/session_functions.h"

#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::Value;

engine::ExpressionPtr bindSessionFunction(std::string_view name, size_t numArguments, const SessionInfo* session) {
  if (numArguments != 0) return nullptr;
  auto text = [](std::string_view value) {
    return std::make_unique<ConstantExpression>(Value::varchar(std::string(value)));
  };
  if (name == "version") return text(kVersionText);
  if (name == "current_schema") return text(kPublicSchema);
  if (session == nullptr) return nullptr;
  if (name == "current_user" || name == "session_user" || name == "user" || name == "current_role") {
    return text(session->user);
  }
  if (name == "current_database" || name == "current_catalog") return text(session->database);
  if (name == "pg_backend_pid") return std::make_unique<ConstantExpression>(Value::integer(session->backendPid));
  return nullptr;
}

}  // namespace shoal::sql
