#include "engine/expression/like_matcher.h"

#include <cstring>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "common/check.h"
#include "common/status.h"
#include "engine/expression/pattern_match_rows.h"
#include "engine/types/utf8.h"

namespace shoal::engine {
namespace {

constexpr char kAnySequence = '%';
constexpr char kAnyCharacter = '_';
constexpr char kEscape = '\\';

[[noreturn]] void failTrailingEscape() {
  SHOAL_USER_FAIL(SqlState::kInvalidEscapeSequence, "LIKE pattern must not end with escape character");
}

/// Returns the offset of the first occurrence of `needle` in `haystack`, or npos.
///
/// With AVX2, 32 candidate positions are tested at once on the needle's first and last
/// bytes, and only positions where both match are compared in full: on column values
/// (tens of bytes, where a common first letter sends a memchr-then-compare search into
/// memcmp over and over) that is several times faster than std::string_view::find.
size_t find(std::string_view haystack, std::string_view needle) {
  const size_t n = needle.size();
  if (n == 0) return 0;
  if (n > haystack.size()) return std::string_view::npos;
  if (n == 1) return haystack.find(needle[0]);
  const char* text = haystack.data();
  const size_t lastStart = haystack.size() - n;  // the last position a match can start at
  size_t position = 0;
#ifdef __AVX2__
  const __m256i first = _mm256_set1_epi8(needle[0]);
  const __m256i last = _mm256_set1_epi8(needle[n - 1]);
  for (; position + 32 <= lastStart + 1; position += 32) {
    const __m256i startBytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + position));
    const __m256i endBytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + position + n - 1));
    auto candidates = static_cast<uint32_t>(_mm256_movemask_epi8(
        _mm256_and_si256(_mm256_cmpeq_epi8(startBytes, first), _mm256_cmpeq_epi8(endBytes, last))));
    while (candidates != 0) {
      const size_t offset = position + static_cast<size_t>(__builtin_ctz(candidates));
      if (std::memcmp(text + offset + 1, needle.data() + 1, n - 2) == 0) return offset;
      candidates &= candidates - 1;
    }
  }
#endif
  for (; position <= lastStart; ++position) {
    if (text[position] == needle[0] && text[position + n - 1] == needle[n - 1] &&
        std::memcmp(text + position + 1, needle.data() + 1, n - 2) == 0) {
      return position;
    }
  }
  return std::string_view::npos;
}

/// Returns the first offset at or after `from` where the pattern from `p` (just past a '%')
/// can start to match: the next occurrence of its first byte when that is a literal.
size_t nextCandidate(std::string_view text, size_t from, std::string_view pattern, size_t p) {
  if (p >= pattern.size() || from >= text.size()) return from;
  char first = pattern[p];
  if (first == kAnySequence || first == kAnyCharacter) return from;
  if (first == kEscape) {
    // A trailing escape must still reach the matcher to fail there.
    if (p + 1 == pattern.size()) return from;
    first = pattern[p + 1];
  }
  // A continuation byte also occurs inside characters, where no match may start.
  if ((static_cast<unsigned char>(first) & 0xC0) == 0x80) return from;
  const void* found = std::memchr(text.data() + from, first, text.size() - from);
  return found == nullptr ? text.size() : static_cast<size_t>(static_cast<const char*>(found) - text.data());
}

}  // namespace

bool likeMatches(std::string_view text, std::string_view pattern) {
  // Matches literal runs left to right; on a mismatch, retries from the last '%' one
  // character further into the text. Remembering only the last '%' is enough: the
  // literal segments between '%'s match at their leftmost place without loss, because
  // a segment's match is as many characters long wherever it starts. No recursion, so
  // a hostile pattern costs O(text × pattern) time and no stack.
  size_t t = 0;
  size_t p = 0;
  // Where to resume after a mismatch: just past the last '%', and the text offset it was tried at.
  size_t retryPattern = std::string_view::npos;
  size_t retryText = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char token = pattern[p];
      if (token == kAnySequence) {
        retryPattern = ++p;
        retryText = nextCandidate(text, t, pattern, p);
        t = retryText;
        continue;
      }
      if (token == kAnyCharacter) {
        t = utf8NextCharacter(text, t);
        ++p;
        continue;
      }
      size_t width = 1;
      if (token == kEscape) {
        if (p + 1 == pattern.size()) failTrailingEscape();
        token = pattern[p + 1];
        width = 2;
      }
      if (token == text[t]) {
        ++t;
        p += width;
        continue;
      }
    }
    if (retryPattern == std::string_view::npos) return false;
    p = retryPattern;
    retryText = nextCandidate(text, utf8NextCharacter(text, retryText), pattern, p);
    t = retryText;
  }
  while (p < pattern.size() && pattern[p] == kAnySequence) ++p;
  return p == pattern.size();
}

