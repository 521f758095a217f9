// QueryBinder's WITH RECURSIVE: a WITH query that reads itself is bound once, as a RecursiveQuery (its
// non-recursive term and its recursive term, which reads the working table), with PostgreSQL's checks on
// where the recursive term may read the query. The executor computes its rows before the plan that reads
// them runs (coordinator/query/recursive_queries.h).

#include <algorithm>

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/type_coercion.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

bool readsRelation(const Message& tree, std::string_view relation) {
  if (const auto* range = dynamic_cast<const pg_query::RangeVar*>(&tree)) {
    if (range->schemaname().empty() && range->relname() == relation) return true;
  }
  const google::protobuf::Reflection* reflection = tree.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(tree, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(tree, field); ++i) {
        if (readsRelation(reflection->GetRepeatedMessage(tree, field, i), relation)) return true;
      }
    } else if (readsRelation(reflection->GetMessage(tree, field), relation)) {
      return true;
    }
  }
  return false;
}

ExpressionSubqueryMark::ExpressionSubqueryMark(const CteScope* ctes) {
  for (const CteScope* cte = ctes; cte != nullptr; cte = cte->parent) {
    if (cte->binding != CteScope::Binding::kRecursiveTerm) continue;
    ++cte->subqueryDepth;
    marked_.push_back(cte);
  }
}

ExpressionSubqueryMark::~ExpressionSubqueryMark() {
  for (const CteScope* cte : marked_) --cte->subqueryDepth;
}

namespace {

bool readsWorkingTable(const LogicalOperator& op, const RecursiveQuery* query) {
  if (op.kind() == LogicalOperatorKind::kMaterialized) {
    const auto& materialized = static_cast<const LogicalMaterialized&>(op);
    if (materialized.role == LogicalMaterialized::Role::kWorkingTable && materialized.step == query) return true;
  }
  return std::any_of(op.children.begin(), op.children.end(),
                     [&](const auto& child) { return readsWorkingTable(*child, query); });
}

/// What of the recursive term PostgreSQL refuses around the working table: an aggregate over it, or its rows on
/// the side of an outer join that the join pads with NULLs.
std::string_view misplacedWorkingTable(const LogicalOperator& op, const RecursiveQuery* query) {
  if (op.kind() == LogicalOperatorKind::kAggregate && !static_cast<const LogicalAggregate&>(op).aggregates.empty() &&
      readsWorkingTable(op, query)) {
    return "aggregate";
  }
  if (op.kind() == LogicalOperatorKind::kJoin) {
    JoinType type = static_cast<const LogicalJoin&>(op).type;
    if ((type == JoinType::kLeft || type == JoinType::kFull) && readsWorkingTable(*op.children[1], query)) {
      return "outer join";
    }
    if (type == JoinType::kFull && readsWorkingTable(*op.children[0], query)) return "outer join";
  }
  for (const auto& child : op.children) {
    if (std::string_view found = misplacedWorkingTable(*child, query); !found.empty()) return found;
  }
  return "";
}

}  // namespace

LogicalOperatorPtr QueryBinder::bindRecursiveReference(const CteScope& cte, const std::string& relation,
                                                       std::vector<std::string> aliases, int location,
                                                       BindScope& scope) {
  auto node = std::make_unique<LogicalMaterialized>();
  node->name = cte.name;
  switch (cte.binding) {
    case CteScope::Binding::kNonRecursiveTerm:
      fail(SqlState::kInvalidRecursion, location,
           fmt::format("recursive reference to query \"{}\" must not appear within its non-recursive term", cte.name));
    case CteScope::Binding::kRecursiveTerm:
      if (cte.subqueryDepth > 0) {
        fail(SqlState::kInvalidRecursion, location,
             fmt::format("recursive reference to query \"{}\" must not appear within a subquery", cte.name));
      }
      if (++cte.selfReferences > 1) {
        fail(SqlState::kInvalidRecursion, location,
             fmt::format("recursive reference to query \"{}\" must not appear more than once", cte.name));
      }
      cte.referenceLocation = location;
      node->role = LogicalMaterialized::Role::kWorkingTable;
      node->step = cte.query.get();
      break;
    case CteScope::Binding::kNotYet:
      bindRecursiveQuery(cte);
      [[fallthrough]];
    case CteScope::Binding::kDone:
      node->query = cte.query;
      break;
  }
  std::vector<std::string> names;
  for (const PlanColumn& column : cte.query->columns) {
    node->columns.push_back({ids_.next(), column.type, column.name});
    names.push_back(column.name);
  }
  LogicalPlan plan;
  plan.root = std::move(node);
  plan.columnNames = std::move(names);
  return renameRelation(std::move(plan), relation, aliases, location, scope);
}

