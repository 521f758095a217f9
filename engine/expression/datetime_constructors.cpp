#include "engine/expression/datetime_constructors.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "common/status.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/date.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"

namespace shoal::engine {

namespace {

// PostgreSQL's date range: 4714-11-24 BC (Julian day 0) to 5874897-12-31 AD.
constexpr int32_t kFirstYear = -4713;  // astronomical: 4714 BC
constexpr int32_t kLastYear = 5'874'897;

/// The days since 1970 of a year (negative: BC), month and day, as make_date checks them.
int32_t daysOf(int32_t year, int32_t month, int32_t day) {
  auto fieldOutOfRange = [&]() -> int32_t {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date field value out of range: {}-{:02}-{:02}", year, month,
                    day);
  };
  if (year == 0 || month < 1 || month > 12 || day < 1 || day > 31) return fieldOutOfRange();
  // Internally 1 BC is year 0, 2 BC year -1.
  const int64_t astronomical = year < 0 ? int64_t{year} + 1 : year;
  if (astronomical < kFirstYear || astronomical > kLastYear ||
      (astronomical == kFirstYear && (month < 11 || (month == 11 && day < 24)))) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range: {}-{:02}-{:02}", astronomical, month, day);
  }
  const auto civilYear = static_cast<int32_t>(astronomical);
  if (static_cast<uint32_t>(day) > daysInMonth(civilYear, static_cast<uint32_t>(month))) return fieldOutOfRange();
  return daysFromCivil(CivilDate{civilYear, static_cast<uint32_t>(month), static_cast<uint32_t>(day)});
}

/// The microseconds since midnight of hour:minute:second, as make_time and make_timestamp check them: hour 24
/// with nothing after it, and second up to 60.
int64_t timeOfDayFromFields(int32_t hour, int32_t minute, double second) {
  // NaN fails every comparison below, so it is out of range too.
  const bool inRange = hour >= 0 && minute >= 0 && minute <= 59 && second >= 0 && second <= 60 && hour <= 24 &&
                       (hour < 24 || (minute == 0 && second == 0));
  if (!inRange) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "time field value out of range: {}:{:02}:{}", hour, minute,
                    std::isnan(second) ? std::string("NaN") : fmt::format("{:02}", second));
  }
  return (int64_t{hour} * 60 + minute) * 60 * kMicrosPerSecond +
         static_cast<int64_t>(std::rint(second * kMicrosPerSecond));
}

}  // namespace

Vector evaluateMakeDate(const Vector& years, const Vector& months, const Vector& days) {
  Vector out(LogicalType::date(), years.size());
  Vector monthDays(LogicalType::bigInt(), years.size());
  // Month and day travel together through binaryLoop as one int64.
  binaryLoop<int32_t, int32_t, int64_t>(months, days, monthDays, [](int32_t month, int32_t day) {
    return (int64_t{month} << 32) | static_cast<uint32_t>(day);
  });
  binaryLoop<int32_t, int64_t, int32_t>(years, monthDays, out, [](int32_t year, int64_t monthDay) {
    return daysOf(year, static_cast<int32_t>(monthDay >> 32), static_cast<int32_t>(monthDay & 0xFFFFFFFF));
  });
  return out;
}

Vector evaluateMakeTimestamp(std::span<const Vector* const> parts, const Vector* zones) {
  SHOAL_CHECK_EQ(parts.size(), size_t{6});
  const size_t numRows = parts[0]->size();
  Vector out(zones ? LogicalType::timestampTz() : LogicalType::timestamp(), numRows);
  for (size_t row = 0; row < numRows; ++row) {
    bool anyNull = zones != nullptr && zones->isNull(row);
    for (const Vector* part : parts) anyNull = anyNull || part->isNull(row);
    if (anyNull) {
      out.setNull(row, true);
      continue;
    }
    auto integer = [&](size_t index) { return parts[index]->data<int32_t>()[row]; };
    const int32_t year = integer(0);
    const int32_t hour = integer(3);
    const int32_t minute = integer(4);
    const double second = parts[5]->data<double>()[row];
    const int32_t days = daysOf(year, integer(1), integer(2));
    const __int128 local = __int128{days} * kMicrosPerDay + timeOfDayFromFields(hour, minute, second);
    if (local < kMinTimestamp || local >= kEndTimestamp) {
      SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp out of range: {}-{:02}-{:02} {}:{:02}:{:02}", year,
                      integer(1), integer(2), hour, minute, second);
    }
    int64_t value = static_cast<int64_t>(local);
    if (zones != nullptr) value = TimeZone::named(zones->data<StringRef>()[row].view()).localToUtc(value);
    out.data<int64_t>()[row] = value;
  }
  return out;
}

Vector evaluateMakeTime(const Vector& hours, const Vector& minutes, const Vector& seconds) {
  const size_t numRows = hours.size();
  Vector out(LogicalType::time(), numRows);
  for (size_t row = 0; row < numRows; ++row) {
    if (hours.isNull(row) || minutes.isNull(row) || seconds.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    // 23:59:59.9999999 rounds up to 24:00:00, as in PostgreSQL; nothing goes past it.
    const int64_t micros =
        timeOfDayFromFields(hours.data<int32_t>()[row], minutes.data<int32_t>()[row], seconds.data<double>()[row]);
    out.data<int64_t>()[row] = std::min(micros, kMicrosPerDay);
  }
  return out;
}

Vector evaluateToTimestamp(const Vector& seconds) {
  Vector out(LogicalType::timestampTz(), seconds.size());
  unaryLoop<double, int64_t>(seconds, out, [](double value) -> int64_t {
    if (std::isnan(value)) SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp cannot be NaN");
    if (std::isinf(value)) return value > 0 ? kTimestampInfinity : kTimestampMinusInfinity;
    const double micros = std::rint(value * kMicrosPerSecond);
    if (!(micros >= static_cast<double>(kMinTimestamp) && micros < static_cast<double>(kEndTimestamp))) {
      SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp out of range: \"{}\"", value);
    }
    return static_cast<int64_t>(micros);
  });
  return out;
}

}  // namespace shoal::engine
