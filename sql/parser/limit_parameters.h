#pragma once

#include <string>

namespace shoal::sql {

/// Whether `text` has a LIMIT, OFFSET or FETCH FIRST whose count is a parameter ($1): such a statement is
/// bound again once its parameters' values are known, since the binder fixes row counts in the plan. Read
/// from the scanner's tokens, which never recurse however deep the text; a false "yes" only costs a rebind.
bool limitTakesParameter(const std::string& text);

/// Whether `text` casts a parameter to an object identifier type ($1::regtype, $1::pg_catalog.regclass) or
/// looks one up (to_regtype($1)): the binder resolves the name to an OID, so such a statement too is bound
/// again with its parameters' values.
bool castsParameterToObjectIdentifier(const std::string& text);

}  // namespace shoal::sql