void QueryBinder::bindRecursiveQuery(const CteScope& cte) {
  const pg_query::CommonTableExpr& definition = *cte.definition;
  const pg_query::SelectStmt& select = definition.ctequery().select_stmt();
  const std::string& name = cte.name;
  if (select.op() != pg_query::SETOP_UNION) {
    fail(SqlState::kInvalidRecursion, definition.location(),
         fmt::format("recursive query \"{}\" does not have the form non-recursive-term UNION [ALL] recursive-term",
                     name));
  }
  auto unsupported = [&](bool present, std::string_view clause, const pg_query::Node* at) {
    if (!present) return;
    fail(SqlState::kFeatureNotSupported, at != nullptr ? ExpressionBinder::locationOf(*at) : -1,
         fmt::format("{} in a recursive query is not implemented", clause));
  };
  unsupported(select.sort_clause_size() > 0, "ORDER BY",
              select.sort_clause_size() > 0 ? &select.sort_clause(0).sort_by().node() : nullptr);
  unsupported(select.has_limit_offset(), "OFFSET", &select.limit_offset());
  unsupported(select.has_limit_count(), "LIMIT", &select.limit_count());
  unsupported(select.locking_clause_size() > 0, "FOR UPDATE/SHARE", nullptr);
  unsupported(select.has_with_clause(), "WITH", nullptr);

  auto query = std::make_shared<RecursiveQuery>();
  query->name = name;
  cte.binding = CteScope::Binding::kNonRecursiveTerm;
  QueryBinder nonRecursiveBinder(catalog_, text_, parameterTypes_, ids_, nullptr, &cte, views_);
  nonRecursiveBinder.useParameterValues(parameterValues_);
  LogicalPlan nonRecursive = nonRecursiveBinder.bind(select.larg());
  std::vector<PlanColumn> columns = nonRecursive.root->outputColumns();
  std::vector<std::string> aliases;
  for (const auto& alias : definition.aliascolnames()) aliases.push_back(alias.string().sval());
  if (aliases.size() > columns.size()) {
    fail(SqlState::kInvalidColumnReference, definition.location(),
         fmt::format("WITH query \"{}\" has {} columns available but {} columns specified", name, columns.size(),
                     aliases.size()));
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    query->columns.push_back(
        {ids_.next(), columns[i].type, i < aliases.size() ? aliases[i] : nonRecursive.columnNames[i]});
  }

  cte.query = query;
  auto bindRecursiveTerm = [&] {
    cte.binding = CteScope::Binding::kRecursiveTerm;
    cte.selfReferences = 0;
    QueryBinder recursiveBinder(catalog_, text_, parameterTypes_, ids_, nullptr, &cte, views_);
    recursiveBinder.useParameterValues(parameterValues_);
    LogicalPlan term = recursiveBinder.bind(select.rarg());
    cte.binding = CteScope::Binding::kDone;
    return term;
  };
  LogicalPlan recursive = bindRecursiveTerm();
  // Shoal's numeric carries the precision it computed where PostgreSQL's is unconstrained: a numeric column
  // that the recursive term widens (a running product) takes the widest precision, and the term is bound again.
  bool widened = false;
  std::vector<PlanColumn> firstStep = recursive.root->outputColumns();
  for (size_t i = 0; i < columns.size() && i < firstStep.size(); ++i) {
    const LogicalType& type = query->columns[i].type;
    if (type.id() == engine::TypeId::kDecimal && firstStep[i].type.id() == engine::TypeId::kDecimal &&
        firstStep[i].type != type) {
      query->columns[i].type =
          LogicalType::decimal(LogicalType::kMaxDecimalPrecision, std::max(type.scale(), firstStep[i].type.scale()));
      widened = true;
    }
  }
  if (widened) recursive = bindRecursiveTerm();
  // PostgreSQL points at a term's select list; a set operation's terms have none of their own.
  auto selectListAt = [](const pg_query::SelectStmt& term, size_t column) {
    return static_cast<int>(column) < term.target_list_size() ? term.target_list(column).res_target().location() : -1;
  };
  if (std::string_view misplaced = misplacedWorkingTable(*recursive.root, query.get()); misplaced == "aggregate") {
    fail(SqlState::kInvalidRecursion, selectListAt(select.rarg(), 0),
         "aggregate functions are not allowed in a recursive query's recursive term");
  } else if (!misplaced.empty()) {
    fail(SqlState::kInvalidRecursion, cte.referenceLocation,
         fmt::format("recursive reference to query \"{}\" must not appear within an outer join", name));
  }

  // The non-recursive term sets the types; the recursive term's must resolve to them, as PostgreSQL requires.
  std::vector<PlanColumn> stepColumns = recursive.root->outputColumns();
  if (stepColumns.size() != columns.size()) {
    fail(SqlState::kSyntaxError, -1, "each UNION query must have the same number of columns");
  }
  ExpressionBinder types(text_, std::vector<ColumnDescription>{}, parameterTypes_);
  // Numeric typmods are Shoal's own inference, not the user's: messages name the type alone.
  auto typeName = [](const LogicalType& type) {
    return type.id() == engine::TypeId::kDecimal ? std::string("numeric") : type.toString();
  };
  for (size_t i = 0; i < columns.size(); ++i) {
    const LogicalType& type = query->columns[i].type;
    LogicalType overall = types.commonType({type, stepColumns[i].type}, "UNION", -1);
    if (overall != type && !(overall.id() == engine::TypeId::kDecimal && type.id() == engine::TypeId::kDecimal)) {
      ExpressionBinder errors(text_, std::vector<ColumnDescription>{}, parameterTypes_);
      errors.fail(SqlState::kDatatypeMismatch, selectListAt(select.larg(), i),
                  fmt::format("recursive query \"{}\" column {} has type {} in non-recursive term but type {} overall",
                              name, i + 1, typeName(columns[i].type), typeName(overall)),
                  "Cast the output of the non-recursive term to the correct type.");
    }
  }
  castTo(recursive, stepColumns, *query, types);
  castTo(nonRecursive, columns, *query, types);
  if (!select.all()) {
    dropRowsSoFar(nonRecursive, *query);
    dropRowsSoFar(recursive, *query);
  }
  query->nonRecursiveTerm = std::move(nonRecursive);
  query->recursiveTerm = std::move(recursive);
}

