#include "sql/parser/limit_parameters.h"

#include <cctype>

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

bool castsParameterToObjectIdentifier(const std::string& text) {
  if (text.find('$') == std::string::npos) return false;
  pg_query::ScanResult scan;
  try {
    scan = scanTokens(text);
  } catch (const ShoalError&) {
    return true;
  }
  // A parameter, and a word naming an object identifier type or lookup ($1::regclass, CAST($1 AS regtype),
  // to_regclass($1)): a statement that has both may resolve a parameter's value; a false "yes" costs a rebind.
  bool hasParameter = false;
  bool namesObjectIdentifier = false;
  for (const auto& token : scan.tokens()) {
    if (token.token() == pg_query::PARAM) hasParameter = true;
    if (token.token() != pg_query::IDENT) continue;
    std::string word = text.substr(token.start(), token.end() - token.start());
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word.starts_with("reg") || word.starts_with("to_reg") || word.starts_with("\"reg")) {
      namesObjectIdentifier = true;
    }
  }
  return hasParameter && namesObjectIdentifier;
}

}  // namespace shoal::sql
