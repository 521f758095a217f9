#include "sql/binder/table_statement_binder.h"

#include <fmt/format.h>

#include <set>

#include "common/status.h"
#include "engine/expression/cast.h"

#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/privilege_checks.h"
#include "sql/binder/schema_binder.h"
#include "sql/binder/search_path.h"
#include "sql/binder/statement_options.h"

namespace shoal::sql {

using engine::LogicalType;

namespace {

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(std::string_view text) {
  size_t begin = text.find_first_not_of(' ');
  size_t end = text.find_last_not_of(' ');
  return begin == std::string_view::npos ? "" : std::string(text.substr(begin, end - begin + 1));
}

}  // namespace

void TableStatementBinder::fail(std::string_view sqlState, int location, std::string message) const {
  std::vector<ColumnDescription> none;
  ExpressionBinder(text_, none, parameterTypes_).fail(sqlState, location, std::move(message));
}

TableDescription TableStatementBinder::findTable(const std::string& schema, const std::string& name, int location,
                                                 AclMode wanted) const {
  // A missing schema is a missing relation here (42P01), as PostgreSQL reports it.
  std::optional<QualifiedName> resolved = resolveRelation(catalog_, schema, name);
  if (resolved && isSystemSchema(resolved->schema)) {
    fail(SqlState::kInsufficientPrivilege, location, fmt::format("permission denied for table {}", name));
  }
  if (resolved && catalog_.findView(*resolved)) {
    fail(SqlState::kFeatureNotSupported, location, fmt::format("cannot change view \"{}\": views are read-only", name));
  }
  if (resolved) {
    if (auto table = catalog_.findTable(*resolved)) {
      requireRelationPrivilege(catalog_, *resolved, wanted, false, text_, location);
      return *table;
    }
  }
  fail(SqlState::kUndefinedTable, location,
       fmt::format("relation \"{}\" does not exist", schema.empty() ? name : schema + "." + name));
}

QualifiedName TableStatementBinder::bindCreationName(const pg_query::RangeVar& relation) const {
  QualifiedName name;
  try {
    name = relation.relpersistence() == "t" ? temporaryCreationName(catalog_, relation.schemaname(), relation.relname())
                                            : creationName(catalog_, relation.schemaname(), relation.relname());
  } catch (const ShoalError& error) {
    fail(error.status().sqlState(), relation.location(), error.status().message());
  }
  // Every role may create temporary relations (PostgreSQL's TEMP privilege, granted to PUBLIC).
  if (!isTemporarySchema(name.schema)) {
    requireSchemaPrivilege(catalog_, name.schema, kAclCreate, text_, relation.location());
  }
  return name;
}

void TableStatementBinder::bindOnCommit(int action, int location) const {
  // Without transactions (every statement commits alone), ON COMMIT DROP would drop the table as it is made.
  if (action == pg_query::ONCOMMIT_DROP || action == pg_query::ONCOMMIT_DELETE_ROWS) {
    fail(SqlState::kFeatureNotSupported, location, "ON COMMIT DROP and ON COMMIT DELETE ROWS are not supported yet");
  }
}

std::pair<ColumnDescription, bool> TableStatementBinder::bindColumnDefinition(const pg_query::ColumnDef& column,
                                                                              std::vector<DeclaredKey>* keys) const {
  std::vector<ColumnDescription> none;
  ExpressionBinder typeBinder(text_, none, parameterTypes_);
  LogicalType type = typeBinder.typeFromName(column.type_name());
  if (type.id() == engine::TypeId::kUnknown) type = LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 10);
  bool notNull = column.is_not_null();
  for (const auto& constraintNode : column.constraints()) {
    const auto& constraint = constraintNode.constraint();
    switch (constraint.contype()) {
      case pg_query::CONSTR_NOTNULL:
        notNull = true;
        break;
      case pg_query::CONSTR_NULL:
        break;
      case pg_query::CONSTR_PRIMARY:
      case pg_query::CONSTR_UNIQUE:
        if (keys == nullptr) break;  // refused below
        keys->push_back(declaredKey(constraint, {column.colname()}));
        continue;
      default:
        break;
    }
    if (constraint.contype() != pg_query::CONSTR_NOTNULL && constraint.contype() != pg_query::CONSTR_NULL) {
      fail(SqlState::kFeatureNotSupported, constraint.location(),
           keys != nullptr ? "only NOT NULL, PRIMARY KEY and UNIQUE constraints are supported"
                           : "only NOT NULL is supported on an added column");
    }
  }
  return {ColumnDescription{column.colname(), type}, notNull};
}

