// DELETE and UPDATE: the rows to change are found by a query bound as any other SELECT over the target table,
// the USING or FROM tables and the WHERE clause, so that joins and subqueries work as they do in queries. The
// target table's scan also reads each row's id (kRowIdColumn), which the plan returns first: the coordinator
// sends the ids to the workers that hold the rows.

#include <fmt/format.h>

#include <map>

#include "pg_query/pg_query.pb.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/table_statement_binder.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

namespace {

/// The scan of the target table: the leftmost scan of the plan (the first FROM item).
LogicalScan* targetScan(LogicalOperator& op) {
  if (op.kind() == LogicalOperatorKind::kScan) return static_cast<LogicalScan*>(&op);
  if (op.children.empty()) return nullptr;
  return targetScan(*op.children[0]);
}

pg_query::Node constantTrue() {
  pg_query::Node node;
  node.mutable_a_const()->mutable_boolval()->set_boolval(true);
  return node;
}

/// The first subquery in `tree`, if any.
const pg_query::SubLink* firstSubLink(const google::protobuf::Message& tree) {
  if (const auto* link = dynamic_cast<const pg_query::SubLink*>(&tree)) return link;
  const google::protobuf::Reflection* reflection = tree.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(tree, &fields);
  for (const auto* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const int count = field->is_repeated() ? reflection->FieldSize(tree, field) : 1;
    for (int i = 0; i < count; ++i) {
      const auto& child =
          field->is_repeated() ? reflection->GetRepeatedMessage(tree, field, i) : reflection->GetMessage(tree, field);
      if (const auto* link = firstSubLink(child)) return link;
    }
  }
  return nullptr;
}

/// Aggregates, window functions and set-returning functions in the statement's own expressions (SET, RETURNING)
/// put an operator between the projection and the rows it changes: refused as PostgreSQL refuses them. Those of
/// a FROM item's subquery sit under a join and stay.
void rejectGroupingOperators(const LogicalOperator& op, std::string_view clause) {
  if (op.kind() == LogicalOperatorKind::kScan || op.kind() == LogicalOperatorKind::kJoin) return;
  if (op.kind() == LogicalOperatorKind::kAggregate) {
    SHOAL_USER_FAIL(SqlState::kGroupingError, "aggregate functions are not allowed in {}", clause);
  }
  if (op.kind() == LogicalOperatorKind::kWindow) {
    SHOAL_USER_FAIL(SqlState::kWindowingError, "window functions are not allowed in {}", clause);
  }
  if (op.kind() == LogicalOperatorKind::kProjectSet) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "set-returning functions are not allowed in {}", clause);
  }
  if (!op.children.empty()) rejectGroupingOperators(*op.children[0], clause);
}

}  // namespace

/// Binds SELECT `targets` FROM `relation`, `from` WHERE `where`, with the target scan's row id put first.
static LogicalPlan bindRowsToChange(const CatalogReader& catalog, std::string_view text,
                                    std::vector<engine::LogicalType>& parameterTypes,
                                    const pg_query::RangeVar& relation,
                                    const google::protobuf::RepeatedPtrField<pg_query::Node>& from,
                                    const pg_query::Node* where, const pg_query::WithClause* with,
                                    const std::vector<pg_query::Node>& targets, std::string_view clause,
                                    ColumnIdGenerator& ids) {
  pg_query::SelectStmt select;
  select.set_op(pg_query::SETOP_NONE);
  select.set_limit_option(pg_query::LIMIT_OPTION_DEFAULT);
  *select.add_from_clause()->mutable_range_var() = relation;
  for (const auto& item : from) *select.add_from_clause() = item;
  if (where) *select.mutable_where_clause() = *where;
  if (with) *select.mutable_with_clause() = *with;
  for (const auto& target : targets) *select.add_target_list() = target;
  if (targets.empty()) {
    auto* target = select.add_target_list()->mutable_res_target();
    *target->mutable_val() = constantTrue();
  }
  QueryBinder binder(catalog, text, parameterTypes, ids);
  binder.keepUntypedOutputs();
  LogicalPlan plan = binder.bind(select);
  auto* project = dynamic_cast<LogicalProject*>(plan.root.get());
  LogicalScan* scan = targetScan(*plan.root);
  if (project == nullptr || scan == nullptr || scan->table.name != relation.relname()) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "this form of {} is not supported", "UPDATE or DELETE");
  }
  rejectGroupingOperators(*project->children[0], clause);
  PlanColumn rowId{ids.next(), engine::LogicalType::bigInt(), "ctid"};
  scan->tableColumns.push_back(kRowIdColumn);
  scan->columns.push_back(rowId);
  if (targets.empty()) {
    project->expressions.clear();
    project->ids.clear();
    project->names.clear();
    plan.columnNames.clear();
  }
  project->expressions.insert(project->expressions.begin(), columnRef(rowId));
  project->ids.insert(project->ids.begin(), ids.next());
  project->names.insert(project->names.begin(), "ctid");
  plan.columnNames.insert(plan.columnNames.begin(), "ctid");
  return plan;
}

