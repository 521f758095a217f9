#include "sql/binder/statement_options.h"

#include <strings.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"

namespace shoal::sql {

std::string optionText(const pg_query::DefElem& option) {
  if (!option.has_arg()) return "";
  const pg_query::Node& arg = option.arg();
  if (arg.has_string()) return arg.string().sval();
  if (arg.has_a_const()) {
    const auto& constant = arg.a_const();
    if (constant.has_sval()) return constant.sval().sval();
    if (constant.has_ival()) return std::to_string(constant.ival().ival());
    if (constant.has_fval()) return constant.fval().fval();
    if (constant.has_boolval()) return constant.boolval().boolval() ? "true" : "false";
  }
  if (arg.has_integer()) return std::to_string(arg.integer().ival());
  if (arg.has_float_()) return arg.float_().fval();
  if (arg.has_boolean()) return arg.boolean().boolval() ? "true" : "false";
  if (arg.has_type_name() && arg.type_name().names_size() > 0) {
    return arg.type_name().names(arg.type_name().names_size() - 1).string().sval();
  }
  return "";
}

bool optionBoolean(const pg_query::DefElem& option) {
  if (!option.has_arg()) return true;
  const std::string text = optionText(option);
  for (const char* spelling : {"true", "on", "1"}) {
    if (strcasecmp(text.c_str(), spelling) == 0) return true;
  }
  for (const char* spelling : {"false", "off", "0"}) {
    if (strcasecmp(text.c_str(), spelling) == 0) return false;
  }
  SHOAL_USER_FAIL(SqlState::kSyntaxError, "{} requires a Boolean value", option.defname());
}

}  // namespace shoal::sql
