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
#include "engine/expression/datetime_format_template.h"
#include "engine/types/date.h"
#include "engine/types/timestamp_text.h"

namespace shoal::engine {
namespace {

using from_char::DateMode;
using from_char::Field;
using from_char::isSeparator;
using from_char::Item;
using from_char::kDayNames;
using from_char::Keyword;
using from_char::kMonthNames;
using from_char::kRomanMonths;

/// What the fields of one input set, as PostgreSQL's TmFromChar holds them: 0 where a field was not read
/// (a field read as 0 counts as not read, as in PostgreSQL).
struct Parsed {
  int64_t year = 0;
  int yearDigits = 0;  // how the year was written: 4 for YYYY and Y,YYY, 3 for YYY, ...
  int64_t century = 0;
  int64_t month = 0;
  int64_t day = 0;
  int64_t dayOfYear = 0;
  int64_t weekOfYear = 0;   // WW, or IW in ISO mode
  int64_t weekOfMonth = 0;  // W
  int64_t weekday = 0;      // Sunday is 1 (D; ID and the day names are moved to that count)
  int64_t julianDay = 0;
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  int64_t secondsOfDay = 0;
  int64_t micros = 0;
  int zoneSign = 0;  // +1 or -1 once TZH or TZM was read
  int64_t zoneHours = 0;
  int64_t zoneMinutes = 0;
  DateMode mode = DateMode::kNone;
  bool twelveHour = false;
  std::optional<bool> afternoon;
  bool beforeChrist = false;
  bool fractionTooLong = false;  // MS of more than 3 digits, US or FFn of more than 6
};

/// Reads one input string against the format's items, as DCH_from_char does.
class FromCharReader {
 public:
  FromCharReader(std::string_view input, const std::vector<Item>& items) : input_(input), items_(items) {}

  Parsed read() {
    int& extraSkip = extraSkip_;
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
      setMode(from_char::dateModeOf(item.keyword->field));
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
      case Field::kIsoYear4:
        parsed_.year = readInteger(index);
        parsed_.yearDigits = 4;
        return;
      case Field::kYearComma:
        parsed_.year = readYearWithComma(keyword.text);
        parsed_.yearDigits = 4;
        return;
      case Field::kYear3:
      case Field::kYear2:
      case Field::kYear1:
      case Field::kIsoYear3:
      case Field::kIsoYear2:
      case Field::kIsoYear1:
        parsed_.year = adjustPartialYear(readInteger(index));
        parsed_.yearDigits = keyword.length;
        return;
      case Field::kCentury:
        parsed_.century = readInteger(index);
        return;
      case Field::kQuarter:
        readInteger(index);
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
      case Field::kRomanMonth:
        parsed_.month = 12 - static_cast<int64_t>(readName(kRomanMonths, 0, keyword.text));
        return;
      case Field::kWeekOfYear:
      case Field::kIsoWeek:
        parsed_.weekOfYear = readInteger(index);
        return;
      case Field::kWeekOfMonth:
        parsed_.weekOfMonth = readInteger(index);
        return;
      case Field::kDay:
        parsed_.day = readInteger(index);
        return;
      case Field::kDayOfYear:
      case Field::kIsoDayOfYear:
        parsed_.dayOfYear = readInteger(index);
        return;
      case Field::kDayOfWeek:
        setWeekday(readInteger(index), keyword.text);
        return;
      case Field::kIsoDayOfWeek: {
        // Moved to Sunday = 1: Monday (1) becomes 2, and Sunday (7), or anything above, 1.
        setWeekday(readInteger(index), keyword.text);
        if (++parsed_.weekday > 7) parsed_.weekday = 1;
        return;
      }
      case Field::kDayName:
      case Field::kDayShort: {
        const auto weekday =
            static_cast<int64_t>(readName(kDayNames, keyword.field == Field::kDayShort ? 3 : 0, keyword.text));
        setWeekday(weekday, keyword.text);
        ++parsed_.weekday;
        return;
      }
      case Field::kJulianDay:
        parsed_.julianDay = readInteger(index);
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
      case Field::kSecondsOfDay:
        parsed_.secondsOfDay = readInteger(index);
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
      case Field::kFraction: {
        // FFn reads up to n digits (more before a separator), scaled by the digits read to microseconds.
        int64_t value = readInteger(index);
        if (lastDigits_ > 6) parsed_.fractionTooLong = true;
        for (int digit = lastDigits_; digit < 6; ++digit) value *= 10;
        parsed_.micros = value;
        return;
      }
      case Field::kZoneHours:
        readZoneSign();
        parsed_.zoneHours = readInteger(index);
        return;
      case Field::kZoneMinutes:
        if (parsed_.zoneSign == 0) parsed_.zoneSign = 1;
        parsed_.zoneMinutes = readInteger(index);
        return;
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
      case Field::kToCharOnly:
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "formatting field \"{}\" is only supported in to_char",
                        keyword.text);
    }
  }

