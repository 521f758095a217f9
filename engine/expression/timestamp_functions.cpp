#include "engine/expression/timestamp_functions.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "common/status.h"
#include "engine/expression/cast.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/date.h"
#include "engine/types/interval.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"

namespace shoal::engine {
namespace {

constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int128_t kExtractUnit = 1'000'000;  // evaluateTimestampPart's scale

bool isInfinite(int64_t micros) {
  return micros == kTimestampInfinity || micros == kTimestampMinusInfinity;
}

int64_t floorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  return value % divisor < 0 ? quotient - 1 : quotient;
}

/// A local time taken apart: the day since 1970, its civil date (year 0 is 1 BC) and the time of day.
struct Parts {
  int64_t days;
  CivilDate date;
  int64_t timeOfDay;
};

Parts partsOf(int64_t localMicros) {
  Parts parts;
  parts.days = floorDivide(localMicros, kMicrosPerDay);
  parts.timeOfDay = localMicros - parts.days * kMicrosPerDay;
  parts.date = civilFromDays(static_cast<int32_t>(parts.days));
  return parts;
}

int64_t isoDayOfWeek(int64_t days) {
  int64_t dow = ((days + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday; Sunday is 0
  return dow == 0 ? 7 : dow;
}

/// The ISO year and week of a day: the week belongs to the year of its Thursday.
std::pair<int64_t, int64_t> isoYearAndWeek(int64_t days) {
  const int64_t thursday = days - (isoDayOfWeek(days) - 1) + 3;
  const int32_t year = civilFromDays(static_cast<int32_t>(thursday)).year;
  const int64_t week = (thursday - daysFromCivil(CivilDate{year, 1, 1})) / 7 + 1;
  return {year, week};
}

/// PostgreSQL prints years BC as negative and has no year 0.
int64_t signedYear(int64_t year) {
  return year > 0 ? year : year - 1;
}

[[noreturn]] void failOutOfRange() {
  SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp out of range");
}

int64_t checkedTimestamp(int128_t micros) {
  if (micros < kMinTimestamp || micros >= kEndTimestamp) failOutOfRange();
  return static_cast<int64_t>(micros);
}

/// The local time of a civil date and time of day; out of range fails with 22008.
int64_t localMicrosOf(int64_t year, uint32_t month, uint32_t day, int64_t timeOfDay) {
  // Far-off years would overflow daysFromCivil's int32 arithmetic.
  if (year < -4713 || year > 294248) failOutOfRange();
  const int64_t days = daysFromCivil(CivilDate{static_cast<int32_t>(year), month, day});
  return checkedTimestamp(int128_t{days} * kMicrosPerDay + timeOfDay);
}

/// The scaled value (x 10^6) of a field of a finite local time; `offset` is the zone's, for the zone fields.
int128_t fieldValue(TimestampField field, int64_t localMicros, int64_t epochMicros, int32_t offset) {
  const Parts parts = partsOf(localMicros);
  const int64_t year = parts.date.year;
  const int64_t microsOfMinute = parts.timeOfDay % kMicrosPerMinute;
  switch (field) {
    case TimestampField::kMicroseconds:
      return int128_t{microsOfMinute} * kExtractUnit;
    case TimestampField::kMilliseconds:
      return int128_t{microsOfMinute} * 1000;
    case TimestampField::kSecond:
      return microsOfMinute;
    case TimestampField::kMinute:
      return int128_t{parts.timeOfDay / kMicrosPerMinute % 60} * kExtractUnit;
    case TimestampField::kHour:
      return int128_t{parts.timeOfDay / kMicrosPerHour} * kExtractUnit;
    case TimestampField::kDay:
      return int128_t{parts.date.day} * kExtractUnit;
    case TimestampField::kWeek:
      return int128_t{isoYearAndWeek(parts.days).second} * kExtractUnit;
    case TimestampField::kMonth:
      return int128_t{parts.date.month} * kExtractUnit;
    case TimestampField::kQuarter:
      return int128_t{(parts.date.month - 1) / 3 + 1} * kExtractUnit;
    case TimestampField::kYear:
      return int128_t{signedYear(year)} * kExtractUnit;
    // PostgreSQL's formulas, whose astronomical year 0 is 1 BC.
    case TimestampField::kDecade:
      return int128_t{year >= 0 ? year / 10 : -((8 - (year - 1)) / 10)} * kExtractUnit;
    case TimestampField::kCentury:
      return int128_t{year > 0 ? (year + 99) / 100 : -((99 - (year - 1)) / 100)} * kExtractUnit;
    case TimestampField::kMillennium:
      return int128_t{year > 0 ? (year + 999) / 1000 : -((999 - (year - 1)) / 1000)} * kExtractUnit;
    case TimestampField::kDayOfWeek:
      return int128_t{isoDayOfWeek(parts.days) % 7} * kExtractUnit;
    case TimestampField::kIsoDayOfWeek:
      return int128_t{isoDayOfWeek(parts.days)} * kExtractUnit;
    case TimestampField::kDayOfYear:
      return int128_t{parts.days - daysFromCivil(CivilDate{parts.date.year, 1, 1}) + 1} * kExtractUnit;
    case TimestampField::kIsoYear:
      return int128_t{signedYear(isoYearAndWeek(parts.days).first)} * kExtractUnit;
    case TimestampField::kEpoch:
      return epochMicros;
    case TimestampField::kTimezone:
      return int128_t{offset} * kExtractUnit;
    case TimestampField::kTimezoneHour:
      return int128_t{offset / 3600} * kExtractUnit;
    case TimestampField::kTimezoneMinute:
      return int128_t{offset / 60 % 60} * kExtractUnit;
  }
  SHOAL_UNREACHABLE("timestamp field {}", static_cast<int>(field));
}

/// Fields that grow with time: PostgreSQL's EXTRACT of them from infinity is +-Infinity.
bool isMonotonic(TimestampField field) {
  switch (field) {
    case TimestampField::kYear:
    case TimestampField::kDecade:
    case TimestampField::kCentury:
    case TimestampField::kMillennium:
    case TimestampField::kIsoYear:
    case TimestampField::kEpoch:
      return true;
    default:
      return false;
  }
}

/// date_trunc of a local time.
int64_t truncateLocal(TimestampField field, int64_t localMicros) {
  auto floorTo = [&](int64_t unit) { return floorDivide(localMicros, unit) * unit; };
  switch (field) {
    case TimestampField::kMicroseconds:
      return localMicros;
    case TimestampField::kMilliseconds:
      return floorTo(1000);
    case TimestampField::kSecond:
      return floorTo(kMicrosPerSecond);
    case TimestampField::kMinute:
      return floorTo(kMicrosPerMinute);
    case TimestampField::kHour:
      return floorTo(kMicrosPerHour);
    case TimestampField::kDay:
      return floorTo(kMicrosPerDay);
    case TimestampField::kWeek: {
      const int64_t days = floorDivide(localMicros, kMicrosPerDay);
      return checkedTimestamp(int128_t{days - (isoDayOfWeek(days) - 1)} * kMicrosPerDay);
    }
    default:
      break;
  }
  // PostgreSQL's timestamp_trunc, whose astronomical year 0 is 1 BC.
  const Parts parts = partsOf(localMicros);
  int64_t year = parts.date.year;
  uint32_t month = parts.date.month;
  switch (field) {
    case TimestampField::kMillennium:
      year = year > 0 ? (year + 999) / 1000 * 1000 - 999 : -((999 - (year - 1)) / 1000) * 1000 + 1;
      month = 1;
      break;
    case TimestampField::kCentury:
      year = year > 0 ? (year + 99) / 100 * 100 - 99 : -((99 - (year - 1)) / 100) * 100 + 1;
      month = 1;
      break;
    case TimestampField::kDecade:
      year = year > 0 ? year / 10 * 10 : -((8 - (year - 1)) / 10) * 10;
      month = 1;
      break;
    case TimestampField::kYear:
      month = 1;
      break;
    case TimestampField::kQuarter:
      month = 3 * ((month - 1) / 3) + 1;
      break;
    case TimestampField::kMonth:
      break;
    default:
      SHOAL_UNREACHABLE("date_trunc of field {}", static_cast<int>(field));
  }
  return localMicrosOf(year, month, 1, 0);
}

}  // namespace

std::optional<TimestampField> timestampFieldNamed(std::string_view unit) {
  static constexpr std::pair<std::string_view, TimestampField> kUnits[] = {
      {"microsecond", TimestampField::kMicroseconds},
      {"microseconds", TimestampField::kMicroseconds},
      {"us", TimestampField::kMicroseconds},
      {"usec", TimestampField::kMicroseconds},
      {"usecs", TimestampField::kMicroseconds},
      {"millisecond", TimestampField::kMilliseconds},
      {"milliseconds", TimestampField::kMilliseconds},
      {"ms", TimestampField::kMilliseconds},
      {"msec", TimestampField::kMilliseconds},
      {"msecs", TimestampField::kMilliseconds},
      {"second", TimestampField::kSecond},
      {"seconds", TimestampField::kSecond},
      {"s", TimestampField::kSecond},
      {"sec", TimestampField::kSecond},
      {"secs", TimestampField::kSecond},
      {"minute", TimestampField::kMinute},
      {"minutes", TimestampField::kMinute},
      {"m", TimestampField::kMinute},
      {"min", TimestampField::kMinute},
      {"mins", TimestampField::kMinute},
      {"hour", TimestampField::kHour},
      {"hours", TimestampField::kHour},
      {"h", TimestampField::kHour},
      {"hr", TimestampField::kHour},
      {"hrs", TimestampField::kHour},
      {"day", TimestampField::kDay},
      {"days", TimestampField::kDay},
      {"d", TimestampField::kDay},
      {"week", TimestampField::kWeek},
      {"weeks", TimestampField::kWeek},
      {"w", TimestampField::kWeek},
      {"month", TimestampField::kMonth},
      {"months", TimestampField::kMonth},
      {"mon", TimestampField::kMonth},
      {"mons", TimestampField::kMonth},
      {"quarter", TimestampField::kQuarter},
      {"qtr", TimestampField::kQuarter},
      {"year", TimestampField::kYear},
      {"years", TimestampField::kYear},
      {"y", TimestampField::kYear},
      {"yr", TimestampField::kYear},
      {"yrs", TimestampField::kYear},
      {"decade", TimestampField::kDecade},
      {"decades", TimestampField::kDecade},
      {"dec", TimestampField::kDecade},
      {"decs", TimestampField::kDecade},
      {"century", TimestampField::kCentury},
      {"centuries", TimestampField::kCentury},
      {"c", TimestampField::kCentury},
      {"cent", TimestampField::kCentury},
      {"millennium", TimestampField::kMillennium},
      {"millennia", TimestampField::kMillennium},
      {"mil", TimestampField::kMillennium},
      {"mils", TimestampField::kMillennium},
      {"dow", TimestampField::kDayOfWeek},
      {"isodow", TimestampField::kIsoDayOfWeek},
      {"doy", TimestampField::kDayOfYear},
      {"isoyear", TimestampField::kIsoYear},
      {"epoch", TimestampField::kEpoch},
      {"timezone", TimestampField::kTimezone},
      {"timezone_h", TimestampField::kTimezoneHour},
      {"timezone_hour", TimestampField::kTimezoneHour},
      {"timezone_m", TimestampField::kTimezoneMinute},
      {"timezone_minute", TimestampField::kTimezoneMinute},
  };
  for (const auto& [name, field] : kUnits) {
    if (name == unit) return field;
  }
  return std::nullopt;
}

int extractScale(TimestampField field) {
  switch (field) {
    case TimestampField::kSecond:
    case TimestampField::kEpoch:
      return 6;
    case TimestampField::kMilliseconds:
      return 3;
    default:
      return 0;
  }
}

bool truncates(TimestampField field) {
  return field <= TimestampField::kMillennium;
}

Vector evaluateTimestampPart(const Vector& values, TimestampField field, const TimeZone& zone,
                             const LogicalType& resultType) {
  const bool asDouble = resultType.id() == TypeId::kDouble;
  Vector out(LogicalType::decimal(20, 6), values.size());
  const bool zoned = values.type().id() == TypeId::kTimestampTz;
  const int64_t* in = values.data<int64_t>();
  int128_t* result = out.data<int128_t>();
  std::vector<size_t> infiniteRows;  // date_part's, filled in after the cast to double
  for (size_t row = 0; row < values.size(); ++row) {
    if (values.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    const int64_t micros = in[row];
    if (isInfinite(micros)) {
      if (isMonotonic(field)) {
        if (!asDouble) {
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                          "EXTRACT from an infinite timestamp is infinite, which Shoal's numeric cannot hold yet");
        }
        infiniteRows.push_back(row);
      }
      out.setNull(row, true);
      continue;
    }
    const int32_t offset = zoned ? zone.offsetAt(micros) : 0;
    const int64_t local = micros + int64_t{offset} * kMicrosPerSecond;
    result[row] = fieldValue(field, local, micros, offset);
  }
  if (!asDouble) return out;
  Vector doubles = castVector(out, LogicalType::doublePrecision());
  for (size_t row : infiniteRows) {
    doubles.setNull(row, false);
    doubles.data<double>()[row] = in[row] == kTimestampInfinity ? std::numeric_limits<double>::infinity()
                                                                : -std::numeric_limits<double>::infinity();
  }
  return doubles;
}

Vector evaluateTimestampTrunc(const Vector& values, TimestampField field, const TimeZone& zone) {
  Vector out(values.type(), values.size());
  if (values.type().id() == TypeId::kTimestamp) {
    unaryLoop<int64_t, int64_t>(
        values, out, [&](int64_t micros) { return isInfinite(micros) ? micros : truncateLocal(field, micros); });
    return out;
  }
  unaryLoop<int64_t, int64_t>(values, out, [&](int64_t micros) {
    if (isInfinite(micros)) return micros;
    const int64_t offset = int64_t{zone.offsetAt(micros)} * kMicrosPerSecond;
    const int64_t truncated = truncateLocal(field, micros + offset);
    // Below a day PostgreSQL keeps the offset the value had; from a day up it finds the zone's offset again.
    return field <= TimestampField::kHour ? truncated - offset : zone.localToUtc(truncated);
  });
  return out;
}

Vector evaluateTimestampAddInterval(const Vector& values, const Vector& intervals, const TimeZone& zone) {
  Vector out(values.type(), values.size());
  const bool zoned = values.type().id() == TypeId::kTimestampTz;
  binaryLoop<int64_t, int128_t, int64_t>(values, intervals, out, [&](int64_t value, int128_t packed) {
    if (isInfinite(value)) return value;
    const Interval interval = unpackInterval(packed);
    const int64_t months = interval.months;
    const int64_t days = interval.days;
    const int64_t micros = interval.micros;
    int64_t local = zoned ? value + int64_t{zone.offsetAt(value)} * kMicrosPerSecond : value;
    if (months != 0 || days != 0) {
      if (months != 0) {
        const Parts parts = partsOf(local);
        const int64_t monthIndex = int64_t{parts.date.year} * 12 + (parts.date.month - 1) + months;
        const int64_t year = floorDivide(monthIndex, 12);
        const auto month = static_cast<uint32_t>(monthIndex - year * 12 + 1);
        if (year < -4713 || year > 294248) failOutOfRange();
        const uint32_t day = std::min(parts.date.day, daysInMonth(static_cast<int32_t>(year), month));
        local = localMicrosOf(year, month, day, parts.timeOfDay);
      }
      local = checkedTimestamp(int128_t{local} + int128_t{days} * kMicrosPerDay);
      value = zoned ? zone.localToUtc(local) : local;
    }
    return checkedTimestamp(int128_t{value} + micros);
  });
  return out;
}

}  // namespace shoal::engine
