#include "engine/expression/datetime_from_char.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "engine/types/date.h"
#include "engine/types/timestamp_text.h"

namespace shoal::engine {
namespace {

// The fields to_date and to_timestamp read, as PostgreSQL 15's formatting.c (DCH_from_char) reads them.
enum class Field {
  kYear4,  // YYYY: as written
  kYear3,  // YYY, YY, Y: adjusted into 1970-2069 (two digits) or 2000-2519 / 1520-1999 (three)
  kYear2,
  kYear1,
  kMonth,       // MM
  kMonthName,   // Month: January
  kMonthShort,  // Mon: Jan
  kDay,         // DD
  kDayOfYear,   // DDD
  kDayOfWeek,   // D: read, then ignored, as PostgreSQL ignores it without week fields
  kDayName,     // Day, Dy: matched, then ignored
  kDayShort,
  kHour12,  // HH, HH12
  kHour24,  // HH24
  kMinute,
  kSecond,
  kMillis,          // MS
  kMicros,          // US
  kMeridiem,        // AM PM am pm
  kMeridiemDotted,  // A.M. P.M.
  kEra,             // AD BC
  kEraDotted,       // A.D. B.C.
  kFixed,           // FX: the rest of the format is matched exactly
  kUnsupported,
};

struct Keyword {
  std::string_view text;
  Field field;
  int length;  // the digits a numeric field reads when the next format item is a digit field too
  bool digits;
};

// Longest first where one keyword begins another (MONTH before MON before MM, HH24 before HH).
constexpr Keyword kKeywords[] = {
    {"A.D.", Field::kEraDotted, 0, false},
    {"a.d.", Field::kEraDotted, 0, false},
    {"A.M.", Field::kMeridiemDotted, 0, false},
    {"a.m.", Field::kMeridiemDotted, 0, false},
    {"AD", Field::kEra, 0, false},
    {"ad", Field::kEra, 0, false},
    {"AM", Field::kMeridiem, 0, false},
    {"am", Field::kMeridiem, 0, false},
    {"B.C.", Field::kEraDotted, 0, false},
    {"b.c.", Field::kEraDotted, 0, false},
    {"BC", Field::kEra, 0, false},
    {"bc", Field::kEra, 0, false},
    {"CC", Field::kUnsupported, 0, true},
    {"cc", Field::kUnsupported, 0, true},
    {"DAY", Field::kDayName, 0, false},
    {"Day", Field::kDayName, 0, false},
    {"day", Field::kDayName, 0, false},
    {"DDD", Field::kDayOfYear, 3, true},
    {"ddd", Field::kDayOfYear, 3, true},
    {"DD", Field::kDay, 2, true},
    {"dd", Field::kDay, 2, true},
    {"DY", Field::kDayShort, 0, false},
    {"Dy", Field::kDayShort, 0, false},
    {"dy", Field::kDayShort, 0, false},
    {"D", Field::kDayOfWeek, 1, true},
    {"d", Field::kDayOfWeek, 1, true},
    {"FF", Field::kUnsupported, 0, true},
    {"ff", Field::kUnsupported, 0, true},
    {"FX", Field::kFixed, 0, false},
    {"HH24", Field::kHour24, 2, true},
    {"hh24", Field::kHour24, 2, true},
    {"HH12", Field::kHour12, 2, true},
    {"hh12", Field::kHour12, 2, true},
    {"HH", Field::kHour12, 2, true},
    {"hh", Field::kHour12, 2, true},
    {"ID", Field::kUnsupported, 0, true},
    {"id", Field::kUnsupported, 0, true},
    {"IW", Field::kUnsupported, 0, true},
    {"iw", Field::kUnsupported, 0, true},
    {"IY", Field::kUnsupported, 0, true},
    {"iy", Field::kUnsupported, 0, true},
    {"I", Field::kUnsupported, 0, true},
    {"i", Field::kUnsupported, 0, true},
    {"J", Field::kUnsupported, 0, true},
    {"j", Field::kUnsupported, 0, true},
    {"MI", Field::kMinute, 2, true},
    {"mi", Field::kMinute, 2, true},
    {"MM", Field::kMonth, 2, true},
    {"mm", Field::kMonth, 2, true},
    {"MONTH", Field::kMonthName, 0, false},
    {"Month", Field::kMonthName, 0, false},
    {"month", Field::kMonthName, 0, false},
    {"MON", Field::kMonthShort, 0, false},
    {"Mon", Field::kMonthShort, 0, false},
    {"mon", Field::kMonthShort, 0, false},
    {"MS", Field::kMillis, 3, true},
    {"ms", Field::kMillis, 3, true},
    {"OF", Field::kUnsupported, 0, false},
    {"of", Field::kUnsupported, 0, false},
    {"P.M.", Field::kMeridiemDotted, 0, false},
    {"p.m.", Field::kMeridiemDotted, 0, false},
    {"PM", Field::kMeridiem, 0, false},
    {"pm", Field::kMeridiem, 0, false},
    {"Q", Field::kUnsupported, 0, true},
    {"q", Field::kUnsupported, 0, true},
    {"RM", Field::kUnsupported, 0, false},
    {"rm", Field::kUnsupported, 0, false},
    {"SSSSS", Field::kUnsupported, 0, true},
    {"sssss", Field::kUnsupported, 0, true},
    {"SSSS", Field::kUnsupported, 0, true},
    {"ssss", Field::kUnsupported, 0, true},
    {"SS", Field::kSecond, 2, true},
    {"ss", Field::kSecond, 2, true},
    {"TZH", Field::kUnsupported, 0, false},
    {"TZM", Field::kUnsupported, 0, false},
    {"TZ", Field::kUnsupported, 0, false},
    {"tz", Field::kUnsupported, 0, false},
    {"US", Field::kMicros, 6, true},
    {"us", Field::kMicros, 6, true},
    {"WW", Field::kUnsupported, 0, true},
    {"ww", Field::kUnsupported, 0, true},
    {"W", Field::kUnsupported, 0, true},
    {"w", Field::kUnsupported, 0, true},
    {"Y,YYY", Field::kUnsupported, 0, true},
    {"y,yyy", Field::kUnsupported, 0, true},
    {"YYYY", Field::kYear4, 4, true},
    {"yyyy", Field::kYear4, 4, true},
    {"YYY", Field::kYear3, 3, true},
    {"yyy", Field::kYear3, 3, true},
    {"YY", Field::kYear2, 2, true},
    {"yy", Field::kYear2, 2, true},
    {"Y", Field::kYear1, 1, true},
    {"y", Field::kYear1, 1, true},
};

constexpr std::array<std::string_view, 12> kMonthNames = {"january",   "february", "march",    "april",
                                                          "may",       "june",     "july",     "august",
                                                          "september", "october",  "november", "december"};
constexpr std::array<std::string_view, 7> kDayNames = {"sunday",   "monday", "tuesday", "wednesday",
                                                       "thursday", "friday", "saturday"};

/// One item of a format: a keyword (with FM / TH), a space, a separator, or any other character.
struct Item {
  enum class Kind { kKeyword, kSpace, kSeparator, kCharacter } kind;
  const Keyword* keyword = nullptr;
  bool fillMode = false;  // FM: read as many digits as there are
  bool ordinal = false;   // TH/th after the field: its suffix is skipped in the input
};

/// PostgreSQL's is_separator_char: printable ASCII that is not a letter or a digit.
bool isSeparator(char c) {
  return c > 0x20 && c < 0x7F && !std::isalnum(static_cast<unsigned char>(c));
}

std::vector<Item> parseFormat(std::string_view format) {
  std::vector<Item> items;
  for (size_t pos = 0; pos < format.size();) {
    if (format[pos] == '"') {  // quoted text: each character is a literal
      for (++pos; pos < format.size() && format[pos] != '"'; ++pos) {
        if (format[pos] == '\\' && pos + 1 < format.size()) ++pos;
        items.push_back({Item::Kind::kCharacter});
      }
      ++pos;
      continue;
    }
    bool fillMode = false;
    if (format.substr(pos).starts_with("FM") || format.substr(pos).starts_with("fm")) {
      fillMode = true;
      pos += 2;
    }
    const Keyword* match = nullptr;
    for (const Keyword& keyword : kKeywords) {
      if (format.substr(pos).starts_with(keyword.text)) {
        match = &keyword;
        break;
      }
    }
    if (match != nullptr) {
      pos += match->text.size();
      bool ordinal = false;
      if (format.substr(pos).starts_with("TH") || format.substr(pos).starts_with("th")) {
        ordinal = true;
        pos += 2;
      }
      items.push_back({Item::Kind::kKeyword, match, fillMode, ordinal});
      continue;
    }
    const char c = format[pos++];
    if (c == '\\' && pos < format.size()) ++pos;
    items.push_back({c == ' ' ? Item::Kind::kSpace : isSeparator(c) ? Item::Kind::kSeparator : Item::Kind::kCharacter});
  }
  return items;
}

/// What the fields of one input set.
struct Parsed {
  std::optional<int64_t> year;
  std::optional<int64_t> month;
  std::optional<int64_t> day;
  std::optional<int64_t> dayOfYear;
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  int64_t micros = 0;
  bool twelveHour = false;
  std::optional<bool> afternoon;
  bool beforeChrist = false;
  bool fractionTooLong = false;  // MS of more than 3 digits, US of more than 6
};

/// Reads one input string against the format's items, as DCH_from_char does.
class FromCharReader {
 public:
  FromCharReader(std::string_view input, const std::vector<Item>& items) : input_(input), items_(items) {}

