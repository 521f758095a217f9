#pragma once

#include <string>

#include "pg_query/pg_query.pb.h"

namespace shoal::sql {

/// The tokens of `text` by PostgreSQL's own scanner (libpg_query), which never recurses however deeply the
/// text nests. Fails with 42601 at the character position of text the scanner rejects.
pg_query::ScanResult scanTokens(const std::string& text);

}  // namespace shoal::sql
