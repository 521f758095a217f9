#include "sql/parser/parameter_rebinding.h"

#include <cctype>

#include "common/status.h"
#include "sql/parser/token_scan.h"

namespace shoal::sql {

bool rebindsWithParameterValues(const std::string& text) {
  if (text.find('$') == std::string::npos) return false;
  pg_query::ScanResult scan;
  try {
    scan = scanTokens(text);
  } catch (const ShoalError&) {
    return true;  // the parser reports the problem; binding again is harmless
  }
  bool afterCountKeyword = false;  // LIMIT, OFFSET, or FETCH FIRST/NEXT, with any '(' since
  bool hasParameter = false;
  bool namesObjectIdentifier = false;  // regclass, regtype, ..., to_regclass, ...
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
        hasParameter = true;
        break;
      case pg_query::IDENT: {
        std::string word = text.substr(token.start(), token.end() - token.start());
        for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (word.starts_with("reg") || word.starts_with("to_reg") || word.starts_with("\"reg")) {
          namesObjectIdentifier = true;
        }
        afterCountKeyword = false;
        break;
      }
      default:
        afterCountKeyword = false;
    }
  }
  return hasParameter && namesObjectIdentifier;
}

bool readsTheClock(const std::string& text) {
  pg_query::ScanResult scan;
  try {
    scan = scanTokens(text);
  } catch (const ShoalError&) {
    return false;  // the parser reports the problem
  }
  auto lowered = [&](const pg_query::ScanToken& token) {
    std::string word = text.substr(token.start(), token.end() - token.start());
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return word;
  };
  for (const auto& token : scan.tokens()) {
    switch (token.token()) {
      case pg_query::CURRENT_DATE:
      case pg_query::CURRENT_TIMESTAMP:
      case pg_query::LOCALTIMESTAMP:
      case pg_query::LOCALTIME:
        return true;
      case pg_query::IDENT: {
        const std::string word = lowered(token);
        // random() takes the session's next seed, and setseed() sets it, at each execution.
        if (word == "now" || word == "transaction_timestamp" || word == "statement_timestamp" || word == "random" ||
            word == "setseed") {
          return true;
        }
        break;
      }
      case pg_query::SCONST: {
        const std::string word = lowered(token);  // with its quotes, possibly padded inside
        if (word.find("now") != std::string::npos || word.find("today") != std::string::npos ||
            word.find("tomorrow") != std::string::npos || word.find("yesterday") != std::string::npos) {
          return true;
        }
        break;
      }
      default:
        break;
    }
  }
  return false;
}

}  // namespace shoal::sql
