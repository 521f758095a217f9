#include "sql/binder/binder.h"

#include "engine/expression/cast.h"
#include "engine/expression/expression_evaluator.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/table_statement_binder.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;

namespace {

/// Binds SELECT lists, FROM and WHERE of the one-table SELECTs the skeleton runs.
class SelectBinder {
 public:
  SelectBinder(const CatalogReader& catalog, std::string_view text, std::vector<LogicalType>& parameterTypes)
      : catalog_(catalog), text_(text), parameterTypes_(parameterTypes) {}

  BoundSelect bind(const pg_query::SelectStmt& select) {
    rejectUnsupportedClauses(select);
    BoundSelect bound;
    if (select.from_clause_size() > 0) {
      bound.from = bindFrom(select);
      columns_ = bound.from->columns;
    }
    ExpressionBinder binder(text_, columns_, parameterTypes_);
    binder.collectAggregates(&bound.aggregates);
    bool hasStar = false;
    for (const auto& targetNode : select.target_list()) {
      const auto& target = targetNode.res_target();
      const auto& value = target.val();
      if (value.has_column_ref() && value.column_ref().fields().rbegin()->has_a_star()) {
        if (!bound.from) {
          binder.fail(SqlState::kSyntaxError, target.location(), "SELECT * with no tables specified is not valid");
        }
        hasStar = true;
        for (size_t index = 0; index < columns_.size(); ++index) {
          bound.projections.push_back(
              std::make_unique<engine::ColumnRefExpression>(index, columns_[index].type, columns_[index].name));
          bound.columnNames.push_back(columns_[index].name);
        }
        continue;
      }
      bound.projections.push_back(binder.resolveUnknown(binder.bind(value), target.location()));
      bound.columnNames.push_back(target.name().empty() ? ExpressionBinder::columnNameOf(value) : target.name());
    }
    if (!bound.aggregates.empty() && (hasStar || binder.firstBareColumnLocation() >= 0)) {
      std::string column = hasStar && !columns_.empty() ? columns_[0].name : binder.firstBareColumnName();
      binder.fail(
          SqlState::kGroupingError, hasStar ? -1 : binder.firstBareColumnLocation(),
          fmt::format("column \"{}\" must appear in the GROUP BY clause or be used in an aggregate function", column));
    }
    if (select.has_where_clause()) {
      ExpressionBinder whereBinder(text_, columns_, parameterTypes_);
      ExpressionPtr where = whereBinder.bind(select.where_clause());
      // The WHERE keyword is not in the tree; point at the condition itself.
      int location = ExpressionBinder::locationOf(select.where_clause());
      if (where->type().id() == TypeId::kUnknown) {
        where = whereBinder.coerce(std::move(where), LogicalType::boolean(), location);
      }
      if (where->type().id() != TypeId::kBoolean) {
        whereBinder.fail(SqlState::kDatatypeMismatch, location,
                         fmt::format("argument of WHERE must be type boolean, not type {}", where->type().toString()));
      }
      bound.where = std::move(where);
    }
    if (select.has_limit_count()) {
      bound.limit = bindLimit(binder, select.limit_count(), "LIMIT");
    }
    if (select.has_limit_offset()) {
      bound.offset = bindLimit(binder, select.limit_offset(), "OFFSET").value_or(0);
    }
    return bound;
  }

 private:
  void rejectUnsupportedClauses(const pg_query::SelectStmt& select) {
    ExpressionBinder binder(text_, columns_, parameterTypes_);
    auto reject = [&](bool present, std::string_view clause) {
      if (present) {
        binder.fail(SqlState::kFeatureNotSupported, -1, fmt::format("{} is not supported yet", clause));
      }
    };
    reject(select.op() != pg_query::SETOP_NONE, "UNION, INTERSECT and EXCEPT are");
    reject(select.values_lists_size() > 0, "VALUES");
    reject(select.has_with_clause(), "WITH");
    reject(select.distinct_clause_size() > 0, "SELECT DISTINCT");
    reject(select.has_into_clause(), "SELECT INTO");
    reject(select.group_clause_size() > 0, "GROUP BY");
    reject(select.has_having_clause(), "HAVING");
    reject(select.window_clause_size() > 0, "WINDOW");
    reject(select.sort_clause_size() > 0, "ORDER BY");
    reject(select.locking_clause_size() > 0, "FOR UPDATE/SHARE");
  }

  TableDescription bindFrom(const pg_query::SelectStmt& select) {
    ExpressionBinder binder(text_, columns_, parameterTypes_);
    if (select.from_clause_size() > 1 || !select.from_clause(0).has_range_var()) {
      binder.fail(SqlState::kFeatureNotSupported, -1, "joins and subqueries in FROM are not supported yet");
    }
    const auto& range = select.from_clause(0).range_var();
    if (auto table = catalog_.findTable(range.relname()); table && range.schemaname().empty()) {
      return *table;
    }
    std::string name = range.schemaname().empty() ? range.relname() : range.schemaname() + "." + range.relname();
    binder.fail(SqlState::kUndefinedTable, range.location(), fmt::format("relation \"{}\" does not exist", name));
  }

