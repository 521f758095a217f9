#pragma once

#include <string>
#include <string_view>

namespace shoal::engine {

/// True for the SQL words PostgreSQL 15 reserves in some position (the keywords pg_get_keywords() lists with
/// a category other than U, unreserved): an identifier spelled as one must be quoted. quote_ident(),
/// format('%I') and the names regclass prints use it.
bool isReservedKeyword(std::string_view word);

/// PostgreSQL's quote_identifier: `name` as it is when it is lower case letters, digits and '_' (not
/// starting with a digit) and no reserved keyword, else in double quotes with inner quotes doubled.
std::string quoteIdentifier(std::string_view name);

}  // namespace shoal::engine
