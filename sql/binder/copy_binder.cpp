#include "sql/binder/copy_binder.h"
#include "sql/binder/privilege_checks.h"
#include "sql/binder/search_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/statement_options.h"
#include "sql/parser/parsed_script.h"

namespace shoal::sql {

namespace {

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string quoteIdentifier(std::string_view name) {
  std::string quoted = "\"";
  for (char c : name) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  return quoted + "\"";
}

/// The names in an option's list argument (FORCE_QUOTE (a, b)); empty for `*`, which `all` reports.
std::vector<std::string> optionColumnList(const pg_query::DefElem& option, bool& all) {
  std::vector<std::string> names;
  all = option.has_arg() && option.arg().has_a_star();
  if (option.has_arg() && option.arg().has_list()) {
    for (const auto& item : option.arg().list().items()) names.push_back(item.string().sval());
  }
  return names;
}

/// The user's options, before defaults and checks.
struct WrittenOptions {
  std::optional<std::string> format;
  std::optional<std::string> delimiter;
  std::optional<std::string> nullText;
  std::optional<std::string> quote;
  std::optional<std::string> escape;
  std::optional<bool> header;
  bool headerMatch = false;
  std::optional<std::vector<std::string>> forceQuote;
  bool forceQuoteAll = false;
  std::optional<std::vector<std::string>> forceNotNull;
  std::optional<std::vector<std::string>> forceNull;
};

/// The table columns COPY t (a, b) names, in its order; empty without a list. 42703 for a column the table
/// lacks, 42701 for one named twice.
std::vector<size_t> columnIndexes(const pg_query::CopyStmt& copy, const TableDescription& table) {
  std::vector<size_t> indexes;
  for (const auto& item : copy.attlist()) {
    const std::string& name = item.string().sval();
    auto found = std::find_if(table.columns.begin(), table.columns.end(),
                              [&](const ColumnDescription& column) { return column.name == name; });
    if (found == table.columns.end()) {
      SHOAL_USER_FAIL(SqlState::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", name, table.name);
    }
    size_t index = static_cast<size_t>(found - table.columns.begin());
    if (std::find(indexes.begin(), indexes.end(), index) != indexes.end()) {
      SHOAL_USER_FAIL(SqlState::kDuplicateColumn, "column \"{}\" specified more than once", name);
    }
    indexes.push_back(index);
  }
  return indexes;
}

}  // namespace

void CopyBinder::fail(std::string_view sqlState, int location, std::string message) const {
  int position = characterPosition(text_, location);
  throw ShoalError(Status(sqlState, std::move(message), position > 0 ? std::optional<int>(position) : std::nullopt));
}

std::optional<QualifiedName> CopyBinder::findNamed(const pg_query::RangeVar& range) const {
  return resolveRelation(catalog_, range.schemaname(), range.relname());
}

std::variant<CopyFrom, CopyTo> CopyBinder::bind(const pg_query::CopyStmt& copy) {
  if (copy.is_program()) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY {} PROGRAM is not supported", copy.is_from() ? "FROM" : "TO");
  }
  if (copy.is_from()) return bindFrom(copy);
  return bindTo(copy);
}

CopyFrom CopyBinder::bindFrom(const pg_query::CopyStmt& copy) {
  if (copy.has_where_clause()) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY FROM ... WHERE is not supported");
  const auto& range = copy.relation();
  const std::string& schema = range.schemaname();
  std::optional<QualifiedName> resolved = findNamed(range);
  std::optional<TableDescription> table = resolved ? catalog_.findTable(*resolved) : std::nullopt;
  if (!table || table->isSystemView) {
    if (table || (resolved && catalog_.findView(*resolved))) {
      fail(SqlState::kWrongObjectType, range.location(),
           fmt::format("cannot copy to {} \"{}\"", table ? "a system relation" : "view", range.relname()));
    }
    fail(SqlState::kUndefinedTable, range.location(),
         fmt::format("relation \"{}\" does not exist",
                     schema.empty() ? range.relname() : schema + "." + range.relname()));
  }
  requireRelationPrivilege(catalog_, *resolved, kAclInsert, false, text_, range.location());
  CopyFrom bound;
  bound.table = {table->schema, table->name};
  bound.columns = columnIndexes(copy, *table);
  if (!copy.filename().empty()) bound.path = copy.filename();
  std::vector<std::string> fieldColumns;
  if (bound.columns.empty()) {
    for (const auto& column : table->columns) fieldColumns.push_back(column.name);
  } else {
    for (size_t index : bound.columns) fieldColumns.push_back(table->columns[index].name);
  }
  bound.format = bindFormat(copy, fieldColumns);
  if (const SessionInfo* session = catalog_.session(); session != nullptr && session->setting) {
    bound.timeZone = session->setting("TimeZone");
  }
  return bound;
}

CopyTo CopyBinder::bindTo(const pg_query::CopyStmt& copy) {
  if (!copy.filename().empty()) {
    CopyTo bound;
    bound.path = copy.filename();
    return bound;
  }
  CopyTo bound;
  ColumnIdGenerator ids;
  if (copy.has_query()) {
    if (!copy.query().has_select_stmt()) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY (INSERT/UPDATE/DELETE ... RETURNING) TO is not supported");
    }
    QueryBinder queryBinder(catalog_, text_, parameterTypes_, ids);
    bound.plan = queryBinder.bind(copy.query().select_stmt());
    bound.format = bindFormat(copy, bound.plan.columnNames);
    return bound;
  }
  // COPY t [(columns)] TO: the query SELECT columns FROM t, bound like any other.
  const auto& range = copy.relation();
  const std::string& schema = range.schemaname();
  std::optional<QualifiedName> resolved = findNamed(range);
  std::optional<TableDescription> table = resolved ? catalog_.findTable(*resolved) : std::nullopt;
  if (!table) {
    if (resolved && catalog_.findView(*resolved)) {
      int position = characterPosition(text_, range.location());
      throw ShoalError(Status(SqlState::kWrongObjectType, fmt::format("cannot copy from view \"{}\"", range.relname()),
                              position > 0 ? std::optional<int>(position) : std::nullopt)
                           .withHint("Try the COPY (SELECT ...) TO variant."));
    }
    fail(SqlState::kUndefinedTable, range.location(),
         fmt::format("relation \"{}\" does not exist",
                     schema.empty() ? range.relname() : schema + "." + range.relname()));
  }
  std::vector<std::string> columns;
  for (size_t index : columnIndexes(copy, *table)) columns.push_back(table->columns[index].name);
  if (columns.empty()) {
    for (const auto& column : table->columns) columns.push_back(column.name);
  }
  std::string query = "SELECT ";
  for (size_t i = 0; i < columns.size(); ++i) query += (i == 0 ? "" : ", ") + quoteIdentifier(columns[i]);
  query += " FROM " + quoteIdentifier(table->schema) + "." + quoteIdentifier(table->name);
  ParsedScript script = ParsedScript::parse(query);
  QueryBinder queryBinder(catalog_, script.text(), parameterTypes_, ids);
  bound.plan = queryBinder.bind(script.statement(0).select_stmt());
  bound.format = bindFormat(copy, columns);
  return bound;
}

