#include "engine/expression/regex_matcher.h"

#include <re2/re2.h>

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/expression/pattern_match_rows.h"
#include "engine/types/array_value.h"
#include "engine/types/value.h"

namespace shoal::engine {

RegexMatcher::RegexMatcher(std::string_view pattern, bool caseInsensitive, bool newlineSensitive) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(!caseInsensitive);
  options.set_dot_nl(!newlineSensitive);
  // RE2's multi-line mode is PostgreSQL's newline-sensitive '^' and '$'.
  const std::string source = (newlineSensitive ? "(?m)" : "") + std::string(pattern);
  regex_ = std::make_unique<re2::RE2>(source, options);
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

namespace {

struct RegexFlags {
  bool global = false;
  bool caseInsensitive = false;
  bool newlineSensitive = false;
};

/// PostgreSQL's parse_re_flags.
RegexFlags parseFlags(std::string_view text) {
  RegexFlags flags;
  for (char flag : text) {
    switch (flag) {
      case 'g':
        flags.global = true;
        break;
      case 'i':
        flags.caseInsensitive = true;
        break;
      case 'c':
        flags.caseInsensitive = false;
        break;
      case 'n':
      case 'm':
        flags.newlineSensitive = true;
        break;
      case 'b':
      case 'e':
      case 'p':
      case 'q':
      case 's':
      case 't':
      case 'w':
      case 'x':
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "regular expression option \"{}\" is not supported yet",
                        std::string(1, flag));
      default:
        SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid regular expression option: \"{}\"",
                        std::string(1, flag));
    }
  }
  return flags;
}

/// Compiles a row's pattern, reusing the last compiled one while the pattern and flags repeat.
class RowRegexCache {
 public:
  const RegexMatcher& get(std::string_view pattern, std::string_view flagText, const RegexFlags& flags) {
    if (!matcher_ || pattern != pattern_ || flagText != flagText_) {
      matcher_.emplace(pattern, flags.caseInsensitive, flags.newlineSensitive);
      pattern_.assign(pattern);
      flagText_.assign(flagText);
    }
    return *matcher_;
  }

 private:
  std::optional<RegexMatcher> matcher_;
  std::string pattern_;
  std::string flagText_;
};

/// Appends `replacement` with \1 .. \9, \& and \\ expanded from the match's `groups` (group 0 the match).
void appendReplacement(std::string_view replacement, const std::vector<re2::StringPiece>& groups, std::string& out) {
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c != '\\' || i + 1 == replacement.size()) {
      out.push_back(c);
      continue;
    }
    const char next = replacement[i + 1];
    if (next >= '1' && next <= '9') {
      const auto group = static_cast<size_t>(next - '0');
      if (group < groups.size() && groups[group].data() != nullptr)
        out.append(groups[group].data(), groups[group].size());
      ++i;
    } else if (next == '&') {
      out.append(groups[0].data(), groups[0].size());
      ++i;
    } else if (next == '\\') {
      out.push_back('\\');
      ++i;
    } else {
      out.push_back('\\');  // not an escape: the backslash stays and the next character is read as usual
    }
  }
}

std::string replaceMatches(const re2::RE2& regex, std::string_view text, std::string_view replacement, bool global) {
  std::vector<re2::StringPiece> groups(static_cast<size_t>(regex.NumberOfCapturingGroups()) + 1);
  const re2::StringPiece whole(text.data(), text.size());
  std::string out;
  size_t position = 0;  // the first byte not yet copied to `out`
  size_t searchFrom = 0;
  while (searchFrom <= text.size() &&
         regex.Match(whole, searchFrom, text.size(), RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size()))) {
    const auto start = static_cast<size_t>(groups[0].data() - text.data());
    const size_t end = start + groups[0].size();
    out.append(text.substr(position, start - position));
    appendReplacement(replacement, groups, out);
    position = end;
    if (!global) break;
    if (end > start) {
      searchFrom = end;
    } else if (start < text.size()) {
      // An empty match: keep the next character and search after it.
      const size_t next = utf8NextCharacter(text, start);
      out.append(text.substr(start, next - start));
      position = searchFrom = next;
    } else {
      break;
    }
  }
  if (position < text.size()) out.append(text.substr(position));
  return out;
}

}  // namespace

Vector evaluateRegexReplace(const Vector& text, const Vector& pattern, const Vector& replacement, const Vector& flags) {
  Vector out(LogicalType::text(), text.size());
  out.validity() = text.validity();
  for (const Vector* argument : {&pattern, &replacement, &flags}) out.validity().intersect(argument->validity());
  RowRegexCache cache;
  for (size_t row = 0; row < text.size(); ++row) {
    if (out.isNull(row)) continue;
    const std::string_view flagText = flags.data<StringRef>()[row].view();
    const RegexFlags parsed = parseFlags(flagText);
    const RegexMatcher& matcher = cache.get(pattern.data<StringRef>()[row].view(), flagText, parsed);
    out.setString(row, replaceMatches(matcher.regex(), text.data<StringRef>()[row].view(),
                                      replacement.data<StringRef>()[row].view(), parsed.global));
  }
  return out;
}

Vector evaluateRegexMatchArray(const Vector& text, const Vector& pattern, const Vector& flags) {
  const LogicalType arrayType = LogicalType::array(LogicalType::text());
  Vector out(arrayType, text.size());
  out.validity() = text.validity();
  out.validity().intersect(pattern.validity());
  out.validity().intersect(flags.validity());
  RowRegexCache cache;
  std::vector<Value> elements;
  for (size_t row = 0; row < text.size(); ++row) {
    if (out.isNull(row)) continue;
    const std::string_view flagText = flags.data<StringRef>()[row].view();
    const RegexFlags parsed = parseFlags(flagText);
    if (parsed.global) {
      throw ShoalError(Status(SqlState::kInvalidParameterValue, "regexp_match() does not support the \"global\" option")
                           .withHint("Use the regexp_matches function instead."));
    }
    const re2::RE2& regex = cache.get(pattern.data<StringRef>()[row].view(), flagText, parsed).regex();
    const std::string_view value = text.data<StringRef>()[row].view();
    std::vector<re2::StringPiece> groups(static_cast<size_t>(regex.NumberOfCapturingGroups()) + 1);
    if (!regex.Match(re2::StringPiece(value.data(), value.size()), 0, value.size(), RE2::UNANCHORED, groups.data(),
                     static_cast<int>(groups.size()))) {
      out.setNull(row, true);
      continue;
    }
    // The groups, or the whole match when the pattern has none.
    elements.clear();
    for (size_t group = groups.size() == 1 ? 0 : 1; group < groups.size(); ++group) {
      elements.push_back(groups[group].data() == nullptr
                             ? Value::null(LogicalType::text())
                             : Value::varchar(std::string(groups[group].data(), groups[group].size())));
    }
    out.setString(row, encodeArray(elements, LogicalType::text()));
  }
  return out;
}

}  // namespace shoal::engine
