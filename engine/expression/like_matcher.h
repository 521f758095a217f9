#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/vector/vector.h"

namespace shoal::engine {

// PostgreSQL's LIKE: case-sensitive and byte-wise, '%' matches any sequence of
// characters, '_' exactly one UTF-8 character, and '\' makes the next pattern
// character literal. A pattern that ends in a lone '\' fails with 22025, but
// only when matching reaches it (as in PostgreSQL, 'b' LIKE 'a\' is false).

/// Returns whether `text` matches `pattern`, interpreting the pattern as it goes and
/// backtracking only to the last '%' (O(text × pattern) at worst, no recursion). Used
/// for patterns that change from row to row and for compiled patterns that contain '_'.
bool likeMatches(std::string_view text, std::string_view pattern);

/// A LIKE pattern compiled once and matched against many texts. Patterns made of
/// literal segments between '%'s are matched with prefix and suffix compares and
/// substring searches; the rest fall back to likeMatches. Immutable after
/// construction, so threads may share one.
class LikeMatcher {
 public:
  /// How matches() decides; each strategy gives the same answers as likeMatches.
  enum class Strategy {
    kExact,     // 'abc': the text equals the literal
    kPrefix,    // 'abc%' (and '%' alone: the empty prefix)
    kSuffix,    // '%abc'
    kContains,  // '%abc%'
    kSequence,  // 'a%b', '%a%b%', 'a%b%c': prefix, suffix and in-order substring searches
    kGeneral,   // anything with '_' or a trailing escape: likeMatches
  };

  /// Compiles `pattern`; never fails (an invalid pattern fails when matched).
  explicit LikeMatcher(std::string_view pattern);

  bool matches(std::string_view text) const;
  Strategy strategy() const { return strategy_; }

 private:
  bool matchesSequence(std::string_view text) const;

  Strategy strategy_ = Strategy::kGeneral;
  /// The pattern as written, for kGeneral.
  std::string pattern_;
  /// Literal text (escapes resolved) before the first '%'; the whole literal for kExact.
  std::string prefix_;
  /// Literal text after the last '%'.
  std::string suffix_;
  /// The non-empty literal segments between '%'s, to be found in this order.
  std::vector<std::string> middles_;
};

/// Evaluates `text LIKE pattern` (or NOT LIKE when `negate`) row by row, NULL in,
/// NULL out. With `patternIsConstant` every row holds the same pattern, which is
/// compiled once into a LikeMatcher. A CHAR(n) text is matched with its padding
/// spaces, as PostgreSQL's bpchar LIKE does.
Vector evaluateLike(bool negate, const Vector& text, const Vector& pattern, bool patternIsConstant);

/// PostgreSQL's like_escape: `pattern` of LIKE ... ESCAPE `escape`, rewritten for '\' as the escape
/// character (an empty `escape` turns escaping off). Fails with 22025 for an escape of several characters.
std::string likePatternWithEscape(std::string_view pattern, std::string_view escape);
/// likePatternWithEscape row by row; NULL in, NULL out.
Vector evaluateLikeEscape(const Vector& pattern, const Vector& escape);

}  // namespace shoal::engine
