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
  const auto& tokens = scan.tokens();
  auto word = [&](int i) {
    std::string lower = text.substr(tokens[i].start(), tokens[i].end() - tokens[i].start());
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower;
  };
  for (int i = 0; i + 2 < tokens.size(); ++i) {
    // to_regtype($1)
    if (tokens[i + 1].token() == pg_query::ASCII_40 && tokens[i + 2].token() == pg_query::PARAM &&
        word(i).starts_with("to_reg")) {
      return true;
    }
    if (tokens[i].token() != pg_query::PARAM || tokens[i + 1].token() != pg_query::TYPECAST) continue;
    int name = i + 2;
    if (name + 2 < tokens.size() && word(name) == "pg_catalog" && tokens[name + 1].token() == pg_query::ASCII_46) {
      name += 2;  // pg_catalog.regclass
    }
    if (word(name).starts_with("reg")) return true;
  }
  return false;
}

}  // namespace shoal::sql
