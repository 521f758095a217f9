#pragma once

#include <memory>
#include <string_view>

#include "engine/vector/vector.h"

namespace re2 {
class RE2;
}

namespace shoal::engine {

/// PostgreSQL's POSIX regular expression match (~, ~*), on RE2: a search anywhere in the text, '.'
/// matching newlines, '^' and '$' only at the text's ends, as in PostgreSQL's default (advanced) flavour.
/// RE2 runs in time linear in the text, so no pattern can make a query hang. What RE2 does not have
/// (back-references, lookahead) fails with 2201B like an invalid expression, never with a wrong answer.
class RegexMatcher {
 public:
  /// Compiles `pattern`; fails with 2201B "invalid regular expression" when RE2 cannot.
  RegexMatcher(std::string_view pattern, bool caseInsensitive);
  ~RegexMatcher();

  bool matches(std::string_view text) const;

 private:
  std::unique_ptr<re2::RE2> regex_;
};

/// Evaluates `text ~ pattern` (~* with `caseInsensitive`, !~ and !~* when `negate`) row by row, NULL in,
/// NULL out. A pattern is compiled once per run of rows that repeat it (once for a constant one). A CHAR(n)
/// text is matched with its padding, as PostgreSQL's bpchar ~ does.
Vector evaluateRegexMatch(bool negate, bool caseInsensitive, const Vector& text, const Vector& pattern);

}  // namespace shoal::engine
