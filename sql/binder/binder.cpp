#include "sql/binder/binder.h"

#include <algorithm>
#include <limits>
#include <map>

#include "engine/expression/cast.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/expression/sql_keywords.h"
#include "engine/types/text_format.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/comment_binder.h"
#include "sql/binder/copy_binder.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/grant_binder.h"
#include "sql/binder/privilege_checks.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/role_binder.h"
#include "sql/binder/schema_binder.h"
#include "sql/binder/search_path.h"
#include "sql/binder/table_statement_binder.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::TypeId;

namespace {

/// SELECT set_config('name', 'value', is_local) and nothing else, with constants: the one form of set_config()
/// Shoal runs, as a SET that returns the new value (pg_dump and drivers use it so). nullopt for any other query.
std::optional<SetVariable> bindSetConfig(const pg_query::SelectStmt& select) {
  if (select.target_list_size() != 1 || select.from_clause_size() != 0 || select.has_where_clause() ||
      select.op() != pg_query::SETOP_NONE || select.sort_clause_size() != 0 || select.has_limit_count() ||
      select.group_clause_size() != 0 || select.has_having_clause() || select.has_with_clause() ||
      select.distinct_clause_size() != 0) {
    return std::nullopt;
  }
  const auto& target = select.target_list(0).res_target();
  if (!target.val().has_func_call()) return std::nullopt;
  const auto& call = target.val().func_call();
  if (call.funcname().empty() || call.funcname().rbegin()->string().sval() != "set_config" || call.args_size() != 3) {
    return std::nullopt;
  }
  auto constantText = [](const pg_query::Node& argument) -> std::optional<std::string> {
    if (!argument.has_a_const()) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "set_config()'s arguments must be constants");
    }
    const auto& value = argument.a_const();
    if (value.isnull()) return std::nullopt;
    if (value.has_sval()) return value.sval().sval();
    if (value.has_boolval()) return value.boolval().boolval() ? "true" : "false";
    SHOAL_USER_FAIL(SqlState::kUndefinedFunction, "function set_config with these argument types does not exist");
  };
  std::optional<std::string> name = constantText(call.args(0));
  if (!name) SHOAL_USER_FAIL(SqlState::kNullValueNotAllowed, "NULL value not allowed");
  std::optional<std::string> local = constantText(call.args(2));
  return SetVariable{*name, constantText(call.args(1)), target.name().empty() ? "set_config" : target.name(),
                     local && engine::parseBoolean(*local)};
}

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

/// "UPDATE" for UpdateStmt: what the user wrote, not the parse tree's node name.
std::string statementName(const std::string& node) {
  static const std::map<std::string, std::string, std::less<>> kNames = {{"UpdateStmt", "UPDATE"},
                                                                         {"DeleteStmt", "DELETE"},
                                                                         {"MergeStmt", "MERGE"},
                                                                         {"AlterTableStmt", "ALTER TABLE"},
                                                                         {"IndexStmt", "CREATE INDEX"},
                                                                         {"CreateSchemaStmt", "CREATE SCHEMA"},
                                                                         {"CreateTableAsStmt", "CREATE TABLE AS"},
                                                                         {"PrepareStmt", "PREPARE"},
                                                                         {"ExecuteStmt", "EXECUTE"},
                                                                         {"GrantStmt", "GRANT"},
                                                                         {"CreateFunctionStmt", "CREATE FUNCTION"},
                                                                         {"CreateSeqStmt", "CREATE SEQUENCE"},
                                                                         {"RenameStmt", "ALTER ... RENAME"},
                                                                         {"DeclareCursorStmt", "DECLARE CURSOR"},
                                                                         {"FetchStmt", "FETCH"},
                                                                         {"ListenStmt", "LISTEN"},
                                                                         {"NotifyStmt", "NOTIFY"},
                                                                         {"LockStmt", "LOCK"},
                                                                         {"VacuumStmt", "VACUUM/ANALYZE"},
                                                                         {"CommentStmt", "COMMENT"},
                                                                         {"DoStmt", "DO"}};
  auto found = kNames.find(node);
  if (found != kNames.end()) return found->second;
  std::string name = node.ends_with("Stmt") ? node.substr(0, node.size() - 4) : node;
  return "statement " + name;
}

