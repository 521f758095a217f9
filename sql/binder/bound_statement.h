#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// SELECT over at most one table: the shape the walking skeleton executes.
/// The logical plan of the SQL front-end issue replaces it.
struct BoundSelect {
  /// The table scanned, or none for a SELECT without FROM (one row, no columns).
  std::optional<TableDescription> from;
  /// Filter over the table's columns; null when there is no WHERE.
  engine::ExpressionPtr where;
  std::vector<engine::ExpressionPtr> projections;
  std::vector<std::string> columnNames;
  std::optional<int64_t> limit;
  int64_t offset = 0;
};

enum class TransactionAction { kBegin, kCommit, kRollback };

struct TransactionCommand {
  TransactionAction action;
};

/// SET name = value, SET name TO DEFAULT, RESET name, RESET ALL.
struct SetVariable {
  std::string name;                  // empty for RESET ALL
  std::optional<std::string> value;  // nullopt: back to the default
};

struct ShowVariable {
  std::string name;
};

/// A statement ready to run: what the session needs, with no parse tree left.
struct BoundStatement {
  std::variant<BoundSelect, TransactionCommand, SetVariable, ShowVariable> command;
  /// Types of $1..$n, resolved from the client's declared OIDs and from context.
  std::vector<engine::LogicalType> parameterTypes;
  /// The tag CommandComplete carries, before any row count ("SELECT", "BEGIN", "SET").
  std::string commandTag;
};

}  // namespace shoal::sql