  Parsed read() {
    int extraSkip = 0;
    bool fixed = false;
    for (size_t index = 0; index < items_.size() && pos_ < input_.size(); ++index) {
      const Item& item = items_[index];
      // Spaces before the first item and before every field are skipped, unless FX.
      const bool field = item.kind == Item::Kind::kKeyword && item.keyword->field != Field::kFixed;
      if (!fixed && (field || index == 0)) extraSkip += skipSpaces();
      if (item.kind == Item::Kind::kSpace || item.kind == Item::Kind::kSeparator) {
        // One format space or separator matches one input space or separator, or nothing.
        if (fixed) {
          ++pos_;
        } else {
          --extraSkip;
          if (pos_ < input_.size() && (input_[pos_] == ' ' || isSeparator(input_[pos_]) ||
                                       std::isspace(static_cast<unsigned char>(input_[pos_])))) {
            ++pos_;
            ++extraSkip;
          }
        }
        continue;
      }
      if (item.kind == Item::Kind::kCharacter) {
        // Any other format character consumes one input character, whatever it is (but not one that was
        // skipped as a space already).
        if (!fixed && extraSkip > 0) {
          --extraSkip;
        } else {
          ++pos_;
        }
        continue;
      }
      if (item.keyword->field == Field::kFixed) {
        fixed = true;
        continue;
      }
      readField(index);
      if (!fixed) {
        extraSkip = 0;
        extraSkip += skipSpaces();
      }
    }
    return parsed_;
  }

