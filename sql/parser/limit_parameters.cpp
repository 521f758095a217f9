#include "sql/parser/limit_parameters.h"

#include "common/status.h"
#include "sql/parser/token_scan.h"

namespace shoal::sql {

bool limitTakesParameter(const std::string& text) {
  if (text.find('$') == std::string::npos) return false;
  pg_query::ScanResult scan;
  try {
    scan = scanTokens(text);
  } catch (const ShoalError&) {
    return true;  // the parser reports the problem; binding again is harmless
  }
  bool afterCountKeyword = false;  // LIMIT, OFFSET, or FETCH FIRST/NEXT, with any '(' since
  for (const auto& token : scan.tokens()) {
    switch (token.token()) {
      case pg_query::LIMIT:
      case pg_query::OFFSET:
      case pg_query::FIRST_P:
      case pg_query::NEXT:
        afterCountKeyword = true;
        break;
      case pg_query::ASCII_40:  // (
        break;
      case pg_query::PARAM:
        if (afterCountKeyword) return true;
        break;
      default:
        afterCountKeyword = false;
    }
  }
  return false;
}

}  // namespace shoal::sql
