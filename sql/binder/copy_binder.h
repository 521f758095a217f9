#pragma once

#include <string_view>
#include <variant>
#include <vector>

#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"

namespace pg_query {
class CopyStmt;
class RangeVar;
}  // namespace pg_query

namespace shoal::sql {

/// Binds COPY in both directions: COPY t FROM 'file' | STDIN, and COPY t [(columns)] | (query) TO STDOUT.
/// Options are read and checked as PostgreSQL 15's ProcessCopyOptions does, with its SQLSTATEs.
class CopyBinder {
 public:
  CopyBinder(const CatalogReader& catalog, std::string_view text, std::vector<engine::LogicalType>& parameterTypes)
      : catalog_(catalog), text_(text), parameterTypes_(parameterTypes) {}

  std::variant<CopyFrom, CopyTo> bind(const pg_query::CopyStmt& copy);

 private:
  CopyFrom bindFrom(const pg_query::CopyStmt& copy);
  CopyTo bindTo(const pg_query::CopyStmt& copy);
  /// The options of `copy`, with each format's defaults filled in; `outputColumns` names the columns a
  /// COPY TO writes (for FORCE_QUOTE), or those a COPY FROM's fields fill (for FORCE_NOT_NULL, FORCE_NULL).
  CopyFormat bindFormat(const pg_query::CopyStmt& copy, const std::vector<std::string>& outputColumns);
  [[noreturn]] void fail(std::string_view sqlState, int location, std::string message) const;
  /// Where the relation COPY names lives (on the search path when unqualified); nullopt when nowhere (its
  /// schema missing too: PostgreSQL then reports the relation, 42P01).
  std::optional<QualifiedName> findNamed(const pg_query::RangeVar& range) const;

  const CatalogReader& catalog_;
  std::string_view text_;
  std::vector<engine::LogicalType>& parameterTypes_;
};

}  // namespace shoal::sql
