#include "sql/parser/view_definition.h"

#include "common/status.h"
#include "sql/parser/token_scan.h"

namespace shoal::sql {

std::string viewQueryText(const std::string& createView) {
  pg_query::ScanResult scan;
  try {
    scan = scanTokens(createView);
  } catch (const ShoalError&) {
    return {};
  }
  // The first AS outside brackets after VIEW: a column list or WITH (options) are bracketed.
  bool afterView = false;
  int depth = 0;
  for (int i = 0; i < scan.tokens_size(); ++i) {
    const auto& token = scan.tokens(i);
    if (token.token() == pg_query::ASCII_40) ++depth;
    if (token.token() == pg_query::ASCII_41) --depth;
    if (token.token() == pg_query::VIEW) afterView = true;
    if (!afterView || depth != 0 || token.token() != pg_query::AS || i + 1 == scan.tokens_size()) continue;
    std::string query = createView.substr(static_cast<size_t>(scan.tokens(i + 1).start()));
    while (!query.empty() && (query.back() == ';' || std::isspace(static_cast<unsigned char>(query.back())))) {
      query.pop_back();
    }
    return query;
  }
  return {};
}

}  // namespace shoal::sql
