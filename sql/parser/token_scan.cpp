#include "sql/parser/token_scan.h"

#include <pg_query.h>

#include "common/status.h"

namespace shoal::sql {

pg_query::ScanResult scanTokens(const std::string& text) {
  PgQueryScanResult result = pg_query_scan(text.c_str());
  struct ResultGuard {
    PgQueryScanResult& result;
    ~ResultGuard() { pg_query_free_scan_result(result); }
  } guard{result};
  if (result.error != nullptr) {
    SHOAL_USER_FAIL_AT(SqlState::kSyntaxError, result.error->cursorpos, "{}", result.error->message);
  }
  pg_query::ScanResult scan;
  if (!scan.ParseFromArray(result.pbuf.data, static_cast<int>(result.pbuf.len))) {
    SHOAL_USER_FAIL(SqlState::kInternalError, "cannot read libpg_query's tokens");
  }
  return scan;
}

}  // namespace shoal::sql
