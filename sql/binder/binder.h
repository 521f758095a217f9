#pragma once

#include <vector>

#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"
#include "sql/parser/parsed_script.h"

namespace shoal::sql {

/// Resolves one parsed statement against the catalog into a BoundStatement.
/// Statements that Shoal does not run yet fail with 0A000 naming the clause.
class Binder {
 public:
  explicit Binder(const CatalogReader& catalog) : catalog_(catalog) {}

  /// `declaredParameterTypes` are the types the client declared for $1..$n
  /// (kUnknown for "let the server decide"); the result holds them resolved.
  BoundStatement bind(const ParsedScript& script, size_t statementIndex,
                      std::vector<engine::LogicalType> declaredParameterTypes = {}) const;

 private:
  const CatalogReader& catalog_;
};

}  // namespace shoal::sql
