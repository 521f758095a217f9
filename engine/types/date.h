#pragma once

#include <cstdint>
#include <limits>

namespace shoal::engine {

/// 'infinity' and '-infinity' as date values: past every finite date (which end in 5874897 AD), as
/// PostgreSQL keeps them (DATEVAL_NOEND and DATEVAL_NOBEGIN).
inline constexpr int32_t kDateInfinity = std::numeric_limits<int32_t>::max();
inline constexpr int32_t kDateMinusInfinity = std::numeric_limits<int32_t>::min();

constexpr bool isInfiniteDate(int32_t days) {
  return days == kDateInfinity || days == kDateMinusInfinity;
}

/// A proleptic Gregorian calendar date.
struct CivilDate {
  int32_t year;
  uint32_t month;  // 1..12
  uint32_t day;    // 1..31
};

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm: exact
/// for every representable year, no tables, no branches on leap years).
constexpr int32_t daysFromCivil(CivilDate date) {
  int32_t year = date.year - (date.month <= 2 ? 1 : 0);
  int32_t era = (year >= 0 ? year : year - 399) / 400;
  uint32_t yearOfEra = static_cast<uint32_t>(year - era * 400);
  uint32_t dayOfYear = (153 * (date.month + (date.month > 2 ? -3 : 9)) + 2) / 5 + date.day - 1;
  uint32_t dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
  return era * 146097 + static_cast<int32_t>(dayOfEra) - 719468;
}

/// The civil date of a day count since 1970-01-01.
constexpr CivilDate civilFromDays(int32_t days) {
  days += 719468;
  int32_t era = (days >= 0 ? days : days - 146096) / 146097;
  uint32_t dayOfEra = static_cast<uint32_t>(days - era * 146097);
  uint32_t yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
  int32_t year = static_cast<int32_t>(yearOfEra) + era * 400;
  uint32_t dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
  uint32_t monthIndex = (5 * dayOfYear + 2) / 153;
  uint32_t day = dayOfYear - (153 * monthIndex + 2) / 5 + 1;
  uint32_t month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  return CivilDate{year + (month <= 2 ? 1 : 0), month, day};
}

constexpr bool isLeapYear(int32_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

constexpr uint32_t daysInMonth(int32_t year, uint32_t month) {
  constexpr uint32_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && isLeapYear(year) ? 29 : kDays[month - 1];
}

}  // namespace shoal::engine