void QueryBinder::castTo(LogicalPlan& term, const std::vector<PlanColumn>& columns, const RecursiveQuery& query,
                         ExpressionBinder& types) {
  auto cast = std::make_unique<LogicalProject>();
  for (size_t i = 0; i < columns.size(); ++i) {
    cast->expressions.push_back(types.coerce(columnRef(columns[i]), query.columns[i].type, -1));
    cast->ids.push_back(ids_.next());
    cast->names.push_back(query.columns[i].name);
  }
  cast->children.push_back(std::move(term.root));
  term.root = std::move(cast);
}

void QueryBinder::dropRowsSoFar(LogicalPlan& term, const RecursiveQuery& query) {
  // One group per distinct row of the term and of the rows so far (NULLs equal, as UNION compares), kept when
  // no copy of it came from the rows so far.
  auto soFar = std::make_unique<LogicalMaterialized>();
  soFar->name = query.name;
  soFar->role = LogicalMaterialized::Role::kRowsSoFar;
  soFar->step = &query;
  for (const PlanColumn& column : query.columns) soFar->columns.push_back({ids_.next(), column.type, column.name});
  auto both = std::make_unique<LogicalUnionAll>();
  for (const PlanColumn& column : query.columns) both->columns.push_back({ids_.next(), column.type, column.name});
  both->columns.push_back({ids_.next(), LogicalType::integer(), "?so far?"});
  LogicalOperatorPtr sides[] = {std::move(term.root), std::move(soFar)};
  for (int side = 0; side < 2; ++side) {
    auto flagged = std::make_unique<LogicalProject>();
    for (const PlanColumn& column : sides[side]->outputColumns()) {
      flagged->expressions.push_back(columnRef(column));
      flagged->ids.push_back(ids_.next());
      flagged->names.push_back(column.name);
    }
    flagged->expressions.push_back(constantOf(engine::Value::integer(side)));
    flagged->ids.push_back(ids_.next());
    flagged->names.push_back("?so far?");
    flagged->children.push_back(std::move(sides[side]));
    both->children.push_back(std::move(flagged));
  }
  std::vector<PlanColumn> unioned = both->outputColumns();
  auto grouped = std::make_unique<LogicalAggregate>();
  std::vector<PlanColumn> output;
  for (size_t i = 0; i < query.columns.size(); ++i) {
    if (auto reason = uncomparableReason(unioned[i].type, false)) fail(reason->first, -1, reason->second);
    grouped->groups.push_back(columnRef(unioned[i]));
    grouped->groupIds.push_back(ids_.next());
    grouped->groupNames.push_back(unioned[i].name);
    output.push_back({grouped->groupIds.back(), unioned[i].type, unioned[i].name});
  }
  AggregateCall copiesSoFar;
  copiesSoFar.function = engine::AggregateFunction::kSum;
  copiesSoFar.argument = columnRef(unioned.back());
  copiesSoFar.resultType = LogicalType::bigInt();
  copiesSoFar.id = ids_.next();
  copiesSoFar.name = "?so far?";
  PlanColumn copies{copiesSoFar.id, copiesSoFar.resultType, copiesSoFar.name};
  grouped->aggregates.push_back(std::move(copiesSoFar));
  grouped->children.push_back(std::move(both));
  auto newRows = std::make_unique<LogicalFilter>();
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(columnRef(copies));
  arguments.push_back(constantOf(engine::Value::bigInt(0)));
  newRows->conditions.push_back(std::make_unique<engine::FunctionExpression>(
      engine::ScalarFunction::kEqual, std::move(arguments), LogicalType::boolean()));
  newRows->children.push_back(std::move(grouped));
  auto project = std::make_unique<LogicalProject>();
  for (const PlanColumn& column : output) {
    project->expressions.push_back(columnRef(column));
    project->ids.push_back(ids_.next());
    project->names.push_back(column.name);
  }
  project->children.push_back(std::move(newRows));
  term.root = std::move(project);
}

}  // namespace shoal::sql