  std::optional<int64_t> bindLimit(ExpressionBinder& binder, const pg_query::Node& node, std::string_view clause) {
    ExpressionPtr expression = binder.bind(node);
    int location = ExpressionBinder::locationOf(node);
    if (expression->kind() != engine::ExpressionKind::kConstant) {
      binder.fail(SqlState::kFeatureNotSupported, location, fmt::format("{} must be a constant", clause));
    }
    expression = binder.coerce(std::move(expression), LogicalType::bigInt(), location);
    engine::ExpressionEvaluator evaluator;
    engine::Vector value = evaluator.evaluate(*expression, engine::Chunk(1));
    if (value.isNull(0)) {
      return std::nullopt;
    }
    int64_t count = value.data<int64_t>()[0];
    if (count < 0) {
      binder.fail(SqlState::kInvalidParameterValue, location, fmt::format("{} must not be negative", clause));
    }
    return count;
  }

  const CatalogReader& catalog_;
  std::string_view text_;
  std::vector<LogicalType>& parameterTypes_;
  std::vector<ColumnDescription> columns_;
};

std::string settingValueText(const pg_query::Node& node) {
  if (node.has_a_const()) {
    const auto& constant = node.a_const();
    if (constant.has_sval()) return constant.sval().sval();
    if (constant.has_ival()) return std::to_string(constant.ival().ival());
    if (constant.has_fval()) return constant.fval().fval();
    if (constant.has_boolval()) return constant.boolval().boolval() ? "on" : "off";
  }
  if (node.has_type_cast()) return settingValueText(node.type_cast().arg());
  return "";
}

}  // namespace

BoundStatement Binder::bind(const ParsedScript& script, size_t statementIndex,
                            std::vector<LogicalType> declaredParameterTypes) const {
  const pg_query::Node& node = script.statement(statementIndex);
  BoundStatement bound;
  bound.parameterTypes = std::move(declaredParameterTypes);
  switch (node.node_case()) {
    case pg_query::Node::kSelectStmt: {
      SelectBinder selectBinder(catalog_, script.text(), bound.parameterTypes);
      bound.command = selectBinder.bind(node.select_stmt());
      bound.commandTag = "SELECT";
      break;
    }
    case pg_query::Node::kTransactionStmt: {
      const auto& transaction = node.transaction_stmt();
      switch (transaction.kind()) {
        case pg_query::TRANS_STMT_BEGIN:
          bound.command = TransactionCommand{TransactionAction::kBegin};
          bound.commandTag = "BEGIN";
          break;
        case pg_query::TRANS_STMT_START:
          bound.command = TransactionCommand{TransactionAction::kBegin};
          bound.commandTag = "START TRANSACTION";
          break;
        case pg_query::TRANS_STMT_COMMIT:
          bound.command = TransactionCommand{TransactionAction::kCommit};
          bound.commandTag = "COMMIT";
          break;
        case pg_query::TRANS_STMT_ROLLBACK:
          bound.command = TransactionCommand{TransactionAction::kRollback};
          bound.commandTag = "ROLLBACK";
          break;
        default:
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "savepoints and two-phase commit are not supported");
      }
      break;
    }
    case pg_query::Node::kVariableSetStmt: {
      const auto& set = node.variable_set_stmt();
      SetVariable command{set.name(), std::nullopt};
      if (set.kind() == pg_query::VAR_SET_VALUE) {
        std::string value;
        for (const auto& argument : set.args()) {
          value += (value.empty() ? "" : ", ") + settingValueText(argument);
        }
        command.value = value;
      }
      bound.command = std::move(command);
      bound.commandTag = set.kind() == pg_query::VAR_RESET || set.kind() == pg_query::VAR_RESET_ALL ? "RESET" : "SET";
      break;
    }
    case pg_query::Node::kCreateStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindCreate(node.create_stmt());
      bound.commandTag = "CREATE TABLE";
      break;
    case pg_query::Node::kDropStmt:
      bound.command = TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindDrop(node.drop_stmt());
      bound.commandTag = "DROP TABLE";
      break;
    case pg_query::Node::kTruncateStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindTruncate(node.truncate_stmt());
      bound.commandTag = "TRUNCATE TABLE";
      break;
    case pg_query::Node::kInsertStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindInsert(node.insert_stmt());
      bound.commandTag = "INSERT 0";
      break;
    case pg_query::Node::kCopyStmt:
      bound.command = TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindCopy(node.copy_stmt());
      bound.commandTag = "COPY";
      break;
    case pg_query::Node::kCallStmt:
      bound.command = TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindCall(node.call_stmt());
      bound.commandTag = "CALL";
      break;
    case pg_query::Node::kVariableShowStmt:
      bound.command = ShowVariable{node.variable_show_stmt().name()};
      bound.commandTag = "SHOW";
      break;
    default: {
      const auto* field = node.GetDescriptor()->FindFieldByNumber(node.node_case());
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "statement {} is not supported yet",
                      field ? field->message_type()->name() : "?");
    }
  }
  // Parameters nothing gave a type to are text, as PostgreSQL resolves them.
  for (auto& type : bound.parameterTypes) {
    if (type.id() == TypeId::kUnknown) {
      type = LogicalType::text();
    }
  }
  return bound;
}

}  // namespace shoal::sql
