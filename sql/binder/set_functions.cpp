#include "sql/binder/set_functions.h"

#include <fmt/format.h>

#include "common/status.h"
#include "sql/binder/expression_binder.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TableFunction;
using engine::TypeId;

bool isSetFunctionName(std::string_view name) {
  return name == "generate_series" || name == "unnest" || name == "generate_subscripts";
}

ResolvedSetFunction resolveSetFunction(ExpressionBinder& binder, const std::string& name,
                                       std::vector<ExpressionPtr>& arguments, int location) {
  // The types as written, taken before any argument is coerced or moved.
  std::string writtenTypes;
  for (const auto& argument : arguments)
    writtenTypes += (writtenTypes.empty() ? "" : ", ") + argument->type().toString();
  auto signature = [&] { return fmt::format("{}({})", name, writtenTypes); };
  auto undefined = [&]() -> void {
    binder.fail(SqlState::kUndefinedFunction, location, fmt::format("function {} does not exist", signature()),
                "No function matches the given name and argument types. You might need to add explicit type casts.");
  };
  auto isUnknown = [](const ExpressionPtr& e) { return e->type().id() == TypeId::kUnknown; };
  if (name == "generate_series") {
    if (arguments.size() < 2 || arguments.size() > 3) undefined();
    LogicalType valueType = LogicalType::integer();
    for (const auto& argument : arguments) {
      if (argument->type().id() == TypeId::kBigInt) valueType = LogicalType::bigInt();
      if (!argument->type().isIntegral() && !isUnknown(argument)) {
        if (argument->type().isNumeric() || argument->type().id() == TypeId::kDate) {
          binder.fail(
              SqlState::kFeatureNotSupported, location,
              fmt::format("{} is supported over integer and bigint only, not yet over other types", signature()));
        }
        undefined();
      }
    }
    for (auto& argument : arguments) argument = binder.coerce(std::move(argument), valueType, location);
    return {TableFunction::kGenerateSeries, valueType};
  }
  if (name == "unnest") {
    if (arguments.size() != 1) {
      if (arguments.size() > 1) {
        binder.fail(SqlState::kFeatureNotSupported, location, "unnest() of more than one array is not supported yet");
      }
      undefined();
    }
    if (isUnknown(arguments[0])) {
      binder.fail(SqlState::kAmbiguousFunction, location, "function unnest(unknown) is not unique",
                  "Could not choose a best candidate function. You might need to add explicit type casts.");
    }
    if (!arguments[0]->type().isArray()) undefined();
    return {TableFunction::kUnnest, arguments[0]->type().elementType()};
  }
  if (name == "generate_subscripts") {
    if (arguments.size() < 2 || arguments.size() > 3 || !arguments[0]->type().isArray()) undefined();
    if (!arguments[1]->type().isIntegral() && !isUnknown(arguments[1])) undefined();
    arguments[1] = binder.coerce(std::move(arguments[1]), LogicalType::integer(), location);
    if (arguments.size() == 3) {
      if (arguments[2]->type().id() != TypeId::kBoolean && !isUnknown(arguments[2])) undefined();
      arguments[2] = binder.coerce(std::move(arguments[2]), LogicalType::boolean(), location);
    }
    return {TableFunction::kGenerateSubscripts, LogicalType::integer()};
  }
  binder.fail(SqlState::kFeatureNotSupported, location, fmt::format("function {}() is not supported yet", name));
}

}  // namespace shoal::sql