CopyFormat CopyBinder::bindFormat(const pg_query::CopyStmt& copy, const std::vector<std::string>& outputColumns) {
  const bool isFrom = copy.is_from();
  WrittenOptions written;
  std::set<std::string> seen;
  for (const auto& optionNode : copy.options()) {
    const auto& option = optionNode.def_elem();
    const std::string& name = option.defname();
    if (!seen.insert(name).second) fail(SqlState::kSyntaxError, option.location(), "conflicting or redundant options");
    if (name == "format") {
      written.format = lowercase(optionText(option));
      if (*written.format != "text" && *written.format != "csv" && *written.format != "tbl" &&
          *written.format != "binary") {
        fail(SqlState::kInvalidParameterValue, option.location(),
             fmt::format("COPY format \"{}\" not recognized", optionText(option)));
      }
    } else if (name == "freeze") {
      optionBoolean(option);  // checked as PostgreSQL does; Shoal's loads are all-or-nothing anyway
    } else if (name == "delimiter") {
      written.delimiter = optionText(option);
    } else if (name == "null") {
      written.nullText = optionText(option);
    } else if (name == "header") {
      std::string value = lowercase(optionText(option));
      if (value == "match") {
        if (!isFrom)
          fail(SqlState::kFeatureNotSupported, option.location(), "cannot use \"match\" with HEADER in COPY TO");
        written.headerMatch = true;
        written.header = true;
      } else if (!option.has_arg() || value == "true" || value == "on" || value == "1") {
        written.header = true;
      } else if (value == "false" || value == "off" || value == "0") {
        written.header = false;
      } else {
        fail(SqlState::kSyntaxError, option.location(), "header requires a Boolean value or \"match\"");
      }
    } else if (name == "quote") {
      written.quote = optionText(option);
    } else if (name == "escape") {
      written.escape = optionText(option);
    } else if (name == "force_quote") {
      written.forceQuote = optionColumnList(option, written.forceQuoteAll);
    } else if (name == "force_not_null" || name == "force_null") {
      bool all = false;
      std::vector<std::string> columns = optionColumnList(option, all);
      if (all) fail(SqlState::kSyntaxError, option.location(), fmt::format("{} takes a column list", name));
      (name == "force_null" ? written.forceNull : written.forceNotNull) = std::move(columns);
    } else if (name == "encoding") {
      std::string encoding = lowercase(optionText(option));
      std::erase_if(encoding, [](char c) { return c == '-' || c == '_'; });
      if (encoding != "utf8" && encoding != "unicode") {
        fail(SqlState::kFeatureNotSupported, option.location(),
             fmt::format("COPY encoding \"{}\" is not supported: Shoal reads and writes UTF8", optionText(option)));
      }
    } else {
      fail(SqlState::kSyntaxError, option.location(), fmt::format("option \"{}\" not recognized", name));
    }
  }

  CopyFormat format;
  std::string formatName = written.format.value_or("");
  if (formatName.empty() && isFrom && copy.filename().ends_with(".tbl")) formatName = "tbl";  // dbgen's files
  if (formatName.empty() && isFrom && copy.filename().ends_with(".csv")) formatName = "csv";
  const bool csv = formatName == "csv";
  const bool tbl = formatName == "tbl";
  const bool binary = formatName == "binary";
  format.kind = csv      ? CopyFormat::Kind::kCsv
                : tbl    ? CopyFormat::Kind::kTbl
                : binary ? CopyFormat::Kind::kBinary
                         : CopyFormat::Kind::kText;
  if (tbl && !isFrom)
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY TO writes text, csv or binary; tbl is for COPY FROM");
  if (binary) {
    // PostgreSQL 15's checks of the options the binary format has no use for.
    if (written.delimiter) SHOAL_USER_FAIL(SqlState::kSyntaxError, "cannot specify DELIMITER in BINARY mode");
    if (written.nullText) SHOAL_USER_FAIL(SqlState::kSyntaxError, "cannot specify NULL in BINARY mode");
    if (written.header && *written.header) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "cannot specify HEADER in BINARY mode");
    }
  }

  // PostgreSQL 15's checks (copy.c, ProcessCopyOptions), in its order and with its SQLSTATEs.
  const std::string delimiter = written.delimiter.value_or(csv ? "," : tbl ? "|" : "\t");
  format.nullText = written.nullText.value_or(csv || tbl ? "" : "\\N");
  if (delimiter.size() != 1) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY delimiter must be a single one-byte character");
  }
  format.delimiter = delimiter[0];
  if (format.delimiter == '\r' || format.delimiter == '\n') {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "COPY delimiter cannot be newline or carriage return");
  }
  if (format.nullText.find_first_of("\r\n") != std::string::npos) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "COPY null representation cannot use newline or carriage return");
  }
  if (!csv && std::strchr("\\.abcdefghijklmnopqrstuvwxyz0123456789", format.delimiter) != nullptr) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "COPY delimiter cannot be \"{}\"", delimiter);
  }
  if (!csv && written.quote) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY quote available only in CSV mode");
  const std::string quote = written.quote.value_or("\"");
  if (csv && quote.size() != 1) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY quote must be a single one-byte character");
  }
  format.quote = quote[0];
  if (csv && format.delimiter == format.quote) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "COPY delimiter and quote must be different");
  }
  if (!csv && written.escape) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY escape available only in CSV mode");
  const std::string escape = written.escape.value_or(quote);
  if (csv && escape.size() != 1) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY escape must be a single one-byte character");
  }
  format.escape = escape[0];
  if (written.forceQuote) {
    if (!csv) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY force quote available only in CSV mode");
    if (isFrom) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY force quote only available using COPY TO");
  }
  if (written.forceNotNull) {
    if (!csv) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY force not null available only in CSV mode");
    if (!isFrom) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY force not null only available using COPY FROM");
  }
  if (written.forceNull) {
    if (!csv) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY force null available only in CSV mode");
    if (!isFrom) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY force null only available using COPY FROM");
  }
  if (format.nullText.find(format.delimiter) != std::string::npos) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY delimiter must not appear in the NULL specification");
  }
  if (csv && format.nullText.find(format.quote) != std::string::npos) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "CSV quote character must not appear in the NULL specification");
  }
  format.header = written.header.value_or(false);
  if (tbl && format.header) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY HEADER is not available in tbl mode");

  if (isFrom) {
    // What the workers' parser reads (worker/storage/delimited_text_parser.h).
    format.headerMatch = written.headerMatch;
    // outputColumns are the fields' columns here: FORCE_NOT_NULL and FORCE_NULL name some of them.
    auto fieldFlags = [&](const std::optional<std::vector<std::string>>& names, std::string_view option) {
      std::vector<bool> flags;
      if (!names) return flags;
      flags.assign(outputColumns.size(), false);
      for (const auto& name : *names) {
        auto found = std::find(outputColumns.begin(), outputColumns.end(), name);
        if (found == outputColumns.end()) {
          // A column of the table left out of the column list, or no column at all.
          auto resolved = findNamed(copy.relation());
          auto table = resolved ? catalog_.findTable(*resolved) : std::nullopt;
          const bool inTable = table && std::any_of(table->columns.begin(), table->columns.end(),
                                                    [&](const auto& column) { return column.name == name; });
          if (!inTable) SHOAL_USER_FAIL(SqlState::kUndefinedColumn, "column \"{}\" does not exist", name);
          SHOAL_USER_FAIL(SqlState::kInvalidColumnReference, "{} column \"{}\" not referenced by COPY", option, name);
        }
        flags[static_cast<size_t>(found - outputColumns.begin())] = true;
      }
      return flags;
    };
    format.forceNotNull = fieldFlags(written.forceNotNull, "FORCE_NOT_NULL");
    format.forceNull = fieldFlags(written.forceNull, "FORCE_NULL");
    if (format.escape != format.quote) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY FROM with an ESCAPE other than QUOTE is not supported yet");
    }
    return format;
  }
  format.forceQuote.assign(outputColumns.size(), written.forceQuoteAll);
  for (const auto& name : written.forceQuote.value_or(std::vector<std::string>{})) {
    auto found = std::find(outputColumns.begin(), outputColumns.end(), name);
    if (found == outputColumns.end()) {
      if (copy.has_relation() && findNamed(copy.relation())) {
        SHOAL_USER_FAIL(SqlState::kInvalidColumnReference, "FORCE_QUOTE column \"{}\" not referenced by COPY", name);
      }
      SHOAL_USER_FAIL(SqlState::kUndefinedColumn, "column \"{}\" does not exist", name);
    }
    format.forceQuote[static_cast<size_t>(found - outputColumns.begin())] = true;
  }
  return format;
}

}  // namespace shoal::sql
