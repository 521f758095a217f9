// QueryBinder's binding of set-returning functions in FROM: generate_series, unnest and generate_subscripts,
// with an alias, column aliases and WITH ORDINALITY, as PostgreSQL 15 names their columns.

#include <fmt/format.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/set_functions.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;

LogicalOperatorPtr QueryBinder::bindRangeFunction(const pg_query::RangeFunction& range, BindScope& scope,
                                                  LogicalOperatorPtr* lateralInput) {
  if (range.is_rowsfrom() || range.functions_size() != 1) {
    fail(SqlState::kFeatureNotSupported, -1, "ROWS FROM (...) is not supported yet");
  }
  const auto& items = range.functions(0).list().items();
  if (items.empty() || !items[0].has_func_call()) {
    fail(SqlState::kFeatureNotSupported, -1, "this kind of function in FROM is not supported yet");
  }
  if (items.size() > 1 && items[1].has_list() && items[1].list().items_size() > 0) {
    fail(SqlState::kFeatureNotSupported, -1, "column definition lists of functions are not supported yet");
  }
  const auto& call = items[0].func_call();
  const std::string name = call.funcname().rbegin()->string().sval();
  // Arguments that read the FROM items before it (a function in FROM is implicitly LATERAL) make it run per
  // row of those: a ProjectSet over them. Elsewhere (inside JOIN ... ON) they may read no column yet.
  auto errors = std::make_shared<ExpressionBinder>(text_, std::vector<ColumnDescription>{}, parameterTypes_);
  bool readsColumns = false;
  ExpressionBinder binder(
      text_,
      [&, errors, name](const pg_query::ColumnRef& ref) -> ExpressionPtr {
        if (lateralInput == nullptr) {
          errors->fail(SqlState::kFeatureNotSupported, ref.location(),
                       fmt::format("{}() in a JOIN cannot read columns of other FROM items yet (LATERAL)", name));
        }
        readsColumns = true;
        return scope.resolve(ref, *errors, database());
      },
      parameterTypes_);
  binder.setClause("functions in FROM");
  binder.setCatalog(&catalog_);
  binder.useParameterValues(parameterValues_);
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(binder.bind(argument));
  if (!isSetFunctionName(name)) {
    fail(SqlState::kFeatureNotSupported, call.location(),
         fmt::format("function {}() in FROM is not supported yet", name));
  }
  auto function = std::make_unique<LogicalTableFunction>();
  const ResolvedSetFunction resolved = resolveSetFunction(binder, name, arguments, call.location());
  function->function = resolved.function;
  const LogicalType valueType = resolved.valueType;
  function->arguments = std::move(arguments);
  function->withOrdinality = range.ordinality();
  // PostgreSQL's names: the relation is the alias or the function's name; a function of one column names
  // that column after the relation's alias when there is one, else after itself.
  const std::string relation = range.has_alias() ? range.alias().aliasname() : name;
  std::vector<std::string> aliases;
  if (range.has_alias()) {
    for (const auto& column : range.alias().colnames()) aliases.push_back(column.string().sval());
  }
  std::vector<std::string> names = {range.has_alias() ? relation : name};
  if (function->withOrdinality) names.push_back("ordinality");
  if (aliases.size() > names.size()) {
    fail(SqlState::kInvalidColumnReference, -1,
         fmt::format("table \"{}\" has {} columns available but {} columns specified", relation, names.size(),
                     aliases.size()));
  }
  for (size_t i = 0; i < aliases.size(); ++i) names[i] = aliases[i];
  if (readsColumns) {
    auto projectSet = std::make_unique<LogicalProjectSet>();
    SetFunctionColumn lateral;
    lateral.function = function->function;
    lateral.arguments = std::move(function->arguments);
    lateral.column = PlanColumn{ids_.next(), valueType, names[0]};
    addRelation(scope, relation);
    scope.add(relation, names[0], lateral.column);
    if (function->withOrdinality) {
      lateral.ordinality = PlanColumn{ids_.next(), LogicalType::bigInt(), names[1]};
      scope.add(relation, names[1], *lateral.ordinality);
    }
    projectSet->functions.push_back(std::move(lateral));
    projectSet->children.push_back(*lateralInput ? std::move(*lateralInput) : std::make_unique<LogicalSingleRow>());
    return projectSet;
  }
  addRelation(scope, relation);
  std::vector<LogicalType> types = {valueType, LogicalType::bigInt()};
  for (size_t i = 0; i < names.size(); ++i) {
    PlanColumn column{ids_.next(), types[i], names[i]};
    function->columns.push_back(column);
    scope.add(relation, names[i], column);
  }
  return function;
}

}  // namespace shoal::sql