 private:
  int skipSpaces() {
    int skipped = 0;
    while (pos_ < input_.size() && std::isspace(static_cast<unsigned char>(input_[pos_]))) {
      ++pos_;
      ++skipped;
    }
    return skipped;
  }

  /// PostgreSQL's is_next_separator: whether the item after `index` cannot be digits of this field.
  bool nextIsSeparator(size_t index) const {
    if (index + 1 >= items_.size()) return true;
    const Item& next = items_[index + 1];
    if (next.kind == Item::Kind::kKeyword) return !next.keyword->digits;
    return true;  // a literal digit in the format is rare enough to read as a separator
  }

  /// from_char_parse_int_len: the field's fixed number of digits, or as many as strtol reads under FM or
  /// before a separator.
  int64_t readInteger(size_t index) {
    const Item& item = items_[index];
    const std::string_view name = item.keyword->text;
    skipSpaces();
    const std::string rest(input_.substr(pos_));
    const int length = item.keyword->length;
    const std::string shown = rest.substr(0, static_cast<size_t>(length));
    long value = 0;
    size_t used = 0;
    errno = 0;
    if (item.fillMode || nextIsSeparator(index)) {
      char* end = nullptr;
      value = std::strtol(rest.c_str(), &end, 10);
      used = static_cast<size_t>(end - rest.c_str());
    } else {
      if (rest.size() < static_cast<size_t>(length)) {
        SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "source string too short for \"{}\" formatting field", name);
      }
      char* end = nullptr;
      value = std::strtol(shown.c_str(), &end, 10);
      used = static_cast<size_t>(end - shown.c_str());
      if (used > 0 && used < static_cast<size_t>(length)) {
        SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid value \"{}\" for \"{}\"", shown, name);
      }
    }
    if (used == 0) SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid value \"{}\" for \"{}\"", shown, name);
    if (errno == ERANGE || value < INT_MIN || value > INT_MAX) {
      SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "value for \"{}\" in source string is out of range", name);
    }
    pos_ += used;
    lastDigits_ = static_cast<int>(used);
    if (item.ordinal) {
      for (int skipped = 0;
           skipped < 2 && pos_ < input_.size() && std::isalpha(static_cast<unsigned char>(input_[pos_])); ++skipped) {
        ++pos_;
      }
    }
    return value;
  }

  /// from_char_seq_search: the entry of `names` the input starts with (case does not matter), cut to
  /// `length` letters when given.
  template <size_t N>
  size_t readName(const std::array<std::string_view, N>& names, size_t length, std::string_view field) {
    for (size_t entry = 0; entry < N; ++entry) {
      const std::string_view name = length == 0 ? names[entry] : names[entry].substr(0, length);
      if (startsWithIgnoringCase(name)) {
        pos_ += name.size();
        return entry;
      }
    }
    failNoMatch(field);
  }

  bool startsWithIgnoringCase(std::string_view word) const {
    if (input_.size() - pos_ < word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(input_[pos_ + i])) != word[i]) return false;
    }
    return true;
  }

  [[noreturn]] void failNoMatch(std::string_view field) const {
    size_t end = pos_;
    while (end < input_.size() && !std::isspace(static_cast<unsigned char>(input_[end]))) ++end;
    SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid value \"{}\" for \"{}\"",
                    input_.substr(pos_, end - pos_), field);
  }

  /// Two of these words, "am"/"pm" or "ad"/"bc" (with dots when `dotted`): which one the input holds.
  bool readEither(std::string_view first, std::string_view second, std::string_view field) {
    if (startsWithIgnoringCase(first)) {
      pos_ += first.size();
      return false;
    }
    if (startsWithIgnoringCase(second)) {
      pos_ += second.size();
      return true;
    }
    failNoMatch(field);
  }

  static int64_t adjustPartialYear(int64_t year) {
    if (year < 70) return year + 2000;  // two digits: 1970..2069
    if (year < 100) return year + 1900;
    if (year < 520) return year + 2000;  // three digits: 2100..2519, then 1520..1999
    if (year < 1000) return year + 1000;
    return year;
  }

  void readField(size_t index) {
    const Keyword& keyword = *items_[index].keyword;
    switch (keyword.field) {
      case Field::kYear4:
        parsed_.year = readInteger(index);
        return;
      case Field::kYear3:
      case Field::kYear2:
      case Field::kYear1:
        parsed_.year = adjustPartialYear(readInteger(index));
        return;
      case Field::kMonth:
        parsed_.month = readInteger(index);
        return;
      case Field::kMonthName:
        parsed_.month = static_cast<int64_t>(readName(kMonthNames, 0, keyword.text)) + 1;
        return;
      case Field::kMonthShort:
        parsed_.month = static_cast<int64_t>(readName(kMonthNames, 3, keyword.text)) + 1;
        return;
      case Field::kDay:
        parsed_.day = readInteger(index);
        return;
      case Field::kDayOfYear:
        parsed_.dayOfYear = readInteger(index);
        return;
      case Field::kDayOfWeek:
        readInteger(index);
        return;
      case Field::kDayName:
        readName(kDayNames, 0, keyword.text);
        return;
      case Field::kDayShort:
        readName(kDayNames, 3, keyword.text);
        return;
      case Field::kHour12:
        parsed_.hour = readInteger(index);
        parsed_.twelveHour = true;
        return;
      case Field::kHour24:
        parsed_.hour = readInteger(index);
        return;
      case Field::kMinute:
        parsed_.minute = readInteger(index);
        return;
      case Field::kSecond:
        parsed_.second = readInteger(index);
        return;
      case Field::kMillis:
      case Field::kMicros: {
        // Fewer digits than the field's are its leading digits: .5 is 500 milliseconds.
        int64_t value = readInteger(index);
        if (lastDigits_ > keyword.length) parsed_.fractionTooLong = true;
        for (int digit = lastDigits_; digit < keyword.length; ++digit) value *= 10;
        parsed_.micros = keyword.field == Field::kMillis ? value * 1000 : value;
        return;
      }
      case Field::kMeridiem:
        parsed_.afternoon = readEither("am", "pm", keyword.text);
        parsed_.twelveHour = true;
        return;
      case Field::kMeridiemDotted:
        parsed_.afternoon = readEither("a.m.", "p.m.", keyword.text);
        parsed_.twelveHour = true;
        return;
      case Field::kEra:
        parsed_.beforeChrist = readEither("ad", "bc", keyword.text);
        return;
      case Field::kEraDotted:
        parsed_.beforeChrist = readEither("a.d.", "b.c.", keyword.text);
        return;
      case Field::kFixed:
        return;
      case Field::kUnsupported:
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                        "formatting field \"{}\" is not supported by to_date and to_timestamp yet", keyword.text);
    }
  }

  std::string_view input_;
  const std::vector<Item>& items_;
  size_t pos_ = 0;
  int lastDigits_ = 0;
  Parsed parsed_;
};

