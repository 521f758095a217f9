#include "sql/parser/view_definition.h"

#include <pg_query.h>

#include "pg_query/pg_query.pb.h"

namespace shoal::sql {

std::string viewQueryText(const std::string& createView) {
  PgQueryScanResult result = pg_query_scan(createView.c_str());
  struct ResultGuard {
    PgQueryScanResult& result;
    ~ResultGuard() { pg_query_free_scan_result(result); }
  } guard{result};
  pg_query::ScanResult scan;
  if (result.error != nullptr || !scan.ParseFromArray(result.pbuf.data, static_cast<int>(result.pbuf.len))) {
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