/// Whether the plan scans a table or view in a temporary schema (views are expanded into their scans).
bool readsTemporaryRelation(const LogicalOperator& node) {
  if (const auto* scan = dynamic_cast<const LogicalScan*>(&node); scan != nullptr) {
    if (isTemporarySchema(scan->table.schema)) return true;
  }
  return std::any_of(node.children.begin(), node.children.end(),
                     [](const auto& child) { return readsTemporaryRelation(*child); });
}

}  // namespace

BoundStatement Binder::bind(const ParsedScript& script, size_t statementIndex,
                            std::vector<LogicalType> declaredParameterTypes,
                            std::span<const engine::Value> parameterValues) const {
  const pg_query::Node& node = script.statement(statementIndex);
  BoundStatement bound;
  bound.parameterTypes = std::move(declaredParameterTypes);
  switch (node.node_case()) {
    case pg_query::Node::kSelectStmt: {
      if (node.select_stmt().has_into_clause()) {
        bound.command = TableStatementBinder(catalog_, script.text(), bound.parameterTypes)
                            .bindCreateTableAs(node.select_stmt().into_clause(), node.select_stmt(), false);
        bound.commandTag = "SELECT";
        break;
      }
      if (auto setConfig = bindSetConfig(node.select_stmt())) {
        bound.command = std::move(*setConfig);
        bound.commandTag = "SELECT";
        break;
      }
      bound.command =
          BoundQuery{bindQuery(script.text(), node.select_stmt(), bound.parameterTypes, parameterValues), std::nullopt};
      bound.commandTag = "SELECT";
      break;
    }
    case pg_query::Node::kExplainStmt: {
      const auto& explain = node.explain_stmt();
      Explain command;
      for (const auto& option : explain.options()) {
        const std::string& name = option.def_elem().defname();
        bool enabled = !option.def_elem().has_arg() || settingValueText(option.def_elem().arg()) != "off";
        if (name == "verbose") {
          command.verbose = enabled;
        } else if (name == "analyze") {
          command.analyze = enabled;
        } else if (name != "costs") {
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "EXPLAIN option \"{}\" is not supported", name);
        }
      }
      if (explain.query().has_insert_stmt()) {
        auto insert = TableStatementBinder(catalog_, script.text(), bound.parameterTypes)
                          .bindInsert(explain.query().insert_stmt());
        auto* insertSelect = std::get_if<InsertSelect>(&insert);
        if (command.analyze)
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "EXPLAIN ANALYZE of INSERT is not supported yet");
        if (insertSelect == nullptr) {
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "EXPLAIN of INSERT ... VALUES is not supported yet");
        }
        command.plan = std::move(insertSelect->plan);
        command.insertInto = insertSelect->table;
      } else if (!explain.query().has_select_stmt()) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "EXPLAIN works on queries and INSERT ... SELECT only");
      } else {
        command.plan = bindQuery(script.text(), explain.query().select_stmt(), bound.parameterTypes, parameterValues);
      }
      bound.command = std::move(command);
      bound.commandTag = "EXPLAIN";
      break;
    }
    case pg_query::Node::kViewStmt: {
      const auto& view = node.view_stmt();
      if (!view.query().has_select_stmt()) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "a view must be a query");
      CreateView command;
      auto nameTheView = [&](bool temporary) {
        try {
          command.name = temporary ? temporaryCreationName(catalog_, view.view().schemaname(), view.view().relname())
                                   : creationName(catalog_, view.view().schemaname(), view.view().relname());
        } catch (const ShoalError& error) {
          SHOAL_USER_FAIL_AT(error.status().sqlState(), characterPosition(script.text(), view.view().location()), "{}",
                             error.status().message());
        }
        if (!isTemporarySchema(command.name.schema)) {
          requireSchemaPrivilege(catalog_, command.name.schema, kAclCreate, script.text(), view.view().location());
        }
      };
      nameTheView(view.view().relpersistence() == "t");
      command.searchPath = catalog_.searchPathSetting();
      command.orReplace = view.replace();
      for (const auto& alias : view.aliases()) command.columnNames.push_back(alias.string().sval());
      // The catalog keeps the whole CREATE VIEW statement; binding its query once checks it.
      std::string_view statement = script.statementText(statementIndex);
      ColumnIdGenerator ids;
      // The catalog keeps the text and binds it anew at each use, so a reference to the view itself (even
      // through other views) would expand forever: refused here, as PostgreSQL refuses recursive rules.
      const std::string selfName = command.name.toString();
      ViewExpansion self{selfName, nullptr};
      QueryBinder queryBinder(catalog_, script.text(), bound.parameterTypes, ids, nullptr, nullptr, &self);
      LogicalPlan plan = queryBinder.bind(view.query().select_stmt());
      if (command.columnNames.size() > plan.columnNames.size()) {
        SHOAL_USER_FAIL(SqlState::kSyntaxError, "CREATE VIEW specifies more column names than columns");
      }
      if (!bound.parameterTypes.empty()) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "a view cannot use parameters");
      }
      // A view over a temporary relation would outlive it: PostgreSQL makes such a view temporary too.
      if (!isTemporarySchema(command.name.schema) && readsTemporaryRelation(*plan.root)) {
        nameTheView(true);
        command.becameTemporary = true;
      }
      command.query = std::string(statement);
      bound.command = std::move(command);
      bound.commandTag = "CREATE VIEW";
      break;
    }
    case pg_query::Node::kTransactionStmt: {
      const auto& transaction = node.transaction_stmt();
      switch (transaction.kind()) {
        case pg_query::TRANS_STMT_BEGIN:
        case pg_query::TRANS_STMT_START: {
          TransactionCommand begin{TransactionAction::kBegin, {}, {}};
          for (const auto& option : transaction.options()) {
            if (option.has_def_elem() && option.def_elem().defname() == "transaction_isolation") {
              begin.isolation = settingValueText(option.def_elem().arg());
            }
          }
          bound.command = std::move(begin);
          bound.commandTag = transaction.kind() == pg_query::TRANS_STMT_BEGIN ? "BEGIN" : "START TRANSACTION";
          break;
        }
        case pg_query::TRANS_STMT_COMMIT:
          bound.command = TransactionCommand{TransactionAction::kCommit, {}, {}};
          bound.commandTag = "COMMIT";
          break;
        case pg_query::TRANS_STMT_ROLLBACK:
          bound.command = TransactionCommand{TransactionAction::kRollback, {}, {}};
          bound.commandTag = "ROLLBACK";
          break;
        case pg_query::TRANS_STMT_SAVEPOINT:
          bound.command = TransactionCommand{TransactionAction::kSavepoint, transaction.savepoint_name(), {}};
          bound.commandTag = "SAVEPOINT";
          break;
        case pg_query::TRANS_STMT_RELEASE:
          bound.command = TransactionCommand{TransactionAction::kRelease, transaction.savepoint_name(), {}};
          bound.commandTag = "RELEASE";
          break;
        case pg_query::TRANS_STMT_ROLLBACK_TO:
          bound.command = TransactionCommand{TransactionAction::kRollbackTo, transaction.savepoint_name(), {}};
          bound.commandTag = "ROLLBACK";
          break;
        default:
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "two-phase commit is not supported");
      }
      break;
    }
    case pg_query::Node::kVariableSetStmt: {
      const auto& set = node.variable_set_stmt();
      if (set.kind() == pg_query::VAR_SET_MULTI &&
          (set.name() == "TRANSACTION" || set.name() == "SESSION CHARACTERISTICS")) {
        // SET TRANSACTION ISOLATION LEVEL ... (this transaction), SET SESSION CHARACTERISTICS AS TRANSACTION ...
        // (the default of the next ones): settings of their own, as in PostgreSQL.
        SetVariable command{set.name() == "TRANSACTION" ? "transaction_isolation" : "default_transaction_isolation",
                            std::nullopt, std::nullopt, false};
        for (const auto& argument : set.args()) {
          if (argument.has_def_elem() && argument.def_elem().defname() == "transaction_isolation") {
            command.value = settingValueText(argument.def_elem().arg());
          }
        }
        if (!command.value)
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "SET {} supports ISOLATION LEVEL only", set.name());
        bound.command = std::move(command);
        bound.commandTag = "SET";
        break;
      }
      SetVariable command{set.name(), std::nullopt, std::nullopt, set.is_local()};
      if (set.kind() == pg_query::VAR_SET_VALUE) {
        std::string value;
        // search_path is a list of names: each quoted where it must be, as PostgreSQL shows it ('' as "").
        const bool nameList = set.name() == "search_path";
        for (const auto& argument : set.args()) {
          std::string text = settingValueText(argument);
          if (nameList) text = text.empty() ? "\"\"" : engine::quoteIdentifier(text);
          value += (value.empty() ? "" : ", ") + text;
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
    case pg_query::Node::kCreateTableAsStmt: {
      const auto& create = node.create_table_as_stmt();
      if (create.objtype() != pg_query::OBJECT_TABLE) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "materialized views are not supported yet");
      }
      if (!create.query().has_select_stmt()) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "CREATE TABLE AS EXECUTE is not supported yet");
      }
      bound.command = TableStatementBinder(catalog_, script.text(), bound.parameterTypes)
                          .bindCreateTableAs(create.into(), create.query().select_stmt(), create.if_not_exists());
      bound.commandTag = "SELECT";
      break;
    }
    case pg_query::Node::kCreateSchemaStmt:
      bound.command = bindCreateSchema(node.create_schema_stmt(), catalog_);
      bound.commandTag = "CREATE SCHEMA";
      break;
    case pg_query::Node::kCreateRoleStmt:
      bound.command = bindCreateRole(node.create_role_stmt());
      bound.commandTag = "CREATE ROLE";
      break;
    case pg_query::Node::kAlterRoleStmt:
      bound.command = bindAlterRole(node.alter_role_stmt(), catalog_);
      bound.commandTag = "ALTER ROLE";
      break;
    case pg_query::Node::kDropRoleStmt:
      bound.command = bindDropRole(node.drop_role_stmt(), catalog_);
      bound.commandTag = "DROP ROLE";
      break;
    case pg_query::Node::kGrantStmt:
      bound.command = bindGrant(node.grant_stmt(), catalog_);
      bound.commandTag = node.grant_stmt().is_grant() ? "GRANT" : "REVOKE";
      break;
    case pg_query::Node::kGrantRoleStmt:
      bound.command = bindGrantRole(node.grant_role_stmt(), catalog_);
      bound.commandTag = node.grant_role_stmt().is_grant() ? "GRANT ROLE" : "REVOKE ROLE";
      break;
    case pg_query::Node::kDropStmt:
      if (node.drop_stmt().remove_type() == pg_query::OBJECT_SCHEMA) {
        bound.command = bindDropSchema(node.drop_stmt());
        bound.commandTag = "DROP SCHEMA";
        break;
      }
      if (node.drop_stmt().remove_type() == pg_query::OBJECT_VIEW) {
        DropView command;
        command.ifExists = node.drop_stmt().missing_ok();
        for (const auto& object : node.drop_stmt().objects()) {
          command.names.push_back(droppedRelationName(object.list(), catalog_));
        }
        bound.command = std::move(command);
        bound.commandTag = "DROP VIEW";
        break;
      }
      bound.command = TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindDrop(node.drop_stmt());
      bound.commandTag = "DROP TABLE";
      break;
    case pg_query::Node::kAlterTableStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindAlterColumns(node.alter_table_stmt());
      bound.commandTag = "ALTER TABLE";
      break;
    case pg_query::Node::kRenameStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindRename(node.rename_stmt());
      bound.commandTag = "ALTER TABLE";
      break;
    case pg_query::Node::kTruncateStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindTruncate(node.truncate_stmt());
      bound.commandTag = "TRUNCATE TABLE";
      break;
    case pg_query::Node::kInsertStmt:
      std::visit([&](auto&& command) { bound.command = std::move(command); },
                 TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindInsert(node.insert_stmt()));
      bound.commandTag = "INSERT 0";
      break;
    case pg_query::Node::kDeleteStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindDelete(node.delete_stmt());
      bound.commandTag = "DELETE";
      break;
    case pg_query::Node::kUpdateStmt:
      bound.command =
          TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindUpdate(node.update_stmt());
      bound.commandTag = "UPDATE";
      break;
    case pg_query::Node::kCopyStmt:
      std::visit([&](auto&& command) { bound.command = std::move(command); },
                 CopyBinder(catalog_, script.text(), bound.parameterTypes).bind(node.copy_stmt()));
      bound.commandTag = "COPY";
      break;
    case pg_query::Node::kCommentStmt:
      bound.command = bindComment(node.comment_stmt(), catalog_);
      bound.commandTag = "COMMENT";
      break;
    case pg_query::Node::kCallStmt:
      bound.command = TableStatementBinder(catalog_, script.text(), bound.parameterTypes).bindCall(node.call_stmt());
      bound.commandTag = "CALL";
      break;
    case pg_query::Node::kDeallocateStmt:
      bound.command = Deallocate{node.deallocate_stmt().name(), false};
      bound.commandTag = "DEALLOCATE";
      if (node.deallocate_stmt().name().empty()) bound.commandTag = "DEALLOCATE ALL";
      break;
    case pg_query::Node::kDiscardStmt:
      if (node.discard_stmt().target() != pg_query::DISCARD_ALL &&
          node.discard_stmt().target() != pg_query::DISCARD_PLANS) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "only DISCARD ALL and DISCARD PLANS are supported");
      }
      bound.command = Deallocate{"", node.discard_stmt().target() == pg_query::DISCARD_ALL};
      bound.commandTag = node.discard_stmt().target() == pg_query::DISCARD_ALL ? "DISCARD ALL" : "DISCARD PLANS";
      break;
    case pg_query::Node::kPrepareStmt: {
      const auto& prepare = node.prepare_stmt();
      std::vector<ColumnDescription> none;
      ExpressionBinder types(script.text(), none, bound.parameterTypes);
      std::vector<LogicalType> declared;
      for (const auto& type : prepare.argtypes()) declared.push_back(types.typeFromName(type.type_name()));
      auto statement = std::make_shared<BoundStatement>(bindPreparable(script.text(), prepare.query(), declared));
      bound.command = PrepareStatement{prepare.name(), std::move(statement)};
      bound.commandTag = "PREPARE";
      break;
    }
    case pg_query::Node::kExecuteStmt: {
      ExecuteStatement command{node.execute_stmt().name(), {}};
      std::vector<ColumnDescription> none;
      ExpressionBinder arguments(script.text(), none, bound.parameterTypes);
      for (const auto& argument : node.execute_stmt().params()) {
        // EXECUTE is a utility statement: PostgreSQL gives its arguments no parameters of their own.
        if (argument.has_param_ref()) {
          SHOAL_USER_FAIL_AT(SqlState::kUndefinedParameter,
                             characterPosition(script.text(), argument.param_ref().location()),
                             "there is no parameter ${}", argument.param_ref().number());
        }
        command.arguments.push_back(arguments.bind(argument));
        if (!bound.parameterTypes.empty()) {
          SHOAL_USER_FAIL(SqlState::kUndefinedParameter, "there is no parameter $1");
        }
      }
      bound.command = std::move(command);
      bound.commandTag = "EXECUTE";  // the tag is the prepared statement's when it runs
      break;
    }
    case pg_query::Node::kDeclareCursorStmt: {
      const auto& declare = node.declare_cursor_stmt();
      // PostgreSQL's CURSOR_OPT_* bits (parsenodes.h).
      constexpr int kBinary = 0x1, kScroll = 0x2, kHold = 0x20;
      if (declare.options() & kScroll)
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "SCROLL cursors are not supported yet");
      if (declare.options() & kBinary)
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "BINARY cursors are not supported yet");
      if (!declare.query().has_select_stmt())
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "a cursor must be a query");
      DeclareCursor command{declare.portalname(), {}, (declare.options() & kHold) != 0};
      command.plan = bindQuery(script.text(), declare.query().select_stmt(), bound.parameterTypes, parameterValues);
      bound.command = std::move(command);
      bound.commandTag = "DECLARE CURSOR";
      break;
    }
    case pg_query::Node::kFetchStmt: {
      const auto& fetch = node.fetch_stmt();
      constexpr int64_t kFetchAll = std::numeric_limits<int64_t>::max();  // PostgreSQL's FETCH_ALL
      if (fetch.direction() == pg_query::FETCH_BACKWARD) {
        throw ShoalError(Status(SqlState::kObjectNotInPrerequisiteState, "cursor can only scan forward")
                             .withHint("Declare it with SCROLL option to enable backward scan."));
      }
      if (fetch.direction() != pg_query::FETCH_FORWARD || fetch.how_many() <= 0) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                        "only FETCH FORWARD n, NEXT and ALL are supported yet (ABSOLUTE, RELATIVE and 0 are not)");
      }
      std::optional<uint64_t> count;
      if (fetch.how_many() != kFetchAll) count = static_cast<uint64_t>(fetch.how_many());
      bound.command = FetchCursor{fetch.portalname(), count, fetch.ismove()};
      bound.commandTag = fetch.ismove() ? "MOVE" : "FETCH";
      break;
    }
    case pg_query::Node::kClosePortalStmt:
      bound.command = CloseCursor{node.close_portal_stmt().portalname()};
      bound.commandTag = node.close_portal_stmt().portalname().empty() ? "CLOSE CURSOR ALL" : "CLOSE CURSOR";
      break;
    case pg_query::Node::kVariableShowStmt:
      bound.command = ShowVariable{node.variable_show_stmt().name()};
      bound.commandTag = "SHOW";
      break;
    default: {
      const auto* field = node.GetDescriptor()->FindFieldByNumber(node.node_case());
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "{} is not supported yet",
                      statementName(field ? field->message_type()->name() : "?"));
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

