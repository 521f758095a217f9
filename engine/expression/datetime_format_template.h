#pragma once

// The template of to_date and to_timestamp (`'YYYY-MM-DD HH24:MI'`) cut into items: the fields PostgreSQL 15's
// formatting.c reads (DCH_from_char's keywords), spaces, separators and literal characters. Internal to
// datetime_from_char.cpp, which reads input strings against the items.

#include <array>
#include <cctype>
#include <string_view>
#include <vector>

namespace shoal::engine::from_char {

// The fields to_date and to_timestamp read, as PostgreSQL 15's formatting.c (DCH_from_char) reads them.
enum class Field {
  kYear4,  // YYYY: as written
  kYear3,  // YYY, YY, Y: adjusted into 1970-2069 (two digits) or 2000-2519 / 1520-1999 (three)
  kYear2,
  kYear1,
  kYearComma,  // Y,YYY: 1,234
  kIsoYear4,   // IYYY, IYY, IY, I: the ISO year, read as YYYY, YYY, YY and Y are
  kIsoYear3,
  kIsoYear2,
  kIsoYear1,
  kCentury,       // CC: with YY or Y, the century of a two-digit year; alone, its first year
  kQuarter,       // Q: read, then ignored (which day of the quarter would it be?)
  kMonth,         // MM
  kMonthName,     // Month: January
  kMonthShort,    // Mon: Jan
  kRomanMonth,    // RM: XII
  kWeekOfYear,    // WW: the week's first day, counted from January 1st
  kWeekOfMonth,   // W: the week's first day, counted from the 1st of the month
  kIsoWeek,       // IW
  kDay,           // DD
  kDayOfYear,     // DDD
  kIsoDayOfYear,  // IDDD
  kDayOfWeek,     // D: Sunday is 1; a weekday counts only in an ISO week
  kIsoDayOfWeek,  // ID: Monday is 1
  kDayName,       // Day, Dy: a weekday too
  kDayShort,
  kJulianDay,  // J: days since November 24, 4714 BC
  kHour12,     // HH, HH12
  kHour24,     // HH24
  kMinute,
  kSecond,
  kSecondsOfDay,    // SSSS, SSSSS: seconds since midnight
  kMillis,          // MS
  kMicros,          // US
  kFraction,        // FF1 .. FF6: a fraction of a second of up to that many digits
  kZoneHours,       // TZH: the offset from UTC, signed
  kZoneMinutes,     // TZM
  kMeridiem,        // AM PM am pm
  kMeridiemDotted,  // A.M. P.M.
  kEra,             // AD BC
  kEraDotted,       // A.D. B.C.
  kFixed,           // FX: the rest of the format is matched exactly
  kToCharOnly,      // TZ, OF: output fields, which PostgreSQL 15 does not read
};

/// PostgreSQL's FromCharDateMode: Gregorian and ISO week-date fields must not meet in one format.
enum class DateMode { kNone, kGregorian, kIsoWeek };

/// The convention of a field's date part: Gregorian (YYYY, MM, WW, ...), ISO week date (IYYY, IW, ID,
/// IDDD) or none (times, names, CC, J, Q).
DateMode dateModeOf(Field field);

struct Keyword {
  std::string_view text;
  Field field;
  int length;  // the digits a numeric field reads when the next format item is a digit field too
  bool digits;
};

inline constexpr std::array<std::string_view, 12> kMonthNames = {"january",   "february", "march",    "april",
                                                                 "may",       "june",     "july",     "august",
                                                                 "september", "october",  "november", "december"};
// As PostgreSQL's rm_months_upper searches them: a longer numeral before the shorter one it begins with.
inline constexpr std::array<std::string_view, 12> kRomanMonths = {"xii", "xi", "x",  "ix",  "viii", "vii",
                                                                  "vi",  "v",  "iv", "iii", "ii",   "i"};
inline constexpr std::array<std::string_view, 7> kDayNames = {"sunday",   "monday", "tuesday", "wednesday",
                                                              "thursday", "friday", "saturday"};

/// One item of a format: a keyword (with FM / TH), a space, a separator, or any other character.
struct Item {
  enum class Kind { kKeyword, kSpace, kSeparator, kCharacter } kind;
  const Keyword* keyword = nullptr;
  bool fillMode = false;  // FM: read as many digits as there are
  bool ordinal = false;   // TH/th after the field: its suffix is skipped in the input
};

/// PostgreSQL's is_separator_char: printable ASCII that is not a letter or a digit.
inline bool isSeparator(char c) {
  return c > 0x20 && c < 0x7F && !std::isalnum(static_cast<unsigned char>(c));
}

/// The items of `format`, in order: keywords matched longest first, FM and TH taken with their field, quoted
/// text as literal characters.
std::vector<Item> parseFormat(std::string_view format);

}  // namespace shoal::engine::from_char