  /// from_char_set_mode: 22007 when Gregorian and ISO week-date fields meet.
  void setMode(DateMode mode) {
    if (mode == DateMode::kNone) return;
    if (parsed_.mode == DateMode::kNone) {
      parsed_.mode = mode;
    } else if (parsed_.mode != mode) {
      throw ShoalError(Status(SqlState::kInvalidDatetimeFormat, "invalid combination of date conventions")
                           .withHint("Do not mix Gregorian and ISO week date conventions in a formatting template."));
    }
  }

  /// from_char_set_int for the weekday: a second field that names another day is an error.
  void setWeekday(int64_t value, std::string_view field) {
    if (parsed_.weekday != 0 && parsed_.weekday != value) {
      throw ShoalError(Status(SqlState::kInvalidDatetimeFormat,
                              fmt::format("conflicting values for \"{}\" field in formatting string", field))
                           .withDetail("This value contradicts a previous setting for the same field type."));
    }
    parsed_.weekday = value;
  }

  /// Y,YYY: thousands, a comma, then up to three digits.
  int64_t readYearWithComma(std::string_view field) {
    skipSpaces();
    const std::string rest(input_.substr(pos_));
    char* end = nullptr;
    errno = 0;
    const long thousands = std::strtol(rest.c_str(), &end, 10);
    size_t used = static_cast<size_t>(end - rest.c_str());
    if (used == 0 || used >= rest.size() || rest[used] != ',') {
      SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid input string for \"{}\"", field);
    }
    const std::string last = rest.substr(used + 1, 3);
    const long units = std::strtol(last.c_str(), &end, 10);
    const auto unitsUsed = static_cast<size_t>(end - last.c_str());
    if (unitsUsed == 0) SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid input string for \"{}\"", field);
    const __int128 year = static_cast<__int128>(thousands) * 1000 + units;
    if (errno == ERANGE || year < INT_MIN || year > INT_MAX) {
      SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "value for \"{}\" in source string is out of range", field);
    }
    pos_ += used + 1 + unitsUsed;
    return static_cast<int64_t>(year);
  }

  /// TZH's sign: written before it, or a minus that was skipped as a separator.
  void readZoneSign() {
    if (pos_ < input_.size() && (input_[pos_] == '+' || input_[pos_] == '-' || input_[pos_] == ' ')) {
      parsed_.zoneSign = input_[pos_] == '-' ? -1 : 1;
      ++pos_;
    } else {
      parsed_.zoneSign = extraSkip_ > 0 && pos_ > 0 && input_[pos_ - 1] == '-' ? -1 : 1;
    }
  }

  std::string_view input_;
  const std::vector<Item>& items_;
  size_t pos_ = 0;
  int lastDigits_ = 0;
  int extraSkip_ = 0;  // spaces and separators skipped beyond what the format asked for
  Parsed parsed_;
};

