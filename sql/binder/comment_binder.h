#pragma once

#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"

namespace pg_query {
class CommentStmt;
}  // namespace pg_query

namespace shoal::sql {

/// Binds COMMENT ON TABLE, VIEW or COLUMN, with PostgreSQL 15's errors: 42P01 for no such relation, 42809
/// for a table named as a view (or the reverse), 42703 for no such column, 42601 for an unqualified
/// column; another schema fails with 3F000, a system relation or another kind of object with 0A000.
CommentOn bindComment(const pg_query::CommentStmt& comment, const CatalogReader& catalog);

}  // namespace shoal::sql