DeleteRows TableStatementBinder::bindDelete(const pg_query::DeleteStmt& statement) {
  const auto& range = statement.relation();
  TableDescription table = findTable(range.schemaname(), range.relname(), range.location(), kAclDelete);
  std::vector<pg_query::Node> targets(statement.returning_list().begin(), statement.returning_list().end());
  DeleteRows bound;
  bound.table = {table.schema, table.name};
  bound.returning = !targets.empty();
  ColumnIdGenerator ids;
  bound.plan =
      bindRowsToChange(catalog_, text_, parameterTypes_, range, statement.using_clause(),
                       statement.has_where_clause() ? &statement.where_clause() : nullptr,
                       statement.has_with_clause() ? &statement.with_clause() : nullptr, targets, "RETURNING", ids);
  return bound;
}

UpdateRows TableStatementBinder::bindUpdate(const pg_query::UpdateStmt& statement) {
  const auto& range = statement.relation();
  TableDescription table = findTable(range.schemaname(), range.relname(), range.location(), kAclUpdate);
  const std::string alias = range.has_alias() ? range.alias().aliasname() : range.relname();
  // Every column of the table, in order: its new value where SET gives one, else the column itself.
  std::vector<const pg_query::Node*> assigned(table.columns.size(), nullptr);
  std::vector<int> locations(table.columns.size(), -1);
  for (const auto& item : statement.target_list()) {
    const auto& target = item.res_target();
    if (target.indirection_size() > 0 || target.val().has_multi_assign_ref()) {
      fail(SqlState::kFeatureNotSupported, target.location(),
           "UPDATE of a field, an array element or a column list is not supported");
    }
    const size_t index = targetColumn(table, target.name(), target.location());
    if (assigned[index]) {
      fail(SqlState::kSyntaxError, target.location(),
           fmt::format("multiple assignments to same column \"{}\"", target.name()));
    }
    assigned[index] = &target.val();
    locations[index] = target.location();
  }
  std::vector<pg_query::Node> targets;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    pg_query::Node target;
    auto* result = target.mutable_res_target();
    if (assigned[i] && assigned[i]->has_set_to_default()) {
      // DEFAULT: Shoal's columns have no defaults other than NULL.
      result->mutable_val()->mutable_a_const()->set_isnull(true);
    } else if (assigned[i]) {
      *result->mutable_val() = *assigned[i];
    } else {
      auto* column = result->mutable_val()->mutable_column_ref();
      column->add_fields()->mutable_string()->set_sval(alias);
      column->add_fields()->mutable_string()->set_sval(table.columns[i].name);
    }
    targets.push_back(std::move(target));
  }
  // RETURNING's items follow, bound in the same scope; their target columns are made the new values below. A
  // subquery there would read the old row (it is bound under the new values): refused.
  for (const auto& item : statement.returning_list()) {
    if (const auto* link = firstSubLink(item)) {
      fail(SqlState::kFeatureNotSupported, link->location(), "a subquery in UPDATE ... RETURNING is not supported");
    }
  }
  targets.insert(targets.end(), statement.returning_list().begin(), statement.returning_list().end());
  UpdateRows bound;
  bound.table = {table.schema, table.name};
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (assigned[i]) bound.assignedColumns.push_back(i);
  }
  ColumnIdGenerator ids;
  bound.plan =
      bindRowsToChange(catalog_, text_, parameterTypes_, range, statement.from_clause(),
                       statement.has_where_clause() ? &statement.where_clause() : nullptr,
                       statement.has_with_clause() ? &statement.with_clause() : nullptr, targets, "UPDATE", ids);
  // The new values under an assignment cast to their columns.
  auto* project = static_cast<LogicalProject*>(bound.plan.root.get());
  for (size_t i = 0; i < table.columns.size(); ++i) {
    project->expressions[i + 1] = assignTo(table.columns[i], std::move(project->expressions[i + 1]), locations[i]);
  }
  bound.newValueColumns = table.columns.size();
  bound.returning = statement.returning_list_size() > 0;
  if (bound.returning) {
    // RETURNING reads the new row. The new values become a projection under the root, whose outputs both the
    // root and RETURNING read in place of the target's columns: each SET expression runs once per row, so a
    // volatile one (random(), gen_random_uuid()) returns the value stored.
    const LogicalScan* scan = targetScan(*bound.plan.root);
    std::map<ColumnId, size_t> tableColumnOf;
    for (size_t k = 0; k < scan->columns.size(); ++k) {
      if (scan->tableColumns[k] != kRowIdColumn) tableColumnOf[scan->columns[k].id] = scan->tableColumns[k];
    }
    auto newValues = std::make_unique<LogicalProject>();
    for (const PlanColumn& column : project->children[0]->outputColumns()) {  // passed on under their ids
      newValues->expressions.push_back(columnRef(column));
      newValues->ids.push_back(column.id);
      newValues->names.push_back(column.name);
    }
    std::vector<PlanColumn> newColumns;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      PlanColumn column{ids.next(), project->expressions[i + 1]->type(), table.columns[i].name};
      newValues->expressions.push_back(std::move(project->expressions[i + 1]));
      newValues->ids.push_back(column.id);
      newValues->names.push_back(column.name);
      project->expressions[i + 1] = columnRef(column);
      newColumns.push_back(column);
    }
    for (size_t e = 1 + table.columns.size(); e < project->expressions.size(); ++e) {
      project->expressions[e] = remapColumns(*project->expressions[e], [&](ColumnId id) -> engine::ExpressionPtr {
        auto found = tableColumnOf.find(id);
        return found == tableColumnOf.end() ? nullptr : columnRef(newColumns[found->second]);
      });
    }
    newValues->children.push_back(std::move(project->children[0]));
    project->children[0] = std::move(newValues);
  }
  return bound;
}

}  // namespace shoal::sql
