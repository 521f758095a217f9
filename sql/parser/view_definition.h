#pragma once

#include <string>

namespace shoal::sql {

/// The query of a CREATE VIEW statement, as it was written: the text after the AS that follows the view's
/// name, column list and options, without a trailing semicolon. Empty when the text has no such AS.
std::string viewQueryText(const std::string& createView);

}  // namespace shoal::sql
