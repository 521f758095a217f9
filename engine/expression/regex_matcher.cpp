#include "engine/expression/regex_matcher.h"

#include <re2/re2.h>

#include <optional>
#include <string>

#include "common/status.h"
#include "engine/expression/pattern_match_rows.h"

namespace shoal::engine {

RegexMatcher::RegexMatcher(std::string_view pattern, bool caseInsensitive) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(!caseInsensitive);
  options.set_dot_nl(true);
  regex_ = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!regex_->ok()) {
    SHOAL_USER_FAIL(SqlState::kInvalidRegularExpression, "invalid regular expression: {}", regex_->error());
  }
}

RegexMatcher::~RegexMatcher() = default;

bool RegexMatcher::matches(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *regex_);
}

Vector evaluateRegexMatch(bool negate, bool caseInsensitive, const Vector& text, const Vector& pattern) {
  // The last pattern compiled serves until the pattern changes: once for a constant one, and row-dependent
  // patterns usually repeat.
  std::optional<RegexMatcher> matcher;
  std::string compiledPattern;
  const StringRef* patterns = pattern.data<StringRef>();
  return matchPatternRows(negate, text, pattern, [&](std::string_view value, size_t row) {
    std::string_view rowPattern = patterns[row].view();
    if (!matcher || rowPattern != compiledPattern) {
      matcher.emplace(rowPattern, caseInsensitive);
      compiledPattern.assign(rowPattern);
    }
    return matcher->matches(value);
  });
}

}  // namespace shoal::engine
