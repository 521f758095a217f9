#include "engine/expression/datetime_to_char.h"

#include <array>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "common/status.h"
#include "engine/types/date.h"
#include "engine/types/interval.h"

namespace shoal::engine {
namespace {

constexpr std::array<std::string_view, 12> kMonths = {"January",   "February", "March",    "April",
                                                      "May",       "June",     "July",     "August",
                                                      "September", "October",  "November", "December"};
constexpr std::array<std::string_view, 7> kDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                   "Thursday", "Friday", "Saturday"};

/// The broken-down local time of one value.
struct Fields {
  int32_t year;
  uint32_t month;
  uint32_t day;
  int32_t dayOfYear;  // 1-based
  int32_t weekday;    // 0 = Sunday
  int64_t microsOfDay;
  int64_t julianDay;
  bool hasZone;
  int32_t offsetSeconds;
  const TimeZone* zone;  // for TZ's abbreviation, looked up only when the format asks
  int64_t utcMicros;
};

int64_t floorDivide(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// ISO 8601 week-numbering year and week of a date (weeks start on Monday; week 1 holds January 4th).
void isoWeek(int32_t days, int32_t& isoYear, int32_t& week) {
  const int32_t isoWeekday = static_cast<int32_t>(((days % 7) + 7 + 3) % 7);  // 0 = Monday (1970-01-01 was a Thursday)
  const int32_t thursday = days - isoWeekday + 3;
  isoYear = civilFromDays(thursday).year;
  const int32_t firstThursday = [&] {
    const int32_t january4 = daysFromCivil(CivilDate{isoYear, 1, 4});
    const int32_t weekday = ((january4 % 7) + 7 + 3) % 7;
    return january4 - weekday + 3;
  }();
  week = (thursday - firstThursday) / 7 + 1;
}

std::string cased(std::string_view name, char style) {
  // style: 'U' all upper, 'C' capitalized (as written), 'L' all lower.
  std::string text(name);
  for (size_t i = 0; i < text.size(); ++i) {
    if (style == 'U') text[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    if (style == 'L') text[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  return text;
}

/// The template patterns, longest first where one is a prefix of another, each with the cases PostgreSQL
/// accepts. `kind` names the field; `style` the case of a name ('U', 'C', 'L').
struct Pattern {
  std::string_view text;
  std::string_view kind;
  char style;
};

constexpr Pattern kPatterns[] = {
    {"A.D.", "AD.", 'U'},    {"a.d.", "AD.", 'L'},    {"AD", "AD", 'U'},       {"ad", "AD", 'L'},
    {"A.M.", "AM.", 'U'},    {"a.m.", "AM.", 'L'},    {"AM", "AM", 'U'},       {"am", "AM", 'L'},
    {"B.C.", "AD.", 'U'},    {"b.c.", "AD.", 'L'},    {"BC", "AD", 'U'},       {"bc", "AD", 'L'},
    {"CC", "CC", 'U'},       {"cc", "CC", 'U'},       {"DAY", "DAY", 'U'},     {"Day", "DAY", 'C'},
    {"day", "DAY", 'L'},     {"DDD", "DDD", 'U'},     {"ddd", "DDD", 'U'},     {"DD", "DD", 'U'},
    {"dd", "DD", 'U'},       {"DY", "DY", 'U'},       {"Dy", "DY", 'C'},       {"dy", "DY", 'L'},
    {"D", "D", 'U'},         {"d", "D", 'U'},         {"HH24", "HH24", 'U'},   {"hh24", "HH24", 'U'},
    {"HH12", "HH12", 'U'},   {"hh12", "HH12", 'U'},   {"HH", "HH12", 'U'},     {"hh", "HH12", 'U'},
    {"IDDD", "IDDD", 'U'},   {"iddd", "IDDD", 'U'},   {"ID", "ID", 'U'},       {"id", "ID", 'U'},
    {"IW", "IW", 'U'},       {"iw", "IW", 'U'},       {"IYYY", "IYYY", 'U'},   {"iyyy", "IYYY", 'U'},
    {"IYY", "IYY", 'U'},     {"iyy", "IYY", 'U'},     {"IY", "IY", 'U'},       {"iy", "IY", 'U'},
    {"I", "I", 'U'},         {"i", "I", 'U'},         {"J", "J", 'U'},         {"j", "J", 'U'},
    {"MI", "MI", 'U'},       {"mi", "MI", 'U'},       {"MM", "MM", 'U'},       {"mm", "MM", 'U'},
    {"MONTH", "MONTH", 'U'}, {"Month", "MONTH", 'C'}, {"month", "MONTH", 'L'}, {"MON", "MON", 'U'},
    {"Mon", "MON", 'C'},     {"mon", "MON", 'L'},     {"MS", "MS", 'U'},       {"ms", "MS", 'U'},
    {"OF", "OF", 'U'},       {"of", "OF", 'U'},       {"P.M.", "AM.", 'U'},    {"p.m.", "AM.", 'L'},
    {"PM", "AM", 'U'},       {"pm", "AM", 'L'},       {"Q", "Q", 'U'},         {"q", "Q", 'U'},
    {"SSSSS", "SSSS", 'U'},  {"sssss", "SSSS", 'U'},  {"SSSS", "SSSS", 'U'},   {"ssss", "SSSS", 'U'},
    {"SS", "SS", 'U'},       {"ss", "SS", 'U'},       {"TZH", "TZH", 'U'},     {"tzh", "TZH", 'U'},
    {"TZM", "TZM", 'U'},     {"tzm", "TZM", 'U'},     {"TZ", "TZ", 'U'},       {"tz", "TZ", 'L'},
    {"US", "US", 'U'},       {"us", "US", 'U'},       {"WW", "WW", 'U'},       {"ww", "WW", 'U'},
    {"W", "W", 'U'},         {"w", "W", 'U'},         {"Y,YYY", "Y,YYY", 'U'}, {"y,yyy", "Y,YYY", 'U'},
    {"YYYY", "YYYY", 'U'},   {"yyyy", "YYYY", 'U'},   {"YYY", "YYY", 'U'},     {"yyy", "YYY", 'U'},
    {"YY", "YY", 'U'},       {"yy", "YY", 'U'},       {"Y", "Y", 'U'},         {"y", "Y", 'U'},
};

/// A number zero-padded to `width` digits (no padding in fill mode), with its ordinal suffix if asked.
void appendNumber(std::string& out, int64_t value, int width, bool fillMode, int suffix) {
  char digits[24];
  int count = 0;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  do {
    digits[count++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (value < 0) out += '-';
  if (!fillMode) out.append(static_cast<size_t>(std::max(0, width - count)), '0');
  while (count > 0) out += digits[--count];
  if (suffix != 0) out += ordinalSuffix(value, suffix > 0);
}

void appendName(std::string& out, std::string_view name, char style, bool fillMode, size_t width) {
  std::string text = cased(name, style);
  if (!fillMode && text.size() < width) text.append(width - text.size(), ' ');
  out += text;
}

void appendOffset(std::string& out, int32_t offsetSeconds, bool withMinutes) {
  const int32_t magnitude = std::abs(offsetSeconds);
  out += fmt::format("{}{:02}", offsetSeconds < 0 ? '-' : '+', magnitude / 3600);
  if (withMinutes && magnitude % 3600 != 0) out += fmt::format(":{:02}", magnitude % 3600 / 60);
}

/// One piece of a parsed format: a pattern (with its FM prefix and TH suffix) or literal text.
struct Token {
  const Pattern* pattern = nullptr;  // null: literal
  bool fillMode = false;
  int suffix = 0;  // an ordinal suffix after a number: 1 upper (TH), -1 lower (th)
  std::string literal;
};

/// Splits a format into patterns and literal text, as formatting.c's parse_format does.
std::vector<Token> parseFormat(std::string_view pattern) {
  std::vector<Token> tokens;
  auto literal = [&](char c) {
    if (tokens.empty() || tokens.back().pattern != nullptr) tokens.emplace_back();
    tokens.back().literal += c;
  };
  for (size_t p = 0; p < pattern.size();) {
    bool fillMode = false;
    if (pattern.substr(p, 2) == "FM" || pattern.substr(p, 2) == "fm") {
      fillMode = true;
      p += 2;
    }
    const Pattern* match = nullptr;
    for (const Pattern& candidate : kPatterns) {
      if (pattern.substr(p, candidate.text.size()) == candidate.text) {
        match = &candidate;
        break;
      }
    }
    if (match == nullptr) {
      if (p >= pattern.size()) break;
      if (pattern[p] == '"') {
        for (++p; p < pattern.size() && pattern[p] != '"'; ++p) {
          if (pattern[p] == '\\' && p + 1 < pattern.size()) ++p;
          literal(pattern[p]);
        }
        ++p;
      } else if (pattern[p] == '\\' && p + 1 < pattern.size() && pattern[p + 1] == '"') {
        literal('"');
        p += 2;
      } else {
        literal(pattern[p++]);
      }
      continue;
    }
    p += match->text.size();
    Token token;
    token.pattern = match;
    token.fillMode = fillMode;
    if (pattern.substr(p, 2) == "TH" || pattern.substr(p, 2) == "th") {
      token.suffix = pattern[p] == 'T' ? 1 : -1;
      p += 2;
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

void format(const Fields& f, const std::vector<Token>& tokens, std::string& out) {
  const int64_t hour = f.microsOfDay / (3600 * kMicrosPerSecond);
  const int64_t minute = f.microsOfDay / (60 * kMicrosPerSecond) % 60;
  const int64_t second = f.microsOfDay / kMicrosPerSecond % 60;
  const int64_t micro = f.microsOfDay % kMicrosPerSecond;
  int32_t isoYear = 0;
  int32_t week = 0;
  bool isoKnown = false;
  auto iso = [&] {
    if (!isoKnown) isoWeek(static_cast<int32_t>(f.julianDay - 2440588), isoYear, week);
    isoKnown = true;
  };
  for (const Token& token : tokens) {
    if (token.pattern == nullptr) {
      out += token.literal;
      continue;
    }
    const bool fillMode = token.fillMode;
    const int suffix = token.suffix;
    const std::string_view kind = token.pattern->kind;
    const char style = token.pattern->style;
    if (kind[0] == 'I') iso();
    if (kind == "YYYY") {
      appendNumber(out, f.year, 4, fillMode, suffix);
    } else if (kind == "Y,YYY") {
      out += fmt::format("{},{:03}", f.year / 1000, f.year % 1000);
      if (suffix != 0) out += ordinalSuffix(f.year, suffix > 0);
    } else if (kind == "YYY" || kind == "YY" || kind == "Y") {
      const int width = static_cast<int>(kind.size());
      appendNumber(out, f.year % (width == 3 ? 1000 : width == 2 ? 100 : 10), width, fillMode, suffix);
    } else if (kind == "IYYY") {
      appendNumber(out, isoYear, 4, fillMode, suffix);
    } else if (kind == "IYY" || kind == "IY" || kind == "I") {
      const int width = static_cast<int>(kind.size());
      appendNumber(out, isoYear % (width == 3 ? 1000 : width == 2 ? 100 : 10), width, fillMode, suffix);
    } else if (kind == "MM") {
      appendNumber(out, f.month, 2, fillMode, suffix);
    } else if (kind == "MONTH") {
      appendName(out, kMonths[f.month - 1], style, fillMode, 9);
    } else if (kind == "MON") {
      appendName(out, kMonths[f.month - 1].substr(0, 3), style, fillMode, 3);
    } else if (kind == "DD") {
      appendNumber(out, f.day, 2, fillMode, suffix);
    } else if (kind == "DDD") {
      appendNumber(out, f.dayOfYear, 3, fillMode, suffix);
    } else if (kind == "IDDD") {
      const int32_t isoWeekday = (f.weekday + 6) % 7 + 1;
      appendNumber(out, (week - 1) * 7 + isoWeekday, 3, fillMode, suffix);
    } else if (kind == "D") {
      appendNumber(out, f.weekday + 1, 1, fillMode, suffix);
    } else if (kind == "ID") {
      appendNumber(out, (f.weekday + 6) % 7 + 1, 1, fillMode, suffix);
    } else if (kind == "DAY") {
      appendName(out, kDays[static_cast<size_t>(f.weekday)], style, fillMode, 9);
    } else if (kind == "DY") {
      appendName(out, kDays[static_cast<size_t>(f.weekday)].substr(0, 3), style, fillMode, 3);
    } else if (kind == "W") {
      appendNumber(out, (f.day - 1) / 7 + 1, 1, fillMode, suffix);
    } else if (kind == "WW") {
      appendNumber(out, (f.dayOfYear - 1) / 7 + 1, 2, fillMode, suffix);
    } else if (kind == "IW") {
      appendNumber(out, week, 2, fillMode, suffix);
    } else if (kind == "Q") {
      appendNumber(out, (f.month - 1) / 3 + 1, 1, fillMode, suffix);
    } else if (kind == "CC") {
      appendNumber(out, f.year > 0 ? (f.year + 99) / 100 : -((99 - (f.year - 1)) / 100), 2, fillMode, suffix);
    } else if (kind == "J") {
      appendNumber(out, f.julianDay, 1, fillMode, suffix);
    } else if (kind == "HH24") {
      appendNumber(out, hour, 2, fillMode, suffix);
    } else if (kind == "HH12") {
      appendNumber(out, hour % 12 == 0 ? 12 : hour % 12, 2, fillMode, suffix);
    } else if (kind == "MI") {
      appendNumber(out, minute, 2, fillMode, suffix);
    } else if (kind == "SS") {
      appendNumber(out, second, 2, fillMode, suffix);
    } else if (kind == "MS") {
      appendNumber(out, micro / 1000, 3, fillMode, suffix);
    } else if (kind == "US") {
      appendNumber(out, micro, 6, fillMode, suffix);
    } else if (kind == "SSSS") {
      appendNumber(out, f.microsOfDay / kMicrosPerSecond, 1, fillMode, suffix);
    } else if (kind == "AM" || kind == "AM.") {
      const bool dotted = kind == "AM.";
      std::string_view text = hour >= 12 ? (dotted ? "P.M." : "PM") : (dotted ? "A.M." : "AM");
      out += cased(text, style);
    } else if (kind == "AD" || kind == "AD.") {
      const bool dotted = kind == "AD.";
      std::string_view text = f.year > 0 ? (dotted ? "A.D." : "AD") : (dotted ? "B.C." : "BC");
      out += cased(text, style);
    } else if (kind == "TZ") {
      if (f.hasZone) out += cased(f.zone->abbreviationAt(f.utcMicros), style);
    } else if (kind == "OF") {
      appendOffset(out, f.offsetSeconds, true);  // a plain timestamp's offset is 0
    } else if (kind == "TZH") {
      appendOffset(out, f.offsetSeconds - f.offsetSeconds % 3600, false);
    } else if (kind == "TZM") {
      out += fmt::format("{:02}", std::abs(f.offsetSeconds) % 3600 / 60);
    }
  }
}

/// An interval's fields as PostgreSQL's interval2tm gives them: each truncated toward zero, so every field has
/// the interval's sign.
struct IntervalFields {
  int64_t year;
  int64_t month;
  int64_t day;
  int64_t hour;
  int64_t minute;
  int64_t second;
  int64_t micro;
  int64_t dayOfYear;  // the span in 30-day months: what tm_yday holds for an interval
};

/// printf's "%0*lld": `value` with at least `width` characters, zero-padded after its sign.
void appendPadded(std::string& out, int64_t value, int width) {
  out += fmt::format("{:0{}}", value, width);
}

/// One interval through the tokens, as DCH_to_char formats one with is_interval: numbers keep their sign (a
/// negative one takes a character more of width), the hour goes past 24, and the fields that name a calendar
/// date fail (22007) or are not supported (0A000).
void formatInterval(const IntervalFields& f, const std::vector<Token>& tokens, std::string& out) {
  for (const Token& token : tokens) {
    if (token.pattern == nullptr) {
      out += token.literal;
      continue;
    }
    const std::string_view kind = token.pattern->kind;
    const bool fm = token.fillMode;
    // A number with its FM-free width (one more when negative), then its ordinal suffix.
    auto number = [&](int64_t value, int width, bool widerWhenNegative = true) {
      appendPadded(out, value, fm ? 0 : width + (widerWhenNegative && value < 0 ? 1 : 0));
      if (token.suffix != 0) out += ordinalSuffix(value, token.suffix > 0);
    };
    if (kind == "YYYY") {
      if (f.year <= 9999 && f.year >= -9998) {
        number(f.year, 4);
      } else {
        number(f.year, 0);
      }
    } else if (kind == "Y,YYY") {
      out += fmt::format("{},{:03}", f.year / 1000, f.year % 1000);
      if (token.suffix != 0) out += ordinalSuffix(f.year, token.suffix > 0);
    } else if (kind == "YYY" || kind == "YY" || kind == "Y") {
      const int width = static_cast<int>(kind.size());
      number(f.year % (width == 3 ? 1000 : width == 2 ? 100 : 10), width);
    } else if (kind == "CC") {
      number(f.year / 100, 2);
    } else if (kind == "MM") {
      number(f.month, 2);
    } else if (kind == "Q") {
      if (f.month != 0) number((f.month - 1) / 3 + 1, 0);
    } else if (kind == "DD") {
      number(f.day, 2, false);
    } else if (kind == "DDD") {
      number(f.dayOfYear, 3, false);
    } else if (kind == "WW") {
      number((f.dayOfYear - 1) / 7 + 1, 2, false);
    } else if (kind == "W") {
      number((f.day - 1) / 7 + 1, 0);
    } else if (kind == "HH12") {
      number(f.hour % 12 == 0 ? 12 : f.hour % 12, 2);
    } else if (kind == "HH24") {
      number(f.hour, 2);
    } else if (kind == "MI") {
      number(f.minute, 2);
    } else if (kind == "SS") {
      number(f.second, 2);
    } else if (kind == "MS") {
      number(f.micro / 1000, 3, false);
    } else if (kind == "US") {
      number(f.micro, 6, false);
    } else if (kind == "SSSS") {
      number(f.hour * 3600 + f.minute * 60 + f.second, 0);
    } else if (kind == "AM" || kind == "AM.") {
      const bool dotted = kind == "AM.";
      const bool afternoon = f.hour % 24 >= 12;
      out += cased(afternoon ? (dotted ? "P.M." : "PM") : (dotted ? "A.M." : "AM"), token.pattern->style);
    } else if (kind == "J" || (kind[0] == 'I' && kind != "ID")) {
      // PostgreSQL computes these from a pseudo-date of the interval's fields; nobody should want them.
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "formatting field \"{}\" of an interval is not supported",
                      token.pattern->text);
    } else {
      // Month and day names, weekdays, eras and zones: INVALID_FOR_INTERVAL.
      throw ShoalError(Status(SqlState::kInvalidDatetimeFormat, "invalid format specification for an interval value")
                           .withHint("Intervals are not tied to specific calendar dates."));
    }
  }
}

/// to_char(interval, format).
Vector intervalToChar(const Vector& values, const Vector& formats) {
  Vector out(LogicalType::text(), values.size());
  std::string text;
  std::string parsedFormat;
  std::vector<Token> tokens;
  for (size_t row = 0; row < values.size(); ++row) {
    if (values.isNull(row) || formats.isNull(row) || formats.data<StringRef>()[row].size() == 0) {
      out.setNull(row, true);
      continue;
    }
    const Interval interval = unpackInterval(values.data<int128_t>()[row]);
    IntervalFields fields{};
    fields.year = interval.months / 12;
    fields.month = interval.months % 12;
    fields.day = interval.days;
    const int64_t seconds = interval.micros / kMicrosPerSecond;
    fields.hour = seconds / 3600;
    fields.minute = seconds % 3600 / 60;
    fields.second = seconds % 60;
    fields.micro = interval.micros % kMicrosPerSecond;
    fields.dayOfYear = (fields.year * 12 + fields.month) * 30 + fields.day;
    const std::string_view formatText = formats.data<StringRef>()[row].view();
    if (tokens.empty() || formatText != parsedFormat) {
      parsedFormat = formatText;
      tokens = parseFormat(formatText);
    }
    text.clear();
    formatInterval(fields, tokens, text);
    out.setString(row, text);
    out.setNull(row, false);
  }
  return out;
}

}  // namespace

std::string ordinalSuffix(int64_t number, bool upper) {
  const int64_t last = std::llabs(number) % 10;
  const int64_t lastTwo = std::llabs(number) % 100;
  std::string_view suffix = "th";
  if (lastTwo < 11 || lastTwo > 13) {
    if (last == 1) suffix = "st";
    if (last == 2) suffix = "nd";
    if (last == 3) suffix = "rd";
  }
  return upper ? cased(suffix, 'U') : std::string(suffix);
}

Vector evaluateDateTimeToChar(const Vector& values, const Vector& formats, const TimeZone& zone) {
  if (values.type().id() == TypeId::kInterval) return intervalToChar(values, formats);
  const bool withZone = values.type().id() == TypeId::kTimestampTz;
  Vector out(LogicalType::text(), values.size());
  std::string text;
  std::string parsedFormat;  // formats are mostly one constant: parsed again only when the text changes
  std::vector<Token> tokens;
  for (size_t row = 0; row < values.size(); ++row) {
    const int64_t micros = values.data<int64_t>()[row];
    if (values.isNull(row) || formats.isNull(row) || micros == kTimestampInfinity ||
        micros == kTimestampMinusInfinity || formats.data<StringRef>()[row].size() == 0) {
      out.setNull(row, true);
      continue;
    }
    Fields fields{};
    int64_t local = micros;
    fields.hasZone = withZone;
    fields.zone = &zone;
    fields.utcMicros = micros;
    if (withZone) {
      fields.offsetSeconds = zone.offsetAt(micros);
      local += fields.offsetSeconds * kMicrosPerSecond;
    }
    const int64_t days = floorDivide(local, kMicrosPerDay);
    fields.microsOfDay = local - days * kMicrosPerDay;
    const CivilDate date = civilFromDays(static_cast<int32_t>(days));
    fields.year = date.year;
    fields.month = date.month;
    fields.day = date.day;
    fields.dayOfYear = static_cast<int32_t>(days) - daysFromCivil(CivilDate{date.year, 1, 1}) + 1;
    fields.weekday = static_cast<int32_t>(((days % 7) + 7 + 4) % 7);  // 1970-01-01 was a Thursday
    fields.julianDay = days + 2440588;
    const std::string_view formatText = formats.data<StringRef>()[row].view();
    if (tokens.empty() || formatText != parsedFormat) {
      parsedFormat = formatText;
      tokens = parseFormat(formatText);
    }
    text.clear();
    format(fields, tokens, text);
    out.setString(row, text);
    out.setNull(row, false);
  }
  return out;
}

}  // namespace shoal::engine
