#include "sql/parser/nesting_estimate.h"

#include <vector>

#include "common/stack_depth.h"
#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/parser/token_scan.h"

namespace shoal::sql {
namespace {

// Stack libpg_query uses per level of nesting: 8 MB held a chain of 23,750 `1+` and not 23,906 (about 352
// bytes a level, libpg-query 15-4.0); rounded up for other shapes of node.
constexpr size_t kParserStackBytesPerLevel = 512;
// Every level needs at least one character of text (`(`), so a text nests at most this many levels per byte.
constexpr size_t kMaxLevelsPerByte = 1;

bool startsNewRun(pg_query::Token token) {
  return token == pg_query::ASCII_44 /* , */ || token == pg_query::ASCII_59 /* ; */ || token == pg_query::AND ||
         token == pg_query::OR;
}

bool isLeaf(pg_query::Token token) {
  switch (token) {
    case pg_query::IDENT:
    case pg_query::UIDENT:
    case pg_query::FCONST:
    case pg_query::SCONST:
    case pg_query::USCONST:
    case pg_query::BCONST:
    case pg_query::XCONST:
    case pg_query::ICONST:
    case pg_query::PARAM:
    case pg_query::NULL_P:
    case pg_query::TRUE_P:
    case pg_query::FALSE_P:
      return true;
    default:
      return false;
  }
}

}  // namespace

size_t estimateNestingDepth(const std::string& text) {
  pg_query::ScanResult scan = scanTokens(text);
  // runs[i]: operators and keywords since the last separator at bracket level i; `depth` is the sum of
  // the runs plus the number of open brackets: the deepest the tree can be at the current token.
  std::vector<size_t> runs(1, 0);
  size_t depth = 0;
  size_t deepest = 0;
  for (const auto& token : scan.tokens()) {
    switch (token.token()) {
      case pg_query::ASCII_40:  // (
      case pg_query::ASCII_91:  // [
        runs.push_back(0);
        depth += 1;
        break;
      case pg_query::ASCII_41:  // )
      case pg_query::ASCII_93:  // ]
        if (runs.size() > 1) {
          depth -= runs.back() + 1;
          runs.pop_back();
        }
        break;
      default:
        if (startsNewRun(token.token())) {
          depth -= runs.back();
          runs.back() = 0;
        } else if (!isLeaf(token.token())) {
          runs.back() += 1;
          depth += 1;
        }
    }
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

void checkParserStack(const std::string& text) {
  const size_t available = remainingStackBytes();
  const size_t usable = available > kStackReserveBytes ? available - kStackReserveBytes : 0;
  if (text.size() * kMaxLevelsPerByte * kParserStackBytesPerLevel < usable) return;
  checkStackDepth(estimateNestingDepth(text) * kParserStackBytesPerLevel);
}

}  // namespace shoal::sql