LikeMatcher::LikeMatcher(std::string_view pattern) {
  std::vector<std::string> segments(1);
  for (size_t p = 0; p < pattern.size(); ++p) {
    char c = pattern[p];
    if (c == kAnyCharacter || (c == kEscape && p + 1 == pattern.size())) {
      strategy_ = Strategy::kGeneral;
      pattern_ = pattern;
      return;
    }
    if (c == kAnySequence) {
      segments.emplace_back();
    } else {
      segments.back() += c == kEscape ? pattern[++p] : c;
    }
  }
  prefix_ = std::move(segments.front());
  if (segments.size() == 1) {
    strategy_ = Strategy::kExact;
    return;
  }
  suffix_ = std::move(segments.back());
  for (size_t i = 1; i + 1 < segments.size(); ++i) {
    if (!segments[i].empty()) middles_.push_back(std::move(segments[i]));
  }
  if (middles_.empty() && suffix_.empty()) {
    strategy_ = Strategy::kPrefix;
  } else if (middles_.empty() && prefix_.empty()) {
    strategy_ = Strategy::kSuffix;
  } else if (middles_.size() == 1 && prefix_.empty() && suffix_.empty()) {
    strategy_ = Strategy::kContains;
  } else {
    strategy_ = Strategy::kSequence;
  }
}

bool LikeMatcher::matches(std::string_view text) const {
  switch (strategy_) {
    case Strategy::kExact:
      return text == prefix_;
    case Strategy::kPrefix:
      return text.starts_with(prefix_);
    case Strategy::kSuffix:
      return text.ends_with(suffix_);
    case Strategy::kContains:
      return find(text, middles_.front()) != std::string_view::npos;
    case Strategy::kSequence:
      return matchesSequence(text);
    case Strategy::kGeneral:
      return likeMatches(text, pattern_);
  }
  SHOAL_UNREACHABLE("unknown LIKE strategy");
}

bool LikeMatcher::matchesSequence(std::string_view text) const {
  // The prefix and suffix are anchored and must not overlap; each middle segment is
  // then taken at its leftmost occurrence, which leaves the most room for the next.
  if (text.size() < prefix_.size() + suffix_.size() || !text.starts_with(prefix_) || !text.ends_with(suffix_)) {
    return false;
  }
  std::string_view rest = text.substr(prefix_.size(), text.size() - prefix_.size() - suffix_.size());
  for (const std::string& middle : middles_) {
    size_t found = find(rest, middle);
    if (found == std::string_view::npos) return false;
    rest.remove_prefix(found + middle.size());
  }
  return true;
}

Vector evaluateLike(bool negate, const Vector& text, const Vector& pattern, bool patternIsConstant) {
  const StringRef* patterns = pattern.data<StringRef>();
  // A constant pattern is compiled once (a NULL one makes every row NULL: nothing is matched).
  if (patternIsConstant && pattern.size() > 0 && !pattern.isNull(0)) {
    const LikeMatcher matcher(patterns[0].view());
    return matchPatternRows(negate, text, pattern,
                            [&](std::string_view value, size_t) { return matcher.matches(value); });
  }
  return matchPatternRows(negate, text, pattern,
                          [&](std::string_view value, size_t row) { return likeMatches(value, patterns[row].view()); });
}

std::string likePatternWithEscape(std::string_view pattern, std::string_view escape) {
  if (utf8CharacterCount(escape) > 1) {
    throw ShoalError(Status(SqlState::kInvalidEscapeSequence, "invalid escape string")
                         .withHint("Escape string must be empty or one character."));
  }
  std::string rewritten;
  bool escaped = false;  // the previous character was the escape character
  for (size_t at = 0; at < pattern.size();) {
    const size_t next = utf8NextCharacter(pattern, at);
    const std::string_view character = pattern.substr(at, next - at);
    at = next;
    if (escaped) {
      rewritten += '\\';
      rewritten += character;
      escaped = false;
    } else if (!escape.empty() && character == escape) {
      escaped = true;
    } else {
      if (character == "\\") rewritten += '\\';  // a backslash that is not the escape stands for itself
      rewritten += character;
    }
  }
  if (escaped) rewritten += '\\';  // a trailing escape stays one: matching reaches it and fails, as in PostgreSQL
  return rewritten;
}

Vector evaluateLikeEscape(const Vector& pattern, const Vector& escape) {
  SHOAL_CHECK_EQ(pattern.size(), escape.size());
  Vector out(LogicalType::text(), pattern.size());
  out.validity() = pattern.validity();
  out.validity().intersect(escape.validity());
  const StringRef* patterns = pattern.data<StringRef>();
  const StringRef* escapes = escape.data<StringRef>();
  for (size_t row = 0; row < pattern.size(); ++row) {
    if (out.isNull(row)) continue;
    out.setString(row, likePatternWithEscape(patterns[row].view(), escapes[row].view()));
  }
  return out;
}

}  // namespace shoal::engine