/// The day ISO week `week` of ISO year `year` starts on (isoweek2j): weeks start on Monday, and week 1 holds
/// January 4th.
int64_t isoWeekStart(int64_t year, int64_t week) {
  const int64_t january4 = daysFromCivil(CivilDate{static_cast<int32_t>(year), 1, 4});
  const int64_t sinceMonday = ((january4 + 3) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
  return january4 - sinceMonday + (week - 1) * 7;
}

/// The local timestamp the fields name, as do_to_timestamp combines them; 22008 for a field or a result out
/// of range, 22009 for a zone offset out of range.
int64_t localMicrosOf(const Parsed& parsed, std::string_view input) {
  auto outOfRange = [&]() -> int64_t {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date/time field value out of range: \"{}\"", input);
  };
  // SSSS gives all three; an hour, minute or second written (and not 0) replaces its part.
  int64_t hour = parsed.secondsOfDay / 3600;
  int64_t minute = parsed.secondsOfDay % 3600 / 60;
  int64_t second = parsed.secondsOfDay % 60;
  if (parsed.hour != 0) hour = parsed.hour;
  if (parsed.minute != 0) minute = parsed.minute;
  if (parsed.second != 0) second = parsed.second;
  if (parsed.twelveHour) {
    if (hour < 1 || hour > 12) {
      SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "hour \"{}\" is invalid for the 12-hour clock", hour);
    }
    if (parsed.afternoon.value_or(false) && hour < 12) hour += 12;
    if (!parsed.afternoon.value_or(true) && hour == 12) hour = 0;
  }
  // The year, astronomical (1 BC is 0). Without one PostgreSQL takes 0, shown as 1 BC.
  int64_t year = 0;
  const int64_t century = parsed.beforeChrist ? -parsed.century : parsed.century;
  if (parsed.year != 0) {
    if (parsed.century != 0 && parsed.yearDigits <= 2) {
      // CC with YY or Y: the year's last two digits within that century (the 21st runs from 2001 to 2100).
      year = parsed.year % 100;
      if (year != 0) {
        year = century >= 0 ? year + (century - 1) * 100 : (century + 1) * 100 - year + 1;
      } else {
        year = century * 100 + (century >= 0 ? 0 : 1);
      }
    } else {
      year = parsed.beforeChrist ? -parsed.year : parsed.year;
      if (year < 0) ++year;
    }
  } else if (parsed.century != 0) {
    year = century >= 0 ? (century - 1) * 100 + 1 : century * 100 + 1;  // the century's first year
  }
  if (year < -4713 || year > 5874897) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range: \"{}\"", input);
  }
  int64_t month = 1;
  int64_t day = 1;
  auto setDate = [&](int64_t days) {
    if (days < INT32_MIN || days > INT32_MAX) outOfRange();
    const CivilDate date = civilFromDays(static_cast<int32_t>(days));
    year = date.year;
    month = date.month;
    day = date.day;
  };
  constexpr int64_t kUnixEpochJulianDay = 2440588;
  if (parsed.julianDay != 0) setDate(parsed.julianDay - kUnixEpochJulianDay);
  const bool iso = parsed.mode == DateMode::kIsoWeek;
  int64_t dayOfYear = parsed.dayOfYear;
  if (parsed.weekOfYear != 0) {
    if (iso) {
      // Monday of the ISO week, or the weekday given (counted from Sunday = 1).
      const int64_t weekday = parsed.weekday;
      setDate(isoWeekStart(year, parsed.weekOfYear) + (weekday == 0 ? 0 : weekday > 1 ? weekday - 2 : 6));
    } else {
      dayOfYear = (parsed.weekOfYear - 1) * 7 + 1;
    }
  }
  const int64_t dayOfMonth = parsed.weekOfMonth != 0 ? (parsed.weekOfMonth - 1) * 7 + 1 : parsed.day;
  if (dayOfMonth != 0) day = dayOfMonth;
  if (parsed.month != 0) month = parsed.month;
  // A day of the year fills in the month or the day where they were not given (or given as 1).
  if (dayOfYear != 0 && (month <= 1 || day <= 1)) {
    if (year == 0 && !parsed.beforeChrist) {
      SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "cannot calculate day of year without year information");
    }
    if (iso) {
      setDate(isoWeekStart(year, 1) - 1 + dayOfYear);
    } else {
      const auto civilYear = static_cast<int32_t>(year);
      int64_t monthOfDay = 1;
      int64_t daysBefore = 0;  // in the months before monthOfDay
      while (monthOfDay <= 12 && dayOfYear > daysBefore + daysInMonth(civilYear, static_cast<uint32_t>(monthOfDay))) {
        daysBefore += daysInMonth(civilYear, static_cast<uint32_t>(monthOfDay));
        ++monthOfDay;
      }
      if (month <= 1) month = monthOfDay;  // 13 past the year's end: out of range below
      if (day <= 1) day = dayOfYear - daysBefore;
    }
  }
  const int64_t timeMicros = ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond + parsed.micros;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || parsed.micros < 0 ||
      parsed.fractionTooLong || timeMicros >= kMicrosPerDay) {
    outOfRange();
  }
  if (year < -4713 || year > 5874897) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range: \"{}\"", input);
  }
  const auto civilYear = static_cast<int32_t>(year);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(civilYear, static_cast<uint32_t>(month))) {
    outOfRange();
  }
  if (parsed.zoneSign != 0 &&
      (parsed.zoneHours < 0 || parsed.zoneHours > 15 || parsed.zoneMinutes < 0 || parsed.zoneMinutes >= 60)) {
    SHOAL_USER_FAIL(SqlState::kInvalidTimeZoneDisplacementValue, "time zone displacement out of range: \"{}\"", input);
  }
  const int64_t days = daysFromCivil(CivilDate{civilYear, static_cast<uint32_t>(month), static_cast<uint32_t>(day)});
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
      items = from_char::parseFormat(format);
      lastFormat = format;
      parsedOnce = true;
    }
    const std::string_view input = inputs.data<StringRef>()[row].view();
    const Parsed parsed = FromCharReader(input, items).read();
    const int64_t local = localMicrosOf(parsed, input);
    if (toDate) {
      int64_t days = local / kMicrosPerDay;
      if (local % kMicrosPerDay < 0) --days;
      out.data<int32_t>()[row] = static_cast<int32_t>(days);
    } else if (parsed.zoneSign != 0) {
      // TZH/TZM name the offset from UTC, in place of the session's zone.
      const int64_t offset = parsed.zoneSign * (parsed.zoneHours * 60 + parsed.zoneMinutes) * 60 * kMicrosPerSecond;
      out.data<int64_t>()[row] = local - offset;
    } else {
      out.data<int64_t>()[row] = zone.localToUtc(local);
    }
  }
  return out;
}

}  // namespace shoal::engine
