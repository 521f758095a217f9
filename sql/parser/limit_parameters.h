#pragma once

#include <string>

namespace shoal::sql {

/// Whether `text` has a LIMIT, OFFSET or FETCH FIRST whose count is a parameter ($1): such a statement is
/// bound again once its parameters' values are known, since the binder fixes row counts in the plan. Read
/// from the scanner's tokens, which never recurse however deep the text; a false "yes" only costs a rebind.
bool limitTakesParameter(const std::string& text);

}  // namespace shoal::sql
