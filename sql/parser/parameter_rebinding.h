#pragma once

#include <string>

namespace shoal::sql {

/// Whether statement `text` must be bound again once its parameters' values are known, because the binder
/// fixes something a parameter decides: a LIMIT, OFFSET or FETCH FIRST count ($1), or a name an object
/// identifier type resolves ($1::regclass, CAST($1 AS regtype), to_regclass($1)). Read in one pass over the
/// scanner's tokens, which never recurse however deep the text; a false "yes" only costs a rebind.
bool rebindsWithParameterValues(const std::string& text);

/// Whether statement `text` may read the clock, which the binder fixes as a constant: now(),
/// current_timestamp, localtimestamp, localtime, current_date, transaction_timestamp(), statement_timestamp(),
/// or a literal 'now', 'today', 'tomorrow' or 'yesterday'; or random()'s seed, also fixed as it binds, or
/// setseed(). Such a statement binds again at each execution. A false "yes" only costs a rebind.
bool readsTheClock(const std::string& text);

}  // namespace shoal::sql