CreateTable TableStatementBinder::bindCreate(const pg_query::CreateStmt& create) {
  CreateTable bound;
  const auto& relation = create.relation();
  bound.name = bindCreationName(relation);
  bound.ifNotExists = create.if_not_exists();
  bindOnCommit(create.oncommit(), relation.location());
  if (create.inh_relations_size() > 0 || create.has_partspec() || create.has_partbound() || create.has_of_typename()) {
    fail(SqlState::kFeatureNotSupported, relation.location(),
         "inheritance, PARTITION BY and OF type are not supported; use WITH (distribution = ...)");
  }
  std::vector<DeclaredKey> keys;
  for (const auto& element : create.table_elts()) {
    if (element.has_column_def()) {
      const auto& column = element.column_def();
      for (const auto& existing : bound.columns) {
        if (existing.name == column.colname()) {
          fail(SqlState::kDuplicateColumn, column.location(),
               fmt::format("column \"{}\" specified more than once", column.colname()));
        }
      }
      auto [description, notNull] = bindColumnDefinition(column, &keys);
      bound.columns.push_back(std::move(description));
      bound.notNull.push_back(notNull);
    } else if (element.has_constraint() && (element.constraint().contype() == pg_query::CONSTR_PRIMARY ||
                                            element.constraint().contype() == pg_query::CONSTR_UNIQUE)) {
      std::vector<std::string> names;
      for (const auto& key : element.constraint().keys()) names.push_back(key.string().sval());
      keys.push_back(declaredKey(element.constraint(), std::move(names)));
    } else {
      fail(SqlState::kFeatureNotSupported, ExpressionBinder::locationOf(element),
           "only columns, NOT NULL, PRIMARY KEY and UNIQUE are supported in CREATE TABLE");
    }
  }
  if (bound.columns.empty()) {
    fail(SqlState::kFeatureNotSupported, relation.location(), "a table needs at least one column");
  }
  bindKeys(keys, bound);
  bindTableOptions(create.options(), bound);
  return bound;
}

void TableStatementBinder::bindTableOptions(const google::protobuf::RepeatedPtrField<pg_query::Node>& options,
                                            CreateTable& bound) const {
  auto columnIndex = [&](const std::string& name, int location) -> size_t {
    for (size_t i = 0; i < bound.columns.size(); ++i) {
      if (bound.columns[i].name == name) return i;
    }
    fail(SqlState::kUndefinedColumn, location, fmt::format("column \"{}\" named in key does not exist", name));
  };
  for (const auto& optionNode : options) {
    const auto& option = optionNode.def_elem();
    if (option.defname() != "distribution") {
      fail(SqlState::kFeatureNotSupported, option.location(),
           fmt::format("table option \"{}\" is not supported; the one option is distribution", option.defname()));
    }
    std::string text = trim(lowercase(optionText(option)));
    if (text == "replicated") {
      bound.distribution = DistributionSpec{DistributionSpec::Kind::kReplicated, {}};
    } else if (text == "random" || text == "randomly") {
      bound.distribution = DistributionSpec{DistributionSpec::Kind::kRandom, {}};
    } else if (text.starts_with("hash(") && text.ends_with(")")) {
      DistributionSpec spec{DistributionSpec::Kind::kHash, {}};
      std::string list = text.substr(5, text.size() - 6);
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string name = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (name.empty()) break;
        spec.columns.push_back(columnIndex(name, option.location()));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (spec.columns.empty()) {
        fail(SqlState::kInvalidParameterValue, option.location(), "hash distribution needs at least one column");
      }
      bound.distribution = std::move(spec);
    } else {
      fail(SqlState::kInvalidParameterValue, option.location(),
           fmt::format("invalid distribution \"{}\": use 'hash(column, ...)', 'replicated' or 'random'",
                       optionText(option)));
    }
  }
}

DropTable TableStatementBinder::bindDrop(const pg_query::DropStmt& drop) {
  if (drop.remove_type() != pg_query::OBJECT_TABLE) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "only DROP TABLE is supported yet");
  }
  DropTable bound;
  bound.ifExists = drop.missing_ok();
  for (const auto& object : drop.objects()) bound.names.push_back(droppedRelationName(object.list(), catalog_));
  return bound;
}