/// The local timestamp the fields name; 22008 for a field or a result out of range.
int64_t localMicrosOf(const Parsed& parsed, std::string_view input) {
  auto outOfRange = [&]() -> int64_t {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date/time field value out of range: \"{}\"", input);
  };
  // Without a year PostgreSQL takes year 0, which it shows as 1 BC (as it reads 0000 too).
  int64_t year = parsed.year.value_or(0);
  if (parsed.beforeChrist) year = 1 - year;
  int64_t hour = parsed.hour;
  if (parsed.twelveHour) {
    if (hour < 1 || hour > 12) {
      SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "hour \"{}\" is invalid for the 12-hour clock", hour);
    }
    if (parsed.afternoon.value_or(false) && hour < 12) hour += 12;
    if (!parsed.afternoon.value_or(true) && hour == 12) hour = 0;
  }
  const int64_t timeMicros = ((hour * 60 + parsed.minute) * 60 + parsed.second) * kMicrosPerSecond + parsed.micros;
  if (hour < 0 || hour > 23 || parsed.minute < 0 || parsed.minute > 59 || parsed.second < 0 || parsed.second > 59 ||
      parsed.micros < 0 || parsed.fractionTooLong || timeMicros >= kMicrosPerDay) {
    outOfRange();
  }
  if (year < -4713 || year > 5874897) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range: \"{}\"", input);
  }
  int64_t days = 0;
  const auto civilYear = static_cast<int32_t>(year);
  // A day of the year counts where no month and day were read; 0 counts as none, as in PostgreSQL.
  if (parsed.dayOfYear.value_or(0) != 0 && !parsed.month && !parsed.day) {
    const int64_t lastDay = daysInMonth(civilYear, 2) == 29 ? 366 : 365;
    if (*parsed.dayOfYear < 1 || *parsed.dayOfYear > lastDay) outOfRange();
    days = daysFromCivil(CivilDate{civilYear, 1, 1}) + *parsed.dayOfYear - 1;
  } else {
    const int64_t month = parsed.month.value_or(1);
    const int64_t day = parsed.day.value_or(1);
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(civilYear, static_cast<uint32_t>(month))) {
      outOfRange();
    }
    days = daysFromCivil(CivilDate{civilYear, static_cast<uint32_t>(month), static_cast<uint32_t>(day)});
  }
  const __int128 local = static_cast<__int128>(days) * kMicrosPerDay + timeMicros;
  if (local < kMinTimestamp || local >= kEndTimestamp) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp out of range: \"{}\"", input);
  }
  return static_cast<int64_t>(local);
}

}  // namespace

Vector evaluateDateTimeFromChar(const Vector& inputs, const Vector& formats, bool toDate, const TimeZone& zone) {
  const size_t numRows = inputs.size();
  Vector out(toDate ? LogicalType::date() : LogicalType::timestampTz(), numRows);
  std::string_view lastFormat;
  std::vector<Item> items;
  bool parsedOnce = false;
  for (size_t row = 0; row < numRows; ++row) {
    if (inputs.isNull(row) || formats.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    const std::string_view format = formats.data<StringRef>()[row].view();
    if (!parsedOnce || format != lastFormat) {  // the format is nearly always a constant: parse it once
      items = parseFormat(format);
      lastFormat = format;
      parsedOnce = true;
    }
    const std::string_view input = inputs.data<StringRef>()[row].view();
    const int64_t local = localMicrosOf(FromCharReader(input, items).read(), input);
    if (toDate) {
      int64_t days = local / kMicrosPerDay;
      if (local % kMicrosPerDay < 0) --days;
      out.data<int32_t>()[row] = static_cast<int32_t>(days);
    } else {
      out.data<int64_t>()[row] = zone.localToUtc(local);
    }
  }
  return out;
}

}  // namespace shoal::engine
