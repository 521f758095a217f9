// INSERT ... ON CONFLICT: the arbiter key, and DO UPDATE as the UPDATE statement that the coordinator runs
// over the conflicting rows once the workers have found them.

#include <pg_query.h>

#include <algorithm>
#include <set>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/binder.h"
#include "sql/binder/table_statement_binder.h"
#include "sql/parser/parsed_script.h"

namespace shoal::sql {

namespace {

pg_query::Node stringNode(const std::string& text) {
  pg_query::Node node;
  node.mutable_string()->set_sval(text);
  return node;
}

pg_query::Node columnRef(const std::string& relation, const std::string& column) {
  pg_query::Node node;
  auto* ref = node.mutable_column_ref();
  *ref->add_fields() = stringNode(relation);
  *ref->add_fields() = stringNode(column);
  ref->set_location(-1);
  return node;
}

/// The SQL text of `update`, as PostgreSQL's own deparser writes it.
std::string deparse(const pg_query::UpdateStmt& update) {
  pg_query::ParseResult tree;
  tree.set_version(PG_VERSION_NUM);
  *tree.add_stmts()->mutable_stmt()->mutable_update_stmt() = update;
  const std::string bytes = tree.SerializeAsString();
  PgQueryProtobuf protobuf{bytes.size(), const_cast<char*>(bytes.data())};
  PgQueryDeparseResult result = pg_query_deparse_protobuf(protobuf);
  struct Guard {
    PgQueryDeparseResult& result;
    ~Guard() { pg_query_free_deparse_result(result); }
  } guard{result};
  if (result.error != nullptr) {
    SHOAL_USER_FAIL(SqlState::kInternalError, "could not write ON CONFLICT DO UPDATE as an UPDATE: {}",
                    result.error->message);
  }
  return result.query;
}

}  // namespace

std::optional<OnConflict> TableStatementBinder::bindOnConflict(const pg_query::InsertStmt& insert,
                                                               const TableDescription& table) const {
  if (!insert.has_on_conflict_clause()) return std::nullopt;
  const auto& clause = insert.on_conflict_clause();
  OnConflict bound;
  bound.doUpdate = clause.action() == pg_query::ONCONFLICT_UPDATE;
  const auto noMatch = [&](int location) {
    fail(SqlState::kInvalidColumnReference, location,
         "there is no unique or exclusion constraint matching the ON CONFLICT specification");
  };
  if (clause.has_infer()) {
    const auto& infer = clause.infer();
    if (!infer.conname().empty()) {
      if (!table.primaryKey.empty() && infer.conname() == table.name + "_pkey") {
        bound.arbiterColumns = table.primaryKey;
      }
      for (const auto& key : table.uniqueKeys) {
        if (key.name == infer.conname()) bound.arbiterColumns = key.columns;
      }
      if (bound.arbiterColumns.empty()) {
        fail(SqlState::kUndefinedObject, infer.location(),
             fmt::format("constraint \"{}\" for table \"{}\" does not exist", infer.conname(), table.name));
      }
    } else {
      // The columns must be exactly a unique key's (in any order): a partial one (WHERE) Shoal has none of.
      std::set<size_t> columns;
      for (const auto& element : infer.index_elems()) {
        const auto& index = element.index_elem();
        if (index.name().empty()) noMatch(infer.location());  // an expression
        columns.insert(targetColumn(table, index.name(), infer.location()));
      }
      auto matches = [&](const std::vector<size_t>& key) {
        return !key.empty() && columns == std::set<size_t>(key.begin(), key.end());
      };
      if (infer.has_where_clause()) noMatch(infer.location());
      if (matches(table.primaryKey)) bound.arbiterColumns = table.primaryKey;
      for (const auto& key : table.uniqueKeys) {
        if (bound.arbiterColumns.empty() && matches(key.columns)) bound.arbiterColumns = key.columns;
      }
      if (bound.arbiterColumns.empty()) noMatch(infer.location());
    }
  } else if (bound.doUpdate) {
    fail(SqlState::kSyntaxError, clause.location(),
         "ON CONFLICT DO UPDATE requires inference specification or constraint name");
  }
  if (!bound.doUpdate) return bound;

  // UPDATE target [AS alias] SET ... FROM <the conflicting rows> AS excluded(columns)
  // WHERE target.key = excluded.key ... [AND (the clause's WHERE)]
  const auto& relation = insert.relation();
  const std::string target = relation.has_alias() ? relation.alias().aliasname() : relation.relname();
  pg_query::UpdateStmt update;
  *update.mutable_relation() = relation;
  // An unqualified column name is ambiguous there (42702), as it is in PostgreSQL's ON CONFLICT.
  for (const auto& item : clause.target_list()) *update.add_target_list() = item;
  auto* excluded = update.add_from_clause()->mutable_range_var();
  excluded->set_relname(std::string(kExcludedRowsPlaceholder));
  excluded->set_inh(true);
  excluded->set_relpersistence("p");
  excluded->mutable_alias()->set_aliasname("excluded");
  for (const auto& column : table.columns) *excluded->mutable_alias()->add_colnames() = stringNode(column.name);
  auto* conditions = update.mutable_where_clause()->mutable_bool_expr();
  conditions->set_boolop(pg_query::AND_EXPR);
  for (size_t column : bound.arbiterColumns) {
    auto* equal = conditions->add_args()->mutable_a_expr();
    equal->set_kind(pg_query::AEXPR_OP);
    *equal->add_name() = stringNode("=");
    *equal->mutable_lexpr() = columnRef(target, table.columns[column].name);
    *equal->mutable_rexpr() = columnRef("excluded", table.columns[column].name);
    equal->set_location(-1);
  }
  if (clause.has_where_clause()) *conditions->add_args() = clause.where_clause();
  bound.updateStatement = deparse(update);

  // Bound once now over a row of NULLs, so that a mistake in SET or WHERE fails the INSERT before any row moves.
  std::string probe = bound.updateStatement;
  std::string nulls = "(VALUES (";
  for (size_t c = 0; c < table.columns.size(); ++c) {
    nulls += fmt::format("{}CAST(NULL AS {})", c > 0 ? ", " : "", table.columns[c].type.toString());
  }
  nulls += "))";
  probe.replace(probe.find(kExcludedRowsPlaceholder), kExcludedRowsPlaceholder.size(), nulls);
  try {
    // A $n that only SET or WHERE uses gets its type here.
    const BoundStatement probed = Binder(catalog_).bind(ParsedScript::parse(probe), 0, parameterTypes_);
    if (probed.parameterTypes.size() >= parameterTypes_.size()) parameterTypes_ = probed.parameterTypes;
  } catch (const ShoalError& error) {
    // Its positions are the UPDATE's, not the statement's: point at ON CONFLICT instead.
    throw ShoalError(
        Status(error.status().sqlState(), error.status().message(), characterPosition(text_, clause.location()))
            .withDetail(error.status().detail())
            .withHint(error.status().hint()));
  }
  return bound;
}

}  // namespace shoal::sql