RenameTable TableStatementBinder::bindRename(const pg_query::RenameStmt& rename) {
  const bool table = rename.rename_type() == pg_query::OBJECT_TABLE;
  const bool column =
      rename.rename_type() == pg_query::OBJECT_COLUMN && rename.relation_type() == pg_query::OBJECT_TABLE;
  if (!table && !column)
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "only ALTER TABLE ... RENAME is supported yet");
  const auto& relation = rename.relation();
  RenameTable bound;
  bound.table = resolveRelation(catalog_, relation.schemaname(), relation.relname())
                    .value_or(QualifiedName{relation.schemaname(), relation.relname()});
  if (column) bound.column = rename.subname();
  bound.newName = rename.newname();
  bound.ifExists = rename.missing_ok();
  return bound;
}

TruncateTable TableStatementBinder::bindTruncate(const pg_query::TruncateStmt& truncate) {
  TruncateTable bound;
  for (const auto& relation : truncate.relations()) {
    const auto& range = relation.range_var();
    TableDescription table = findTable(range.schemaname(), range.relname(), range.location(), kAclTruncate);
    bound.names.push_back({table.schema, table.name});
  }
  return bound;
}

size_t TableStatementBinder::targetColumn(const TableDescription& table, const std::string& name, int location) const {
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].name == name) return i;
  }
  fail(SqlState::kUndefinedColumn, location,
       fmt::format("column \"{}\" of relation \"{}\" does not exist", name, table.name));
}

std::variant<InsertValues, InsertSelect> TableStatementBinder::bindInsert(const pg_query::InsertStmt& insert) {
  const auto& range = insert.relation();
  TableDescription table = findTable(range.schemaname(), range.relname(), range.location(), kAclInsert);
  if (insert.returning_list_size() > 0 || insert.has_with_clause()) {
    fail(SqlState::kFeatureNotSupported, range.location(), "RETURNING and WITH are not supported in INSERT");
  }
  std::optional<OnConflict> onConflict = bindOnConflict(insert, table);
  // Which table column each VALUES position fills.
  std::vector<size_t> targets;
  if (insert.cols_size() == 0) {
    for (size_t i = 0; i < table.columns.size(); ++i) targets.push_back(i);
  } else {
    std::set<size_t> seen;
    for (const auto& colNode : insert.cols()) {
      const auto& target = colNode.res_target();
      const size_t index = targetColumn(table, target.name(), target.location());
      if (!seen.insert(index).second) {
        fail(SqlState::kDuplicateColumn, target.location(),
             fmt::format("column \"{}\" specified more than once", target.name()));
      }
      targets.push_back(index);
    }
  }
  if (!insert.has_select_stmt()) {
    // DEFAULT VALUES: one row of the columns' defaults, which are all NULL (Shoal has no column defaults yet).
    InsertValues bound;
    bound.table = {table.schema, table.name};
    bound.rows.emplace_back(table.columns.size());
    bound.onConflict = std::move(onConflict);
    return bound;
  }
  const auto& select = insert.select_stmt().select_stmt();
  if (select.values_lists_size() == 0) {
    InsertSelect bound = bindInsertSelect(insert, table, targets);
    bound.onConflict = std::move(onConflict);
    return bound;
  }
  // Without a column list, the values fill the first columns and the others are NULL, as in PostgreSQL.
  const auto& firstRow = select.values_lists(0).list().items();
  if (insert.cols_size() == 0 && static_cast<size_t>(firstRow.size()) < targets.size()) targets.resize(firstRow.size());
  InsertValues bound;
  bound.table = {table.schema, table.name};
  std::vector<ColumnDescription> none;
  ExpressionBinder binder(text_, none, parameterTypes_);
  binder.setClause("VALUES");
  binder.setCatalog(&catalog_);  // for the session's functions (current_user, pg_backend_pid()) and the catalog's
  for (const auto& rowNode : insert.select_stmt().select_stmt().values_lists()) {
    const auto& items = rowNode.list().items();
    if (items.size() != firstRow.size()) {
      fail(SqlState::kSyntaxError, items.empty() ? -1 : ExpressionBinder::locationOf(items[0]),
           "VALUES lists must all be the same length");
    }
    if (static_cast<size_t>(items.size()) > targets.size()) {
      fail(SqlState::kSyntaxError, ExpressionBinder::locationOf(items[static_cast<int>(targets.size())]),
           "INSERT has more expressions than target columns");
    }
    if (static_cast<size_t>(items.size()) < targets.size()) {
      fail(SqlState::kSyntaxError, insert.cols(items.size()).res_target().location(),
           "INSERT has more target columns than expressions");
    }
    std::vector<engine::ExpressionPtr> row(table.columns.size());
    for (int i = 0; i < items.size(); ++i) {
      if (items[i].has_set_to_default()) continue;  // no defaults yet: NULL
      const auto& column = table.columns[targets[static_cast<size_t>(i)]];
      int location = ExpressionBinder::locationOf(items[i]);
      // A literal for a real or double precision column is read as one: 1e300 does not fit a 38-digit numeric.
      const bool floatLiteral =
          column.type.id() == engine::TypeId::kDouble && items[i].has_a_const() && items[i].a_const().has_fval();
      engine::ExpressionPtr value = floatLiteral ? std::make_unique<engine::ConstantExpression>(
                                                       engine::Value::unknownLiteral(items[i].a_const().fval().fval()))
                                                 : binder.bind(items[i]);
      if (value->type().id() != engine::TypeId::kUnknown && value->type() != column.type &&
          !engine::isCastSupported(value->type(), column.type)) {
        fail(SqlState::kDatatypeMismatch, location,
             fmt::format("column \"{}\" is of type {} but expression is of type {}", column.name,
                         column.type.toString(), value->type().toString()));
      }
      row[targets[static_cast<size_t>(i)]] = binder.coerce(std::move(value), column.type, location);
    }
    bound.rows.push_back(std::move(row));
  }
  bound.onConflict = std::move(onConflict);
  return bound;
}

