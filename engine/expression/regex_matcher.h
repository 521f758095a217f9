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
  /// Compiles `pattern`; fails with 2201B "invalid regular expression" when RE2 cannot. With
  /// `newlineSensitive` (PostgreSQL's flag 'n'), '.' does not match a newline and '^', '$' match at lines.
  RegexMatcher(std::string_view pattern, bool caseInsensitive, bool newlineSensitive = false);
  ~RegexMatcher();

  bool matches(std::string_view text) const;
  const re2::RE2& regex() const { return *regex_; }

 private:
  std::unique_ptr<re2::RE2> regex_;
};

/// Evaluates `text ~ pattern` (~* with `caseInsensitive`, !~ and !~* when `negate`) row by row, NULL in,
/// NULL out. A pattern is compiled once per run of rows that repeat it (once for a constant one). A CHAR(n)
/// text is matched with its padding, as PostgreSQL's bpchar ~ does.
Vector evaluateRegexMatch(bool negate, bool caseInsensitive, const Vector& text, const Vector& pattern);

/// regexp_replace(text, pattern, replacement, flags) and regexp_match(text, pattern, flags) -> TEXT[], NULL
/// when any argument is (and regexp_match when nothing matches). Flags as in PostgreSQL: 'g' every match
/// (regexp_replace only), 'i' and 'c' case, 'n' newline-sensitive; the other flags PostgreSQL knows fail
/// with 0A000, unknown ones with 22023. In a replacement, \1 .. \9 stand for a group, \& for the match
/// and \\ for a backslash; an empty match advances by one character.
Vector evaluateRegexReplace(const Vector& text, const Vector& pattern, const Vector& replacement, const Vector& flags);
Vector evaluateRegexMatchArray(const Vector& text, const Vector& pattern, const Vector& flags);

}  // namespace shoal::engine