LogicalPlan Binder::bindQuery(std::string_view text, const pg_query::SelectStmt& select,
                              std::vector<LogicalType>& parameterTypes,
                              std::span<const engine::Value> parameterValues) const {
  ColumnIdGenerator ids;
  QueryBinder queryBinder(catalog_, text, parameterTypes, ids);
  queryBinder.useParameterValues(parameterValues);
  return queryBinder.bind(select);
}

BoundStatement Binder::bindPrepared(const ParsedScript& script, size_t statementIndex,
                                    std::vector<LogicalType> declaredParameterTypes,
                                    std::span<const engine::Value> parameterValues) const {
  return bindPreparable(script.text(), script.statement(statementIndex).prepare_stmt().query(),
                        std::move(declaredParameterTypes), parameterValues);
}

BoundStatement Binder::bindPreparable(std::string_view text, const pg_query::Node& query,
                                      std::vector<LogicalType> declaredParameterTypes,
                                      std::span<const engine::Value> parameterValues) const {
  BoundStatement bound;
  bound.parameterTypes = std::move(declaredParameterTypes);
  if (query.has_select_stmt()) {
    bound.command =
        BoundQuery{bindQuery(text, query.select_stmt(), bound.parameterTypes, parameterValues), std::nullopt};
    bound.commandTag = "SELECT";
  } else if (query.has_insert_stmt()) {
    std::visit([&](auto&& command) { bound.command = std::move(command); },
               TableStatementBinder(catalog_, text, bound.parameterTypes).bindInsert(query.insert_stmt()));
    bound.commandTag = "INSERT 0";
  } else {
    const auto* field = query.GetDescriptor()->FindFieldByNumber(query.node_case());
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "PREPARE of {} is not supported yet",
                    statementName(field ? field->message_type()->name() : "?"));
  }
  for (auto& type : bound.parameterTypes) {
    if (type.id() == TypeId::kUnknown) type = LogicalType::text();
  }
  return bound;
}

}  // namespace shoal::sql