TpchLoad TableStatementBinder::bindCall(const pg_query::CallStmt& call) {
  const auto& function = call.funccall();
  std::string name = function.funcname_size() > 0 ? function.funcname().rbegin()->string().sval() : "";
  if (name != "tpch_load") {
    fail(SqlState::kUndefinedFunction, function.location(), fmt::format("procedure {} does not exist", name));
  }
  if (function.args_size() < 1 || function.args_size() > 3) {
    fail(SqlState::kUndefinedFunction, function.location(),
         "tpch_load takes the scale factor and, optionally, how many workers generate (0: one per host) and the "
         "layout ('partitioned' or 'chunked')");
  }
  std::vector<ColumnDescription> none;
  ExpressionBinder binder(text_, none, parameterTypes_);
  const auto& argument = function.args(0);
  if (!argument.has_a_const() || !(argument.a_const().has_ival() || argument.a_const().has_fval())) {
    fail(SqlState::kInvalidParameterValue, ExpressionBinder::locationOf(argument),
         "tpch_load's scale factor must be a number");
  }
  TpchLoad bound;
  bound.scaleFactor =
      argument.a_const().has_ival() ? argument.a_const().ival().ival() : std::stod(argument.a_const().fval().fval());
  if (!(bound.scaleFactor > 0) || bound.scaleFactor > 100000) {
    fail(SqlState::kInvalidParameterValue, ExpressionBinder::locationOf(argument),
         "tpch_load's scale factor must be above 0");
  }
  if (function.args_size() == 2) {
    const auto& generators = function.args(1);
    const bool isInteger = generators.has_a_const() && generators.a_const().has_ival();
    const int64_t count = isInteger ? generators.a_const().ival().ival() : 0;
    if (!isInteger || count < 0) {
      fail(SqlState::kInvalidParameterValue, ExpressionBinder::locationOf(generators),
           "tpch_load's number of generating workers must be an integer (0: one per host)");
    }
    bound.generators = static_cast<uint32_t>(count);
  }
  if (function.args_size() == 3) {
    const auto& layout = function.args(2);
    const std::string text =
        layout.has_a_const() && layout.a_const().has_sval() ? layout.a_const().sval().sval() : std::string();
    if (text != "partitioned" && text != "chunked") {
      fail(SqlState::kInvalidParameterValue, ExpressionBinder::locationOf(layout),
           "tpch_load's layout must be 'partitioned' or 'chunked'");
    }
    bound.chunked = text == "chunked";
  }
  return bound;
}

}  // namespace shoal::sql
